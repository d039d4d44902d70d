/** The JSON answers and bodies of a site's machine paths (src/site/mcp.ts, src/site/insights.ts). */

export const jsonError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code: status, message } }), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });

/** Reads at most `max` bytes of the body as JSON; a Response (413, 400) when it cannot. */
export async function boundedJson(req: Request, max: number): Promise<unknown | Response> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > max) return jsonError(413, `Request body is larger than ${max} bytes`);
  const reader = req.body?.getReader();
  if (!reader) return jsonError(400, 'The request has no body');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return jsonError(413, `Request body is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return jsonError(400, 'The request body is not JSON');
  }
}

