import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { integrationInstallations, integrations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';
import { nowIso } from '../../lib/time';
import {
  ContentKitRenderOutputSchema,
  MAX_RENDER_DEPTH,
  MAX_RENDER_INPUT_CHARS,
  type ContentKitRenderOutput,
  type RenderIntegrationUI,
} from '../../schemas/integration-render';
import { orgRoleSql } from '../access/access';
import { requireIntegration } from './access';
import { SITE_INSTALLATIONS, SPACE_INSTALLATIONS, type ContentInstallationRow, type ContentInstallations } from './content-installations';
import { apiBaseOf, apiEndpointOf, line, ownerQuery, readScriptSecrets, scriptEnvironment, scriptTarget, type ScriptSecrets, recordInvocation } from './delivery';
import type { OrganizationRow } from '../organizations/organizations';
import { eventPayload } from './event-payload';
import { insertEvent } from './events';
import {
  coveredSpacesSql,
  installationCaller,
  installationFrom,
  installationNotFound,
  integrationIdByNameSql,
  prefixedColumns,
  type InstallationCaller,
  type InstallationQueryRow,
  type LoadedInstallation,
} from './installations';
import { NO_LOADER_MESSAGE, runIntegrationFetch, type FetchAnswer, type TraceLine } from './runtime';
import { tokensWork } from './scopes';

/**
 * renderIntegrationUIWithGet / renderIntegrationUIWithPost: one render of one of an integration's ContentKit
 * components, as GitBook's app asks for it to show an integration's own settings screen (a manifest's
 * `configurations.<target>: {componentId}`). The render context names the installation: `configuration_account`
 * the integration's installation on that organization, `configuration_space` (`_site`) its installation on the
 * organization of that space (site), which must cover it.
 *
 * Who may render: whoever may configure that installation there (the admins of its organization, for a space
 * also that space's admins, and the integration's and that installation's own tokens). Whoever may only see
 * the installation (the publishing organization's admins) gets 403; everyone else reads it as not found (404).
 *
 * The script gets GitBook's `ui_render` event (`componentId`, `props`, `state`, `action`, `context`, the
 * installation and the space or site, `auth.userId` for a user) with the environment events get (fresh
 * integration and installation tokens, the installation, the space or site installation, secrets), so its
 * component saves what the user entered through `context.api` with the installation's token, as GitBook's
 * integrations do. Its ContentKit output is the answer. An `ExposableError` the script throws reaches the caller
 * with its status (4xx) and message; anything else it throws, a timeout or an answer that is no ContentKit
 * output is a 502 that never says what the script threw (its publisher reads that in the event's trace: each
 * render is recorded as a `ui_render` event, without its state and the values of its action, after the answer).
 *
 * Round trips: one read, one token batch, then the event's write after the answer.
 */

type RenderContext = RenderIntegrationUI['context'];

/** 400 unless props, state and action are each at most `MAX_RENDER_DEPTH` deep and together `MAX_RENDER_INPUT_CHARS` as JSON. */
export function assertRenderInput(input: RenderIntegrationUI): void {
  const parts = { props: input.props, state: input.state, action: input.action };
  for (const [field, value] of Object.entries(parts)) {
    if (value !== undefined && jsonDepth(value, MAX_RENDER_DEPTH) > MAX_RENDER_DEPTH) throw badRequest(`${field}: at most ${MAX_RENDER_DEPTH} levels of nesting`);
  }
  if (JSON.stringify(parts).length > MAX_RENDER_INPUT_CHARS) throw badRequest(`props, state and action: at most ${MAX_RENDER_INPUT_CHARS} characters as JSON together`);
}

/** The configuration context's target: the organization (as SQL), and the space or site it is about. */
function contextTarget(context: RenderContext): { orgId: SQL; content?: { kind: ContentInstallations<unknown>; id: string } } {
  switch (context.type) {
    case 'configuration_account':
      return { orgId: sql`${context.organizationId}` };
    case 'configuration_space':
      return { orgId: sql`(select s.org_id from spaces s where s.id = ${context.spaceId})`, content: { kind: SPACE_INSTALLATIONS as ContentInstallations<unknown>, id: context.spaceId } };
    case 'configuration_site':
      return { orgId: sql`(select s.org_id from sites s where s.id = ${context.siteId})`, content: { kind: SITE_INSTALLATIONS as ContentInstallations<unknown>, id: context.siteId } };
    default:
      throw badRequest(
        `context.type: ${context.type} is not rendered here: only the configuration contexts (configuration_account, configuration_space, configuration_site) of an installation are`,
      );
  }
}

/** The integration `name` with its installation on the organization `orgId` (as installationQuery answers them), for the caller's batch. */
function installationOnOrgQuery(db: Db, name: string, orgId: SQL, actor: InstallationCaller) {
  return db
    .select({
      integration: prefixedColumns(integrations, 'i'),
      ownerRank: orgRoleSql(integrations.ownerOrgId, actor.userId).as('owner_rank'),
      installation: integrationInstallations,
      orgRank: orgRoleSql(integrationInstallations.orgId, actor.userId).as('org_rank'),
      spaces: coveredSpacesSql.as('covered_spaces'),
    })
    .from(integrations)
    .leftJoin(integrationInstallations, and(eq(integrationInstallations.integrationId, integrations.id), sql`${integrationInstallations.orgId} = ${orgId}`))
    .where(and(eq(integrations.name, name), isNull(integrations.deletedAt)));
}

interface RenderTarget {
  loaded: LoadedInstallation;
  /** The integration's owner organization (the environment's `integration.owner`). */
  owner: OrganizationRow;
  /** The space or site the context names, with the installation's own row there. */
  content?: { field: 'spaceId' | 'siteId'; id: string; own: ContentInstallationRow | null };
}

/** The installation the context names, in one round trip: 404 unless the caller may see it, 403 unless it may configure it. */
async function loadRenderTarget(c: Context<AppBindings>, name: string, context: RenderContext): Promise<RenderTarget> {
  const actor = installationCaller(c);
  const db = c.get('db');
  const { orgId, content } = contextTarget(context);
  const installationId = sql`(select ii.id from integration_installations ii where ii.integration_id = ${integrationIdByNameSql(name)} and ii.org_id = ${orgId})`;
  const [rows, ownerRows, targetRows] = (await runBatch(db, [
    installationOnOrgQuery(db, name, orgId, actor),
    ownerQuery(db, sql`(select owner_org_id from integrations where name = ${name} and deleted_at is null)`),
    ...(content ? [content.kind.targetQuery(db, installationId, content.id, actor)] : []),
  ] as BatchItem[])) as [InstallationQueryRow[], OrganizationRow[], unknown];
  if (rows[0] && !rows[0].installation) {
    requireIntegration(actor, rows[0]);
    throw installationNotFound();
  }
  const loaded = installationFrom(actor, rows);
  const owner = ownerRows[0];
  if (!owner) throw installationNotFound();
  const refuse = () => new ApiError(403, "Only those who may configure this installation (its organization's admins) may render its components");
  if (!content) {
    if (!loaded.rights.view) throw installationNotFound();
    if (!loaded.rights.change) throw refuse();
    return { loaded, owner };
  }
  const target = content.kind.target(actor, loaded, targetRows);
  if (!target.change) throw refuse();
  if (!target.covered) throw new ApiError(404, `This integration is not installed on this ${content.kind.kind}`);
  return { loaded, owner, content: { field: content.kind.idField, id: content.id, own: target.own } };
}

/** What a render answers: the script's ContentKit output, and how long it may be kept. */
export interface RenderResult {
  output: ContentKitRenderOutput;
  cacheControl: string;
}

/** The script's `Cache-Control` (the runtime's `max-age=<n>` of `setCache`), kept private to the caller; `no-store` otherwise. */
function cacheControlOf(answer: FetchAnswer): string {
  const value = answer.headers.find(([name]) => name.toLowerCase() === 'cache-control')?.[1] ?? '';
  const maxAge = /^\s*max-age=(\d{1,7})\s*$/.exec(value)?.[1];
  return maxAge ? `private, max-age=${maxAge}` : 'no-store';
}

/** The `{error}` message of the runtime's answer to a failed render (what an ExposableError says), if it has one. */
function exposedMessage(body: Uint8Array): string | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { error?: unknown };
    return typeof parsed?.error === 'string' && parsed.error.trim() ? parsed.error.slice(0, 1000) : null;
  } catch {
    return null;
  }
}

/** Statuses of the script that would mean something else to the caller (its own token, its rate limit). */
const NOT_PASSED_ON = new Set([401, 407, 429]);

/** The script's answer as the render's result, or the error the caller gets; `fail` records the failure first. */
function renderResult(answer: FetchAnswer, componentId: string, fail: (status: number, message: string, detail: string) => never): RenderResult {
  const { status } = answer;
  if (status >= 400) {
    const exposed = exposedMessage(answer.body);
    if (status < 500 && exposed) return fail(NOT_PASSED_ON.has(status) ? 400 : status, exposed, `answered ${status}: ${exposed}`);
    return fail(502, `The integration's script failed to render the component ${componentId} (it answered ${status})`, `answered ${status}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(answer.body));
  } catch {
    parsed = undefined;
  }
  const output = ContentKitRenderOutputSchema.safeParse(parsed);
  if (status >= 300 || !output.success) {
    return fail(502, `The integration's script answered the render of ${componentId} with something that is not ContentKit output`, `answered ${status} without ContentKit output`);
  }
  return { output: output.data, cacheControl: cacheControlOf(answer) };
}

/** One render (see the top of this file). */
export async function renderIntegrationUI(c: Context<AppBindings>, name: string, input: RenderIntegrationUI): Promise<RenderResult> {
  assertRenderInput(input);
  const { loaded, owner, content } = await loadRenderTarget(c, name, input.context);
  const { integration, installation } = loaded;
  if (!integration.scriptKey) throw new ApiError(404, `The integration ${integration.name} has no script to render its components`);
  if (!tokensWork(installation.status)) throw new ApiError(409, `This installation is ${installation.status}: its integration cannot act on it`);
  if (!c.env.LOADER) throw new ApiError(503, NO_LOADER_MESSAGE);

  const actor = installationCaller(c);
  const db = c.get('db');
  const apiEndpoint = apiEndpointOf(c.env);
  const where = content ? { [content.field]: content.id } : {};
  // What is kept of it, for the integration's admins (GitBook's UIRenderEvent): the component's props, not the
  // state the user entered nor the values the action carries.
  const stored = {
    type: 'ui_render',
    installationId: installation.id,
    ...where,
    componentId: input.componentId,
    props: input.props,
    context: input.context,
    ...(input.action ? { action: { action: input.action.action } } : {}),
  };
  const record = insertEvent(db, { integrationId: integration.id, installationId: installation.id, orgId: installation.orgId, payload: stored }, nowIso());
  const event = {
    ...eventPayload(record.id, stored, apiBaseOf(apiEndpoint)),
    ...(input.state ? { state: input.state } : {}),
    ...(input.action ? { action: input.action } : {}),
    ...(actor.kind === 'user' ? { auth: { userId: actor.userId } } : {}),
  };
  const label = `render of ${input.componentId}`;
  const fail = (status: number, message: string, detail: string, lines: TraceLine[] = []): never => {
    recordInvocation(c.env, c.executionCtx, record, { type: 'ui_render', ok: false, lines: [...lines, line('error', `${label}: the script ${detail}`)] });
    throw new ApiError(status as ContentfulStatusCode, message);
  };

  let keys: ScriptSecrets;
  try {
    keys = await readScriptSecrets(c.env, integration, installation);
  } catch (error) {
    // A deployment without INTEGRATIONS_KEY: its own 503, which names the secret.
    if (error instanceof ApiError) throw error;
    return fail(502, "The integration's script could not be run: its secrets could not be read", 'was not run: its secrets could not be read');
  }
  const own = content?.own ?? undefined;
  const environment = await scriptEnvironment(c.env, db, {
    apiEndpoint,
    appUrl: c.env.APP_URL,
    integration,
    owner,
    installation,
    installationSpaces: loaded.spaces,
    payload: event,
    ...(content?.field === 'spaceId' ? { spaceInstallation: own } : content?.field === 'siteId' ? { siteInstallation: own } : {}),
    ...keys,
  });
  const result = await runIntegrationFetch(c.env, scriptTarget(integration, integration.scriptKey), event, environment, new URL(apiEndpoint).origin, null);
  if (!result.ok) return fail(502, `The integration's script ${result.failure}`, result.detail, result.logs);
  const rendered = renderResult(result.answer, input.componentId, (status, message, detail) => fail(status, message, detail, result.logs));
  recordInvocation(c.env, c.executionCtx, record, { type: 'ui_render', ok: true, lines: [...result.logs, line('info', `${label}: the script ${result.detail}`)] });
  return rendered;
}
