/** The JSON answers and bodies of a site's machine paths (src/site/mcp.ts, src/site/insights.ts). */
import { readCapped } from '../lib/read-capped';

export const jsonError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code: status, message } }), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });

/** Reads at most `max` bytes of the body as JSON; a Response (413, 400) when it cannot. */
export async function boundedJson(req: Request, max: number): Promise<unknown | Response> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > max) return jsonError(413, `Request body is larger than ${max} bytes`);
  if (!req.body) return jsonError(400, 'The request has no body');
  const bytes = await readCapped(req.body, max);
  if (!bytes) return jsonError(413, `Request body is larger than ${max} bytes`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return jsonError(400, 'The request body is not JSON');
  }
}

