/**
 * An event's payload as GitBook's `Event`, from the stored one (services/integrations/events): the event's id
 * as `eventId`, and every user of `updatedBy` with its `urls.location` under `apiBase` (`<origin>/v1`). The
 * same function serves the API's reads (the request's origin) and deliveries (the runtime's `apiEndpoint`).
 */
export function eventPayload(eventId: string, stored: Record<string, unknown>, apiBase: string): Record<string, unknown> {
  const payload: Record<string, unknown> = { ...stored, eventId };
  if (Array.isArray(stored.updatedBy)) {
    payload.updatedBy = stored.updatedBy.map((user) =>
      user && typeof user === 'object' && typeof (user as { id?: unknown }).id === 'string'
        ? { ...user, urls: { location: `${apiBase}/users/${(user as { id: string }).id}` } }
        : user,
    );
  }
  return payload;
}
