import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { SQL } from 'drizzle-orm';
import type { BatchItem, Db } from '../../db/client';
import type { AppBindings } from '../../env';
import { pageParams, toPage } from '../../lib/pagination';
import { RANK, rankToRole, roleToRank, type Role } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { urlContext } from '../../schemas/common';
import { inviteOf } from '../../schemas/permission';
import { toTeam } from '../../schemas/team';
import { toUser } from '../../schemas/user';
import {
  applyInvite,
  checkInviteReads,
  grantQuery,
  inviteReads,
  removeGrant,
  teamGrantsPage,
  updateGrant,
  userGrantsPage,
  type Shareable,
} from '../../services/access/grants';

/**
 * A resource shared with users and teams (a space, a collection, a site), as the sharing handlers need it: how to
 * read it with the caller's rank in the same batch as the handler's other reads, and how to check that rank.
 * Everything else of sharing (who may invite, list, change and remove; what each answers) is the same for all.
 */
export interface SharedResource<Params, Row> {
  grants: Shareable;
  /** The shared resource's id among the path's parameters. */
  idOf(params: Params): string;
  /** Its organization, as an id or as SQL read in the invite's batch. */
  orgOf(params: Params): string | SQL;
  /** Reads the resource with the caller's rank there: a query to put in a batch. */
  read(db: Db, params: Params, callerId: string): BatchItem;
  /**
   * 404 when the caller does not see it, 403 when their rank is below `needed`; answers its organization. `listing`:
   * a read of who it is shared with (a deleted space still answers it).
   */
  check(rows: Row[], needed: number, params: Params, listing: boolean): string;
  /** How a DELETE answers: 204 either way, or GitBook's 205 when something was removed and 204 when it was not there. */
  removal: 'always204' | 'resetWhenRemoved';
}

type Kind = 'users' | 'teams';

/**
 * The route's validated input. The sharing routes (sharing-routes.ts) declare it, and the router validates it
 * before a handler runs; the handlers are shared by three routers, so they name its type here.
 */
function input<T>(c: Context<AppBindings>, target: 'param' | 'json' | 'query'): T {
  return (c.req as unknown as { valid(target: string): T }).valid(target);
}

/** The handlers of sharing-routes.ts' routes but `aggregate`, which each resource answers in its own way. */
export function sharingHandlers<Params, Row>(resource: SharedResource<Params, Row>) {
  const { grants } = resource;

  const invite = async (c: Context<AppBindings>) => {
    const callerId = requireUser(c);
    const params = input<Params>(c, 'param');
    const request = inviteOf(input(c, 'json'), roleToRank);
    const db = c.get('db');
    const [rows, ...found] = (await db.batch([resource.read(db, params, callerId), ...inviteReads(db, resource.orgOf(params), request)])) as [
      Row[],
      { id: string }[],
      { id: string }[],
    ];
    const orgId = resource.check(rows, RANK.admin, params, false);
    checkInviteReads(request, found);
    await applyInvite(db, c.env, grants, orgId, resource.idOf(params), request);
    return c.body(null, 204);
  };

  const list = (kind: Kind) => async (c: Context<AppBindings>) => {
    const callerId = requireUser(c);
    const params = input<Params>(c, 'param');
    const { cursor, limit } = pageParams(input<{ page?: string; limit?: number }>(c, 'query'));
    const db = c.get('db');
    const id = resource.idOf(params);
    const page = kind === 'users' ? userGrantsPage(db, grants.users, id, cursor, limit) : teamGrantsPage(db, grants.teams, id, callerId, cursor, limit);
    const [rows, found, [{ total }]] = (await db.batch([resource.read(db, params, callerId), ...page])) as [Row[], GrantRow[], { total: number }[]];
    resource.check(rows, RANK.read, params, true);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      kind === 'users'
        ? toPage(found, limit, total, (r) => [r.grantedAt, r.user!.id], (r) => ({ permission: rankToRole(r.grantRole)!, user: toUser(r.user!, urls) }))
        : toPage(found, limit, total, (r) => [r.grantedAt, r.team!.id], (r) => ({ permission: rankToRole(r.grantRole)!, team: toTeam(r as never, urls) })),
      200,
    );
  };

  const update = (kind: Kind) => async (c: Context<AppBindings>) => {
    const callerId = requireUser(c);
    const params = input<Params & Record<'userId' | 'teamId', string>>(c, 'param');
    const { role } = input<{ role: Role | null }>(c, 'json');
    const db = c.get('db');
    const id = resource.idOf(params);
    const subject = kind === 'users' ? params.userId : params.teamId;
    const [rows, grant] = (await db.batch([resource.read(db, params, callerId), grantQuery(db, grants[kind], id, subject)])) as [Row[], { role: number }[]];
    resource.check(rows, RANK.admin, params, false);
    await updateGrant(db, grants, kind, id, subject, grant, role === null ? null : roleToRank(role));
    return c.body(null, 204);
  };

  const remove = (kind: Kind) => async (c: Context<AppBindings>) => {
    const callerId = requireUser(c);
    const params = input<Params & Record<'userId' | 'teamId', string>>(c, 'param');
    const db = c.get('db');
    const [rows] = (await db.batch([resource.read(db, params, callerId)])) as [Row[]];
    resource.check(rows, RANK.admin, params, false);
    const removed = await removeGrant(db, grants[kind], resource.idOf(params), kind === 'users' ? params.userId : params.teamId);
    return c.body(null, removed && resource.removal === 'resetWhenRemoved' ? 205 : 204);
  };

  // In the order the routers registered them before they were shared (the served document's order).
  return {
    invite,
    listUsers: list('users'),
    updateUser: update('users'),
    removeUser: remove('users'),
    listTeams: list('teams'),
    updateTeam: update('teams'),
    removeTeam: remove('teams'),
  };
}

type SharingHandlers = ReturnType<typeof sharingHandlers>;

/**
 * `router` with the sharing routes' handlers: `routes` are sharing-routes.ts' definitions (by the same names), whose
 * validation runs before the handlers read their input.
 */
export function withSharingHandlers<R extends OpenAPIHono<AppBindings>>(router: R, routes: Record<keyof SharingHandlers, RouteConfig>, handlers: SharingHandlers): R {
  for (const name of Object.keys(handlers) as (keyof SharingHandlers)[]) router.openapi(routes[name], handlers[name] as never);
  return router;
}

/** A row of userGrantsPage or teamGrantsPage. */
interface GrantRow {
  grantedAt: string;
  grantRole: number;
  user?: Parameters<typeof toUser>[0];
  team?: { id: string };
}
