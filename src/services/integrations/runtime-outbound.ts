import { WorkerEntrypoint, exports } from 'cloudflare:workers';
import type { Env } from '../../env';
import { outboundFetch } from '../../lib/outbound';

export interface IntegrationOutboundProps {
  /** The integration whose script is calling (for error messages). */
  integrationId: string;
  /** The origin of the `apiEndpoint` the script was given: requests to it are served by this Worker. */
  apiOrigin: string;
}

/** Headers that describe the bytes as they travelled, not as they are handed back (already decoded, whole). */
const HOP_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding', 'connection'];

/**
 * The network of integration scripts (the `globalOutbound` of their isolates, runtime.ts): every `fetch` a
 * script makes arrives here.
 * - A request to the API's own origin (the script's `apiEndpoint`) is served by this Worker's own fetch
 *   handler, in the same deployment, without leaving it: authentication, scopes and roles apply as to any
 *   caller, so a script acts with the tokens it was given and nothing more (and its requests without one
 *   count against the integration's own visitor budget, services/limits).
 * - Any other URL goes through the one guarded outbound fetch (lib/outbound): no private, loopback or
 *   link-local addresses, redirects checked at every hop, time and size capped. A refused or failed
 *   request makes the script's `fetch` reject with the reason.
 */
export class IntegrationOutbound extends WorkerEntrypoint<Env, IntegrationOutboundProps> {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.origin === this.ctx.props.apiOrigin) {
      // The script's requests without a token count against the integration, never against an address the
      // script names (CF-Connecting-IP is Cloudflare's only at the edge; here the script could set any).
      const headers = new Headers(request.headers);
      headers.set('CF-Connecting-IP', `integration:${this.ctx.props.integrationId}`);
      return (exports as unknown as { default: Fetcher }).default.fetch(new Request(request, { headers }));
    }
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    // Read once: the guard may have to send it again after a 307/308 redirect.
    const body = hasBody ? await request.arrayBuffer() : undefined;
    const answer = await outboundFetch(this.env, url, { method: request.method, headers: request.headers, body }, { field: `fetch from integration ${this.ctx.props.integrationId}` });
    const headers = new Headers(answer.headers);
    for (const name of HOP_HEADERS) headers.delete(name);
    const nullBody = request.method === 'HEAD' || answer.status === 204 || answer.status === 304;
    return new Response(nullBody ? null : answer.bytes, { status: answer.status, headers });
  }
}

/** The outbound of a script's isolate: IntegrationOutbound with its props, from the Worker's own exports. */
export function integrationOutbound(props: IntegrationOutboundProps): Fetcher | null {
  const loopback = (exports as unknown as Record<string, unknown>).IntegrationOutbound as ((options: { props: IntegrationOutboundProps }) => Fetcher) | undefined;
  return loopback ? loopback({ props }) : null;
}
