import { AUDIT_RULES, isAudited } from './operations';

/**
 * The audit payload as stored (issue 42, storage: an edit records three events, and their payloads were most of
 * their bytes). An event's `request.method` and `request.route` are those of the one rule that records its action
 * (AUDIT_RULES) for nearly every action, and its `ip` and `userAgent` are often null: the stored payload leaves out
 * what the action gives and the nulls, and a read puts them back (`restoredPayload`), so that the API answers the
 * payload the request made. An action several routes record keeps its method and route. Rows stored before keep
 * their whole payload: a stored `request` with a `method` is read as it is. Its `params` are those the route names
 * (`:spaceId`...), in the route's order, so they are stored as their values alone (`["<space>", "1"]`), put back
 * under the route's names when read.
 */

type Payload = Record<string, unknown>;
type RequestPart = { method?: string; route?: string; ip?: string | null; userAgent?: string | null } & Record<string, unknown>;

/** The method and route of the one rule recording each action, and its target's parameter; actions several rules record are left out. */
const ROUTE_OF_ACTION: Map<string, { method: string; route: string; target: string }> = (() => {
  const routes = new Map<string, Array<{ method: string; route: string; target: string }>>();
  for (const [key, rule] of Object.entries(AUDIT_RULES)) {
    if (!isAudited(rule)) continue;
    const [method, route] = key.split(' ');
    routes.set(rule.action, [...(routes.get(rule.action) ?? []), { method, route, target: rule.target }]);
  }
  return new Map([...routes].filter(([, list]) => list.length === 1).map(([action, [only]]) => [action, only]));
})();

const isRequestPart = (value: unknown): value is RequestPart => !!value && typeof value === 'object' && !Array.isArray(value);

/** The names of a route's path parameters, in order (`/v1/spaces/:spaceId/...` names `spaceId`). */
const paramNames = (route: string) => [...route.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

/** The values of `params` when they are the route's parameters, named in the route's order; else null. */
function paramValues(route: string, params: unknown): string[] | null {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return null;
  const names = paramNames(route);
  const entries = Object.entries(params);
  if (entries.length !== names.length || entries.some(([name, value], i) => name !== names[i] || typeof value !== 'string')) return null;
  return entries.map(([, value]) => value as string);
}

/** Whether the route's one parameter is the event's target: its value is the row's `target_id`, not stored again. */
const targetIsOnlyParam = (rule: { route: string; target: string }) => {
  const names = paramNames(rule.route);
  return names.length === 1 && names[0] === rule.target;
};

/**
 * What is stored of `payload` for an event of `action` whose row's target is `targetId`: besides the above, params that
 * are only the target (`/v1/spaces/:spaceId/git/import`) and a request with nothing left are left out; a read puts
 * them back from the row (`restoredPayload`).
 */
export function storedPayload(action: string, payload: Payload, targetId?: string): Payload {
  const request = payload.request;
  const rule = ROUTE_OF_ACTION.get(action);
  if (!rule || !isRequestPart(request) || request.method !== rule.method || request.route !== rule.route) return payload;
  const { method: _method, route: _route, ip, userAgent, ...rest } = request;
  const kept: RequestPart = { ...(ip !== null && ip !== undefined ? { ip } : {}), ...(userAgent !== null && userAgent !== undefined ? { userAgent } : {}), ...rest };
  const values = paramValues(rule.route, payload.params);
  const { request: _request, params: _params, ...others } = payload;
  const params = values && targetIsOnlyParam(rule) && values[0] === targetId ? {} : { params: values ?? payload.params };
  return { ...others, ...(Object.keys(kept).length > 0 ? { request: kept } : {}), ...params };
}

/** The payload an event of `action`, whose row's target is `targetId`, was recorded with, from what was stored. */
export function restoredPayload(action: string, stored: Payload, targetId?: string): Payload {
  const request = stored.request ?? {};
  const rule = ROUTE_OF_ACTION.get(action);
  if (!rule || !isRequestPart(request) || 'method' in request) return stored;
  const { ip = null, userAgent = null, ...rest } = request;
  const names = paramNames(rule.route);
  const values: unknown = stored.params === undefined && targetIsOnlyParam(rule) && targetId !== undefined ? [targetId] : stored.params;
  const params = Array.isArray(values) && values.length === names.length ? { params: Object.fromEntries(names.map((name, i) => [name, values[i]])) } : {};
  return { ...stored, request: { method: rule.method, route: rule.route, ip, userAgent, ...rest }, ...params };
}
