/**
 * Request headers of a `fetch` event (a request to an integration's public endpoint) never handed to a script,
 * stored or read back: the credentials a browser or client sends the origin the endpoint shares with the API and
 * the published sites (their cookies, API tokens, visitor JWTs, Cloudflare Access identities). Another
 * organization's integration has no use for them.
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'cookie',
  'cookie2',
  'authorization',
  'proxy-authorization',
  'x-visitor-token',
  'cf-access-jwt-assertion',
  'cf-access-client-id',
  'cf-access-client-secret',
]);

/** Headers (GitBook's FetchRequest `headers`, one object) without `CREDENTIAL_HEADERS`, whatever their case. */
export function withoutCredentials(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) out[name] = value;
  return out;
}

/** A fetch event's request without credentials: events stored before they were filtered out read without them too. */
function fetchRequest(request: unknown): unknown {
  if (!request || typeof request !== 'object') return request;
  const { headers } = request as { headers?: unknown };
  if (!headers || typeof headers !== 'object') return request;
  return { ...request, headers: withoutCredentials(Object.entries(headers as Record<string, string>)) };
}

/**
 * An event's payload as GitBook's `Event`, from the stored one (services/integrations/events): the event's id
 * as `eventId`, and every user of `updatedBy` with its `urls.location` under `apiBase` (`<origin>/v1`). The
 * same function serves the API's reads (the request's origin) and deliveries (the runtime's `apiEndpoint`).
 */
export function eventPayload(eventId: string, stored: Record<string, unknown>, apiBase: string): Record<string, unknown> {
  const payload: Record<string, unknown> = { ...stored, eventId };
  if (stored.type === 'fetch') payload.request = fetchRequest(stored.request);
  if (Array.isArray(stored.updatedBy)) {
    payload.updatedBy = stored.updatedBy.map((user) =>
      user && typeof user === 'object' && typeof (user as { id?: unknown }).id === 'string'
        ? { ...user, urls: { location: `${apiBase}/users/${(user as { id: string }).id}` } }
        : user,
    );
  }
  return payload;
}
