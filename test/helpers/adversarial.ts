/**
 * The adversarial suite (issue 27): every operation of the served `/openapi.json` (read at run time, so
 * operations added later are attacked too) is called on a victim organization's real ids by six attackers,
 * and each answer must be the refusal the access model says, with a body that holds nothing of the victim.
 *
 * The victim organization holds one of everything (spaces, pages, files, change requests, comments, reviews,
 * teams, collections, invites, sites with sections, groups and share links, an installed private integration
 * with an event, an OpenAPI spec with a version, conversations with a cluster and an issue, a SAML provider,
 * a translation, agent instructions); every title, name, email and text of it carries a unique marker
 * (`Victim.markers`), and every id of it is known. An answer to an attacker leaks when its body holds a marker
 * or a victim id (ids the attacker put in the path included: errors never echo them).
 *
 * The attackers:
 *   outsider      a user who belongs to no organization (created with the operator calls)
 *   otherAdmin    the admin of another organization
 *   guest         a member of the victim organization without an organization role, granted one OTHER space
 *   reader        a member of the victim organization with the read role (only operations that need more)
 *   installation  an installation token of an integration installed in the attacker's organization, with
 *                 every scope and all the spaces and sites there
 *   integration   the integration token of that integration (published by the attacker's organization, not
 *                 installed in the victim organization)
 *   siteToken     a site token (resolvePublishedContentByUrl's apiToken) of a published site of the attacker's
 *                 organization: 403 wherever the served document does not list the `siteToken` scheme, 404 on
 *                 the victim's ids where it does (public operations answer what they answer anyone)
 *
 * What each must get (`expectationFor`), by class of operation:
 *
 *   class                  | outsider, otherAdmin | installation          | integration           | guest         | reader
 *   -----------------------|----------------------|-----------------------|-----------------------|---------------|-------------
 *   operator only          | 403                  | 403                   | 403                   | 403           | 403
 *   on the victim's ids    | 404 (a delete: 404   | 404 (delete: or 204); | 404 (delete: or 204); | 403 or 404;   | 403 or 404;
 *                          | or 204, as for what  | 403 where the served  | 403 where the served  | a read may    | a read may
 *                          | does not exist)      | document does not     | document does not     | answer an     | answer an
 *                          |                      | admit installation    | admit integration     | empty list;   | empty list
 *                          |                      | tokens                | tokens                | a delete 204  | (only where
 *                          |                      |                       |                       |               | read is not
 *                          |                      |                       |                       |               | enough: READER_MAY
 *                          |                      |                       |                       |               | etc. are not run)
 *   the caller's own       | any 2xx or 401/403/404; nothing of the victim in the body (SELF; a member may see itself)
 *   public by design       | any 2xx or 401/403/404; only the published or public part of the victim (PUBLIC, `mayShow`)
 *   a guest's member reads | 2xx for the guest: the organization, colleagues, the organization's private integrations (GUEST_MAY)
 *
 * A 400 would be allowed only for operations listed in BODY_FIRST (validation before access, leaking nothing);
 * none is: every write gets a valid body (`validBody`: the schema's minimal value, or BODY_OVERRIDES where the
 * handler checks more than the schema says). Any answer to outsider, otherAdmin, installation and integration
 * other than 404 (a refusal, or a delete's 204) must be what the same request gets with every victim id replaced
 * by one that does not exist, or it tells that the resource exists; the same for the guest with the ids a guest
 * sees left real (the organization, its members, the guest's space, the organization's integration). Members
 * (the reader) may get 403 for what they see but cannot change. Invite links are credentials (CREDENTIALS): the
 * attackers get a wrong one. Deletes run last in each shard, and the last case checks that the victim's data is
 * as seeded (nothing deleted, renamed, left or joined).
 *
 * Known gaps (KNOWN_GAPS) are cases the suite found leaking in code owned by others: they are skipped with their
 * reason, each to be fixed and removed from the list.
 *
 * The suite is one file's worth of operations per shard (`test/platform/adversarial-<n>.test.ts`).
 */
import { compressToEncodedURIComponent } from 'lz-string';
import { beforeAll, describe, expect, it } from 'vitest';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from './content';
import { BASE, addMember, api, createUser, expectStatus, type TestUser } from './harness';
import { conversation, seedCluster, seedIssue } from './conversations';
import { seedEvent, seedInstallation, seedIntegration, seedToken } from './integrations';
import { seedSpecVersion } from './openapi';
import { minimalValue, resolveSchema, type Schema } from './openapi-schema';
import { servedDocument } from './served-document';
import { INTEGRATION_SCOPES } from '../../src/lib/integration-scopes';
import { fetchWorker } from './worker';

export const ADVERSARIAL_SHARDS = 4;

export const ATTACKERS = ['outsider', 'otherAdmin', 'guest', 'reader', 'installation', 'integration', 'siteToken'] as const;
export type Attacker = (typeof ATTACKERS)[number];
/** The attackers outside the victim organization: every answer to them must be the same as for ids that do not exist. */
const STRANGERS = new Set<Attacker>(['outsider', 'otherAdmin', 'installation', 'integration', 'siteToken']);

/** Operations of the deployment's operator: a user, installation or integration token gets 403. */
const OPERATOR_ONLY = new Set(['createUser', 'createUserToken']);

/**
 * Operations on the caller's own account or organizations: they succeed for anyone (or refuse what is not the
 * caller's), and must show nothing of the victim.
 */
const SELF: Record<string, string> = {
  getApiInformation: "the API's version and build, the same for every caller",
  getAuthenticatedUser: "the caller's own user",
  listAuthenticatedUserTokens: "the caller's own tokens (the victim's token id is not among them)",
  revokeAuthenticatedUserToken: "revokes one of the caller's own tokens: the victim's token id is absent from them (404, or 204 as deletes of absent things answer; the victim's token must still work)",
  listOrganizationsForAuthenticatedUser: "the caller's own organizations",
  createOrganization: 'creates an organization of the caller',
  getOrganizationsForEmailDomain: "only the domain of the caller's own verified email (403 for the victim's domain)",
  getEmbedByUrl: 'what the URL the caller names shows (fetched through the outbound guard): nothing of any organization',
};

/**
 * Public by design: answered to anyone, showing only what the victim published. `mayShow` are the victim's
 * markers and ids such an answer may hold; everything else (unpublished spaces, drafts, members, share links,
 * private integrations) never.
 */
// A published space shows its current revision's id (`revisionId`).
const PUBLISHED = ['sitetitle', 'siteId', 'siteSectionId', 'sectiontitle', 'siteSpaceId', 'siteSectionGroupId', 'grouptitle', 'spaceId', 'spacetitle', 'organizationId', 'orgtitle', 'revisionId'];
const PUBLIC: Record<string, { reason: string; mayShow: string[] }> = {
  listIntegrations: { reason: 'the marketplace lists public integrations (the victim publishes a private one: never listed)', mayShow: [] },
  getIntegrationByName: { reason: 'public integrations are readable by anyone (the victim publishes a private one: 404)', mayShow: [] },
  listSSOProviderLoginsInOrganization: { reason: "an organization's login page lists its SSO logins before anyone signs in", mayShow: ['saml', 'samlProviderId', 'organizationId'] },
  getPublishedContentSite: { reason: 'the published public site is what visitors read', mayShow: [...PUBLISHED, 'pageId', 'pagetitle', 'childpagetitle', 'pagetext', 'childtext', 'fileId', 'file'] },
  listSiteSections: { reason: "a published public site's sections are what visitors read", mayShow: PUBLISHED },
  listSiteSpaces: { reason: "a published public site's site spaces are what visitors read", mayShow: PUBLISHED },
  resolvePublishedContentByUrl: { reason: "resolving a published URL is what a site's renderer does for anyone", mayShow: PUBLISHED },
  trackEventsInSiteById: { reason: "a published public site's readers record what they do there (queued, 204: nothing is read back)", mayShow: [] },
};

/**
 * Path parameters that are credentials the victim hands out: whoever holds an invite link joins (by design), so
 * the attackers get the organization's real id with an invite id that is not one (404, and no membership).
 */
const CREDENTIALS: Record<string, string[]> = { joinOrganizationWithInvite: ['inviteId'] };

/** What a guest of the victim organization legitimately reads of it (a member sees the organization and colleagues). */
const GUEST_MAY: Record<string, { reason: string; mayShow: string[] }> = {
  getOrganizationById: { reason: 'a member (guests included) sees the organization', mayShow: ['organizationId', 'orgtitle', 'emaildomain', 'hostname'] },
  getCustomHostname: { reason: "a member sees the organization's custom hostname and its state, as the organization shows it", mayShow: ['organizationId', 'hostname'] },
  listIntegrations: { reason: "private integrations are listed to members of the organization that publishes them (a guest is a member)", mayShow: ['integrationname', 'integrationName'] },
  listOrganizationIntegrations: { reason: "the organization's integrations (public ones and those it publishes) are listed to its members, as listIntegrations lists them", mayShow: ['integrationname', 'integrationName'] },
  updateOrganizationMemberLastSeenAt: { reason: "the caller's own membership's last-seen time: nothing of anyone else changes or shows", mayShow: [] },
  getIntegrationByName: { reason: "private integrations are visible to members of the organization that publishes them (a guest is a member)", mayShow: ['integrationname', 'integrationName'] },
  getUserById: { reason: 'a member sees the members of an organization they share', mayShow: ['userId', 'editorname', 'emaildomain'] },
  joinOrganization: { reason: 'already a member: 204 and nothing changes', mayShow: [] },
  listSpacesInOrganizationById: { reason: 'a guest lists the spaces it was granted: its own, never the others', mayShow: [] },
  listSSOProviderLoginsInOrganization: PUBLIC.listSSOProviderLoginsInOrganization,
};

/** What a reader legitimately does: reads (the suite attacks the reader only where more than read is needed). */
const READER_MAY: Record<string, string> = {
  listOrganizationIntegrations: "a member lists the organization's integrations, as listIntegrations lists them",
  updateOrganizationMemberLastSeenAt: "a member records its own last-seen time",
  getComputedDocument: "a member reads what a computed source generates from the organization's specs, as it reads the specs (a POST that changes nothing)",
  getComputedRevision: "a member reads what a computed source generates from the organization's specs, as it reads the specs (a POST that changes nothing)",
  getOrganizationById: 'a member reads the organization',
  getUserById: 'a member reads colleagues',
  joinOrganization: 'already a member: 204',
  getCustomHostname: "a member sees the organization's custom hostname and its state",
  listMembersInOrganizationById: 'members see the member list',
  getMemberInOrganizationById: 'members see the member list',
  listTeamsInOrganizationById: 'members see teams',
  getTeamInOrganizationById: 'members see teams',
  listTeamMembersInOrganizationById: 'members see teams',
  getCollectionById: 'a reader reads the collection',
  listSpacesInCollectionById: 'a reader reads the collection',
  listCollectionsInOrganizationById: 'a reader reads collections',
  listSpacesInOrganizationById: 'a reader reads spaces',
  getSpaceById: 'a reader reads the space',
  listUserPermissionsInSpace: 'a reader sees who can see the space',
  listTeamPermissionsInSpace: 'a reader sees who can see the space',
  listPermissionsAggregateInSpace: 'a reader sees who can see the space',
  listUserPermissionsInCollection: 'a reader sees who can see the collection, as for a space',
  listTeamPermissionsInCollection: 'a reader sees who can see the collection, as for a space',
  listPermissionsAggregateInCollection: 'a reader sees who can see the collection, as for a space',
  listChangeRequestsForOrganization: 'a reader reads change requests',
  listCommentersInSpace: 'a reader reads comments',
  listCommentersInChangeRequest: 'a reader reads comments',
  getReviewsByChangeRequestId: 'a reader reads reviews',
  getChangeRequestReviewById: 'a reader reads reviews',
  getRequestedReviewersByChangeRequestId: 'a reader reads reviews',
  searchOrganizationContent: 'a reader searches what they read',
  searchSiteContent: 'a reader searches what they read of the site',
  getOrganizationAgentInstructions: "members read the organization's agent instructions",
  listImportRuns: 'a reader sees the import runs of the spaces they read',
  getImportRun: 'a reader sees the import runs of the spaces they read',
  ...PUBLIC_READS(),
};
function PUBLIC_READS(): Record<string, string> {
  return Object.fromEntries(Object.entries(PUBLIC).map(([id, { reason }]) => [id, `public: ${reason}`]));
}
/** Reads of a space's content (what read is for): every GET under /spaces/{spaceId} not named otherwise. */
const readerReadsSpace = (op: Operation) => op.method === 'get' && op.path.startsWith('/v1/spaces/{spaceId}');
/** Site reads that need only read: the site and its structure (its share links and publishing auth need admin). */
/** The organization's API specs, conversation insights and translations: members read them. */
const readerReadsOrgData = (op: Operation) => op.method === 'get' && /^\/v1\/orgs\/\{organizationId\}\/(openapi|conversations|translations)/.test(op.path);
const readerReadsSite = (op: Operation) =>
  op.method === 'get' && op.path.startsWith('/v1/orgs/{organizationId}/sites') && !/share-links|publishing/.test(op.path);

export interface KnownGap {
  operationId: string;
  attacker: Attacker;
  reason: string;
}
/** Leaks the suite found in code owned by others; each case is skipped with its reason until fixed. */
export const KNOWN_GAPS: KnownGap[] = [];

// ---------------------------------------------------------------------------------------------
// The served document.

let components: Record<string, Schema> = {};

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  body?: Schema;
  /** Required query parameters and their schemas. */
  query: Array<{ name: string; schema: Schema }>;
  /** Which kinds of tokens the document admits (`security`), and the scope an installation token needs. */
  installationToken: boolean;
  installationScope?: string;
  integrationToken: boolean;
  /** The document lists the `siteToken` scheme (defineRoute `siteToken: true`). */
  siteToken: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export async function documentedOperations(): Promise<Operation[]> {
  const doc = await servedDocument();
  components = doc.components.schemas;
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => {
      const security: Array<Record<string, string[]>> = item[method].security ?? [];
      const installation = security.find((s) => s.installationToken);
      return {
        method,
        path: `/v1${path}`,
        operationId: item[method].operationId,
        body: item[method].requestBody?.content?.['application/json']?.schema,
        query: (item[method].parameters ?? []).filter((p: any) => p.in === 'query' && p.required).map((p: any) => ({ name: p.name, schema: p.schema })),
        installationToken: Boolean(installation),
        installationScope: installation?.installationToken[0],
        integrationToken: security.some((s) => s.integrationToken),
        siteToken: security.some((s) => s.siteToken),
      };
    }),
  );
}

const resolve = (schema: Schema | undefined) => resolveSchema(components, schema);

/**
 * A minimal valid value of a JSON schema (as the hostile sweep builds them). A required property named like a
 * path parameter takes the victim's real id, so a write is refused for access and not for naming something that
 * does not exist.
 */
function minimal(input: Schema | undefined, ids: Record<string, string>): unknown {
  return minimalValue(components, input, (key, property) => {
    const id = ids[key] ?? ids[`${key}Id`];
    return id !== undefined && property?.type === 'string' && !property.enum ? id : undefined;
  });
}

// ---------------------------------------------------------------------------------------------
// The victim and the attackers.

export interface Victim {
  /** Every marker of the victim's texts, by name: no answer to an attacker may hold one (but `mayShow`). */
  markers: Record<string, string>;
  /** The victim's ids by path parameter name, and a few more (by name: they count as markers too). */
  ids: Record<string, string>;
  /** The same parameters, naming nothing that exists. */
  fakeIds: Record<string, string>;
  /** Comment ids of the change request (path parameters of the same names as the space's). */
  crIds: Record<string, string>;
  owner: TestUser;
  /** The victim's members who attack it: the guest and the reader. */
  tokens: { guest: string; reader: string };
  /** The organization's spaces once seeded. */
  spaceIds: string[];
}

let counter = 0;
const rand = () => `${Date.now().toString(36).slice(-4)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
/** A fake id of the shape of our ids (20 base62 characters). */
const fakeId = () => `Zz${rand()}${'0'.repeat(20)}`.slice(0, 20);

/** Seeds the victim organization with one of everything, each text carrying the marker. */
export async function seedVictim(): Promise<Victim> {
  const marker = `qv${rand()}`;
  const m = (name: string) => `${marker}${name}`;
  const domain = `${marker}.test`;
  const owner = await createUser({ email: `owner@${domain}`, displayName: m('ownername') });
  const reader = await createUser({ email: `reader@${domain}`, displayName: m('readername') });
  const editor = await createUser({ email: `editor@${domain}`, displayName: m('editorname') });
  const guest = await createUser({ email: `guest@${domain}`, displayName: m('guestname') });
  const O = owner.token;
  const org = expectStatus(await api('POST', '/v1/orgs', { token: O, body: { title: m('orgtitle'), emailDomains: [domain] } }), 201).body;
  await addMember(org.id, reader.id, 'read');
  await addMember(org.id, editor.id, 'edit');
  await addMember(org.id, guest.id, 'guest');
  // A custom hostname of its own (pending: nothing proves it here), which only its admins may see and remove.
  const hostname = `docs.${marker}.example`;
  expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: O, body: { customHostname: hostname } }), 200);

  const space = await createSpace(org.id, O, m('spacetitle'));
  const first = await openChangeRequest(space.id, O, m('firstcr'));
  const applied = await applyChanges(space.id, first.number, O, [
    { operation: 'insert_files', files: [{ name: `${m('file')}.png`, contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', ref: 'p', title: m('pagetitle'), document: { markdown: `${m('pagetext')}\n` } },
    { operation: 'insert_page', into: 'p', title: m('childpagetitle'), document: { markdown: `${m('childtext')}\n` } },
  ]);
  expectStatus(await merge(space.id, first.number, O), 200);
  const firstPage = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: O }), 200).body.pages[0];
  const pageId: string = firstPage.id;
  // The space's head revision, read by id by the revision operations.
  const revisionId = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token: O }), 200).body.id;
  // The guest's space: the guest's only grant, so the main space stays out of their sight.
  const guestSpace = await createSpace(org.id, O, m('guestspacetitle'));
  expectStatus(await api('POST', `/v1/spaces/${guestSpace.id}/permissions`, { token: O, body: { role: 'read', users: [guest.id] } }), 204);

  // An open change request of the editor, with a draft page, comments, a review and a requested reviewer.
  const open = await openChangeRequest(space.id, editor.token, m('opencr'));
  await applyChanges(space.id, open.number, editor.token, [{ operation: 'insert_page', title: m('drafttitle'), document: { markdown: `${m('drafttext')}\n` } }]);
  const crBase = `/v1/spaces/${space.id}/change-requests/${open.number}`;
  const spaceComment = await commentWithReply(`/v1/spaces/${space.id}`, O, { page: pageId }, m('spacecomment'), m('spacereply'));
  const crComment = await commentWithReply(crBase, O, { page: pageId }, m('crcomment'), m('crreply'));
  const review = expectStatus(await api('POST', `${crBase}/reviews`, { token: O, body: { status: 'approved', comment: { markdown: m('review') } } }), 201).body;
  expectStatus(await api('POST', `${crBase}/requested-reviewers`, { token: editor.token, body: { users: [owner.id] } }), 200);

  const team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token: O, body: { title: m('teamtitle'), members: [editor.id] } }), 201).body;
  const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token: O, body: { title: m('collectiontitle') } }), 201).body;
  const invite = expectStatus(await api('POST', `/v1/orgs/${org.id}/link-invites`, { token: O, body: { role: 'read' } }), 201).body;
  const tokens = expectStatus(await api('GET', '/v1/user/tokens', { token: O }), 200).body;
  const sites = `/v1/orgs/${org.id}/sites`;
  const site = expectStatus(await api('POST', sites, { token: O, body: { title: m('sitetitle'), spaces: [space.id] } }), 201).body;
  const section = expectStatus(await api('POST', `${sites}/${site.id}/sections`, { token: O, body: { spaceId: space.id, title: m('sectiontitle') } }), 201).body;
  const group = expectStatus(await api('POST', `${sites}/${site.id}/section-groups`, { token: O, body: { title: m('grouptitle'), sections: [section.id] } }), 201).body;
  const shareLink = expectStatus(await api('POST', `${sites}/${site.id}/share-links`, { token: O, body: { name: m('sharelink') } }), 201).body;
  expectStatus(await api('POST', `${sites}/${site.id}/publish`, { token: O }), 200);
  expectStatus(await api('PUT', `/v1/orgs/${org.id}/agent-instructions`, { token: O, body: { instructions: m('agentinstructions') } }), 200);

  // A private integration of the victim, installed in the victim organization on its space and site.
  const integration = await seedIntegration(org.id, { name: m('-integration'), visibility: 'private', scopes: ['space:content:read', 'site:metadata:read'] });
  const installation = await seedInstallation(integration, org.id, { spaces: [space.id], sites: [site.id] });
  const eventId = await seedEvent(integration, installation.id, org.id);
  const spec = expectStatus(await api('POST', `/v1/orgs/${org.id}/openapi`, { token: O, body: { slug: m('-spec'), source: { text: '{"openapi":"3.1.0"}' } } }), 201).body;
  const versionId = await seedSpecVersion(spec.id, { title: m('spectitle'), tags: [], schemas: [] });
  expectStatus(await api('POST', `/v1/orgs/${org.id}/conversations`, { token: O, body: conversation(m('conversation'), m('conversationtext')) }), 204);
  const conversationId = expectStatus(await api('GET', `/v1/orgs/${org.id}/conversations`, { token: O }), 200).body.items[0].id;
  const clusterId = await seedCluster(org.id, { label: m('cluster') });
  const issueId = await seedIssue(org.id, conversationId, clusterId, { title: m('issue') });
  const saml = expectStatus(await api('POST', `/v1/orgs/${org.id}/saml`, { token: O, body: { label: m('saml'), defaultTeam: team.id } }), 201).body;
  const translation = expectStatus(await api('POST', `/v1/orgs/${org.id}/translations`, { token: O, body: { language: 'fr', source: { space: space.id, language: 'en' } } }), 201).body;
  // An import run into the main space (pending: the queue is not consumed in tests).
  const importRun = expectStatus(
    await api('POST', `/v1/org/${org.id}/imports`, { token: O, body: { source: { type: 'website', url: `https://${marker}.example/docs/` }, target: { space: space.id } } }),
    201,
  ).body;

  // An event of the victim's audit log (the seeding above recorded many).
  const auditEventId = expectStatus(await api('GET', `/v1/orgs/${org.id}/audit-events?limit=1`, { token: O }), 200).body.items[0].id;
  const ids: Record<string, string> = {
    organizationId: org.id,
    // A member other than the attacking guest and reader (who may act on themselves: leave the organization).
    userId: editor.id,
    readerId: reader.id,
    ownerId: owner.id,
    guestId: guest.id,
    spaceId: space.id,
    guestSpaceId: guestSpace.id,
    changeRequestId: String(open.number),
    changeRequestObjectId: open.id,
    pageId,
    // The page's body by id (getDocumentById).
    documentId: firstPage.documentId,
    revisionId,
    fileId: applied.insertedFiles[0].id,
    commentId: spaceComment.id,
    commentReplyId: spaceComment.reply,
    reviewId: review.id,
    teamId: team.id,
    collectionId: collection.id,
    inviteId: invite.id,
    tokenId: tokens.items[0].id,
    siteId: site.id,
    siteSectionId: section.id,
    siteSectionGroupId: group.id,
    siteSpaceId: section.siteSpaces[0].id,
    shareLinkId: shareLink.id,
    integrationName: integration.name,
    installationId: installation.id,
    eventId,
    specSlug: spec.slug,
    specId: spec.id,
    versionId,
    conversationId,
    clusterId,
    issueId,
    samlProviderId: saml.id,
    translationId: translation.id,
    importRunId: importRun.id,
    auditEventId,
    emailDomain: domain,
    hostname,
  };
  // The spaces as seeded (the translation made one for its target language).
  const spaceIds = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces`, { token: O }), 200).body.items.map((s: { id: string }) => s.id).sort();
  const fakeIds = Object.fromEntries(Object.keys(ids).map((name) => [name, fakeId()]));
  Object.assign(fakeIds, { changeRequestId: '987654', integrationName: `no-such-${rand()}`, specSlug: `no-such-${rand()}`, emailDomain: `no-such-${rand()}.test`, hostname: `docs.no-such-${rand()}.example` });
  const markers = Object.fromEntries(
    [
      'ownername', 'readername', 'editorname', 'guestname', 'orgtitle', 'spacetitle', 'firstcr', 'file', 'pagetitle', 'pagetext', 'childpagetitle',
      'childtext', 'guestspacetitle', 'opencr', 'drafttitle', 'drafttext', 'spacecomment', 'spacereply', 'crcomment', 'crreply', 'review',
      'teamtitle', 'collectiontitle', 'sitetitle', 'sectiontitle', 'grouptitle', 'sharelink', 'agentinstructions', 'spectitle', 'conversation',
      'conversationtext', 'cluster', 'issue', 'saml',
    ].map((name) => [name, m(name)]),
  );
  // The emails' domain, the integration's name and the spec's slug carry the marker too.
  Object.assign(markers, { emaildomain: domain, integrationname: integration.name, specslug: spec.slug });
  return { markers, ids, fakeIds, crIds: { commentId: crComment.id, commentReplyId: crComment.reply }, owner, tokens: { guest: guest.token, reader: reader.token }, spaceIds };
}

async function commentWithReply(base: string, token: string, target: Record<string, string>, text: string, replyText: string) {
  const comment = expectStatus(await api('POST', `${base}/comments`, { token, body: { ...target, body: { markdown: text } } }), 200).body;
  const reply = expectStatus(await api('POST', `${base}/comments/${comment.id}/replies`, { token, body: { body: { markdown: replyText } } }), 200).body;
  return { id: comment.id as string, reply: reply.id as string };
}

/** The six attackers' tokens; guest and reader are the victim's members of those roles. */
export async function seedAttackers(victim: Victim): Promise<Record<Attacker, string>> {
  const outsider = await createUser();
  const otherAdmin = await createUser();
  const attackerOrg = expectStatus(await api('POST', '/v1/orgs', { token: otherAdmin.token, body: { title: 'Attacker organization' } }), 201).body;
  const integration = await seedIntegration(attackerOrg.id, { scopes: [...INTEGRATION_SCOPES], visibility: 'private' });
  const installation = await seedInstallation(integration, attackerOrg.id, { spaces: 'all', sites: 'all' });
  // A published site of the attacker's organization, and the site token resolving its URL hands out.
  const space = await createSpace(attackerOrg.id, otherAdmin.token, 'Attacker docs');
  const site = expectStatus(await api('POST', `/v1/orgs/${attackerOrg.id}/sites`, { token: otherAdmin.token, body: { title: 'Attacker site', spaces: [space.id] } }), 201).body;
  expectStatus(await api('POST', `/v1/orgs/${attackerOrg.id}/sites/${site.id}/publish`, { token: otherAdmin.token }), 200);
  const resolved = expectStatus(await api('POST', '/v1/urls/published', { body: { url: `${BASE}/s/${site.id}/` } }), 200).body;
  return {
    outsider: outsider.token,
    otherAdmin: otherAdmin.token,
    guest: victim.tokens.guest,
    reader: victim.tokens.reader,
    installation: await seedToken(integration.id, installation.id),
    integration: await seedToken(integration.id, null),
    siteToken: resolved.apiToken,
  };
}

// ---------------------------------------------------------------------------------------------
// Expectations.

/** Operations that validate their body before access: a 400 to an attacker is allowed (it must leak nothing). */
const BODY_FIRST: Record<string, string> = {};

export interface Expectation {
  statuses: number[];
  /** Markers and ids of the victim the answer may hold. */
  mayShow: string[];
  /** A 200 that is an empty list (filtered to what the caller may see) is a refusal too. */
  emptyList?: boolean;
  /** Why the case is not run (a known gap). */
  skip?: string;
  reason: string;
}

const SUCCESS = [200, 201, 204, 205];

/** What the victim's own members may see of themselves and of their organization in answers about them (SELF, PUBLIC). */
const MEMBER = ['organizationId', 'orgtitle', 'emaildomain', 'hostname'];
const OWN: Partial<Record<Attacker, string[]>> = { guest: [...MEMBER, 'guestId', 'guestname', 'guestSpaceId', 'guestspacetitle'], reader: [...MEMBER, 'readerId', 'readername'] };

/** What `attacker` must get from `op` on the victim's ids; undefined when the case is out of scope (the reader's reads). */
export function expectationFor(op: Operation, attacker: Attacker): Expectation | undefined {
  const id = op.operationId;
  if (attacker === 'reader' && (READER_MAY[id] || readerReadsSpace(op) || readerReadsSite(op) || readerReadsOrgData(op))) return undefined;
  const gap = KNOWN_GAPS.find((g) => g.operationId === id && g.attacker === attacker);
  const base = expectationByClass(op, attacker);
  if (BODY_FIRST[id]) base.statuses.push(400);
  return gap ? { ...base, skip: gap.reason } : base;
}

function expectationByClass(op: Operation, attacker: Attacker): Expectation {
  const id = op.operationId;
  if (OPERATOR_ONLY.has(id)) return { statuses: [403], mayShow: [], reason: 'operator only' };
  const own = OWN[attacker] ?? [];
  if (attacker === 'guest' && GUEST_MAY[id]) return { statuses: [...SUCCESS], mayShow: [...GUEST_MAY[id].mayShow, ...own], reason: `guest: ${GUEST_MAY[id].reason}` };
  if (SELF[id]) return { statuses: [...SUCCESS, 401, 403, 404], mayShow: own, reason: `self: ${SELF[id]}` };
  if (PUBLIC[id]) return { statuses: [...SUCCESS, 401, 403, 404], mayShow: [...PUBLIC[id].mayShow, ...own], reason: `public: ${PUBLIC[id].reason}` };
  if (attacker === 'guest' || attacker === 'reader') {
    // A list filtered to what the member can see (nothing of the victim) is a refusal too; a delete of what the
    // guest cannot see answers 204 as for what does not exist (and changes nothing: the last case checks).
    const statuses = [403, 404, ...(op.method === 'delete' && attacker === 'guest' ? [204] : [])];
    return { statuses, mayShow: own, reason: 'a member without the role', emptyList: op.method === 'get' };
  }
  if (attacker === 'installation') {
    return op.installationToken ? { statuses: op.method === 'delete' ? [404, 204] : [404], mayShow: [], reason: 'another organization (installation token admitted)' } : { statuses: [403], mayShow: [], reason: 'installation tokens refused' };
  }
  if (attacker === 'siteToken') {
    return op.siteToken ? { statuses: [404], mayShow: [], reason: "another organization's site (site token admitted)" } : { statuses: [403], mayShow: [], reason: 'site tokens refused' };
  }
  if (attacker === 'integration') {
    return op.integrationToken ? { statuses: op.method === 'delete' ? [404, 204] : [404], mayShow: [], reason: 'another organization (integration token admitted)' } : { statuses: [403], mayShow: [], reason: 'integration tokens refused' };
  }
  return { statuses: op.method === 'delete' ? [404, 204] : [404], mayShow: [], reason: 'another organization' };
}

// ---------------------------------------------------------------------------------------------
// Requests.

/**
 * Bodies the schema alone does not make valid (rules checked by the handler, or refinements the document
 * does not express), so that the refusal is about access and not about the body.
 */
const BODY_OVERRIDES: Record<string, (ids: Record<string, string>) => unknown> = {
  updateMembersInOrganizationTeam: (ids) => ({ add: [ids.userId] }),
  inviteToSpace: (ids) => ({ role: 'read', users: [ids.userId] }),
  // Sharing a collection or a site: a grant that names someone, and a role the resource takes (a site's is never null).
  inviteToCollection: (ids) => ({ role: 'read', users: [ids.userId], teams: [ids.teamId] }),
  updateUserPermissionInCollection: () => ({ role: 'read' }),
  updateTeamPermissionInCollection: () => ({ role: 'read' }),
  inviteToSite: (ids) => ({ role: 'read', users: [ids.userId], teams: [ids.teamId] }),
  updateUserPermissionInSite: () => ({ role: 'read' }),
  updateTeamPermissionInSite: () => ({ role: 'read' }),
  updateSiteAdaptiveSchema: () => ({ jsonSchema: { type: 'object', properties: {}, additionalProperties: false } }),
  setIntegrationDevelopmentMode: () => ({ tunnelUrl: 'https://example.test/' }),
  createTranslation: (ids) => ({ language: 'fr', source: { space: ids.spaceId, language: 'en' } }),
  importContentInChangeRequest: () => ({ source: 'website', url: 'https://example.test/' }),
  startImportRun: (ids) => ({ source: { type: 'website', url: 'https://example.test/' }, target: { space: ids.spaceId } }),
  applyTemplateToSpace: () => ({ id: 'product-docs' }),
  importGitRepository: () => ({ url: 'https://x-access-token:attack@example.test/acme/docs.git', ref: 'refs/heads/main' }),
  exportToGitRepository: () => ({ url: 'https://x-access-token:attack@example.test/acme/docs.git', ref: 'refs/heads/main', commitMessage: 'Attack' }),
  createSite: () => ({ title: 'Attack' }),
  overrideSiteSpaceCustomizationById: () => ({ title: 'Attack' }),
  moveSpace: () => ({ parent: null }),
  moveCollection: () => ({ parent: null }),
  searchSiteContent: () => ({ query: 'attack', scope: { mode: 'all' } }),
  createSiteRedirect: () => ({ source: '/attack', destination: { kind: 'external', url: 'https://example.test/' } }),
  updateSiteRedirectById: () => ({ permanent: true }),
  bulkUpsertSiteRedirects: () => ({ redirects: [{ source: '/attack', destination: { kind: 'external', url: 'https://example.test/' } }] }),
  sortSiteStructure: (ids) => ({ item: { type: 'site-section', id: ids.siteSectionId }, position: {} }),
  duplicateSiteSpace: () => ({}),
  trackEventsInSiteById: () => ({
    events: [
      {
        type: 'page_view',
        session: { visitorId: 'attacker', sessionId: 'attacker', cookies: {}, userAgent: 'attack', language: null, referrer: null },
        location: { url: 'https://example.test/', siteSection: null, siteSpace: null, siteShareKey: null, space: null, revision: null, page: null },
      },
    ],
  }),
  aggregateSiteEvents: () => ({ select: [{ column: 'eventSearchQuery' }, { column: 'eventsCount' }], range: 'last30Days' }),
};

/** Query values the schema alone does not make valid (a format the handler decodes), as BODY_OVERRIDES. */
const QUERY_OVERRIDES: Record<string, Record<string, (ids: Record<string, string>) => string>> = {
  // A URL that is valid (an invalid one is the 400 of bad input, before anything else): what it shows is no organization's.
  getEmbedByUrl: { url: () => 'https://example.com/' },
  // GitBook's GET render takes its request LZ-string compressed: the victim's installation, rendered.
  renderIntegrationUIWithGet: {
    request: (ids) =>
      compressToEncodedURIComponent(JSON.stringify({ componentId: 'config', props: {}, context: { type: 'configuration_account', organizationId: ids.organizationId, theme: 'light' } })),
  },
};

/** A valid body of `op`: the override, or the minimal value of its schema (with one property when none is required). */
function validBody(op: Operation, ids: Record<string, string>): unknown {
  const override = BODY_OVERRIDES[op.operationId];
  if (override) return override(ids);
  const value = minimal(op.body, ids) ?? {};
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0) {
    // "Give at least one field": the first property of the schema.
    const schema = resolve(op.body);
    const first = Object.keys(schema?.properties ?? {})[0];
    if (first) return { [first]: minimal({ ...schema, required: [first] }, ids)![first as never] };
  }
  return value;
}

function pathOf(op: Operation, ids: Record<string, string>, crIds: Record<string, string>): string {
  const inChangeRequest = op.path.includes('/change-requests/{changeRequestId}/');
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent((inChangeRequest && crIds[name]) || ids[name] || 'unknown'));
}

interface Answer {
  status: number;
  text: string;
}

async function send(op: Operation, token: string, realIds: Record<string, string>, crIds: Record<string, string>, fakeIds: Record<string, string>): Promise<Answer> {
  const ids = { ...realIds, ...Object.fromEntries((CREDENTIALS[op.operationId] ?? []).map((name) => [name, fakeIds[name]])) };
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  let body: string | undefined;
  if (op.body) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(validBody(op, ids));
  }
  const queryValue = (name: string, schema: Schema) => QUERY_OVERRIDES[op.operationId]?.[name]?.(ids) ?? String(minimal(schema, ids));
  const query = new URLSearchParams(op.query.map(({ name, schema }) => [name, queryValue(name, schema)])).toString();
  const url = `${BASE}${pathOf(op, ids, crIds)}${query ? `?${query}` : ''}`;
  const res = await fetchWorker(url, { method: op.method.toUpperCase(), headers, body });
  return { status: res.status, text: new TextDecoder().decode(await res.arrayBuffer()) };
}

/** What of the victim an answer holds that it may not: marker and id names. */
export function leaksOf(text: string, victim: Victim, mayShow: string[]): string[] {
  let rest = text;
  for (const name of mayShow) {
    const value = victim.markers[name] ?? victim.ids[name];
    if (value) rest = rest.split(value).join('');
  }
  const found: string[] = [];
  const lower = rest.toLowerCase();
  for (const [name, value] of Object.entries(victim.markers)) if (lower.includes(value.toLowerCase())) found.push(name);
  // Whatever carries the marker and is not a known text (a derived string).
  if (found.length === 0 && lower.includes(victim.markers.emaildomain.split('.')[0])) found.push('marker');
  for (const [name, value] of Object.entries({ ...victim.ids, ...prefix(victim.crIds, 'cr.') })) {
    if (name === 'changeRequestId' || mayShow.includes(name)) continue;
    if (rest.includes(value)) found.push(`id ${name}`);
  }
  return found;
}
function isEmptyList(text: string): boolean {
  try {
    const body = JSON.parse(text);
    return Array.isArray(body.items) && body.items.length === 0 && Object.keys(body).every((key) => ['items', 'count', 'next'].includes(key));
  } catch {
    return false;
  }
}
const pick = (record: Record<string, string>, names: string[]) => Object.fromEntries(names.map((name) => [name, record[name]]));
const prefix = (record: Record<string, string>, p: string) => Object.fromEntries(Object.entries(record).map(([k, v]) => [`${p}${k}`, v]));

/** One attack: a description of what is wrong with the answer, or nothing. */
async function attack(op: Operation, attacker: Attacker, token: string, victim: Victim, expected: Expectation): Promise<string[]> {
  const answer = await send(op, token, victim.ids, victim.crIds, victim.fakeIds);
  const problems: string[] = [];
  const shown = answer.text.slice(0, 300);
  if (!expected.statuses.includes(answer.status) && !(expected.emptyList && answer.status === 200 && isEmptyList(answer.text))) problems.push(`${answer.status} (expected ${expected.statuses.join(' or ')}: ${expected.reason}): ${shown}`);
  const leaks = leaksOf(answer.text, victim, expected.mayShow);
  if (leaks.length > 0) problems.push(`the answer (${answer.status}) holds the victim's ${leaks.join(', ')}: ${shown}`);
  if (answer.status >= 400) {
    let parsed: any;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    if (parsed?.error?.code !== answer.status || Object.keys(parsed).length !== 1) problems.push(`${answer.status} without the error shape: ${shown}`);
  }
  // Existence does not leak: a stranger's refusal other than 404 is what ids that do not exist get; so is a
  // guest's, but for the organization and its members, which a guest sees.
  const compare = STRANGERS.has(attacker) || attacker === 'guest';
  if (compare && answer.status !== 404 && (answer.status >= 400 || op.method === 'delete') && !PUBLIC[op.operationId] && !SELF[op.operationId]) {
    const known = attacker === 'guest' ? pick(victim.ids, ['organizationId', 'userId', 'readerId', 'ownerId', 'guestId', 'guestSpaceId', 'emailDomain', 'integrationName', 'hostname']) : {};
    const fake = await send(op, token, { ...victim.fakeIds, ...known }, {}, victim.fakeIds);
    if (fake.status !== answer.status) problems.push(`${answer.status} on the victim's ids but ${fake.status} on ids that do not exist: existence leaks`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The suite.

/**
 * Operations attacked in a file of their own (`test/platform/adversarial-<name>.test.ts`, attackOwnFile) rather than
 * in the shards: those of a piece of work, so that its file says at a glance that each of them was attacked.
 */
export const OWN_FILES: Record<string, string[]> = {
  // The last site-management operations of issue 44, and listSites, which now answers guests the sites shared with them.
  'site-management': ['bulkUpsertSiteRedirects', 'sortSiteStructure', 'duplicateSiteSpace', 'listSites'],
  'parity-reads': [
    'getDocumentById', 'getComputedDocument', 'getComputedRevision', 'listPagesInRevisionById', 'listFilesInRevisionById',
    'getFileInRevisionById', 'getReusableContentById', 'getReusableContentInRevisionById', 'getReusableContentInChangeRequestById',
    'listSpacePageMetaLinks', 'listChangeRequestPageMetaLinks', 'getPageInChangeRequestByPath', 'getRevisionSemanticChanges',
    'getChangeRequestChanges', 'getContributorsByChangeRequestId', 'getSpacePDF', 'getContentByUrl', 'getEmbedByUrl', 'getPublishedContentByUrl',
  ],
};
const OWN_FILE_OPERATIONS = new Set(Object.values(OWN_FILES).flat());

/** Declares the cases of the operations of OWN_FILES[name]. */
export async function attackOwnFile(name: string) {
  const all = await documentedOperations();
  const wanted = new Set(OWN_FILES[name]);
  const operations = all.filter((op) => wanted.has(op.operationId));
  declareAttacks(`adversarial: the operations of ${name} refuse strangers and members without the role`, all, operations, () => {
    expect(operations.map((op) => op.operationId).sort()).toEqual([...wanted].sort());
  });
}

/** Declares shard `shard` (1-based) of the suite. */
export async function attackShard(shard: number) {
  const all = await documentedOperations();
  const shared = all.filter((op) => !OWN_FILE_OPERATIONS.has(op.operationId));
  const operations = shared.filter((_, index) => index % ADVERSARIAL_SHARDS === shard - 1);
  declareAttacks(`adversarial: every operation refuses strangers and members without the role (shard ${shard} of ${ADVERSARIAL_SHARDS})`, all, operations, () => {
    const mine = shared.filter((_, index) => index % ADVERSARIAL_SHARDS === shard - 1).length;
    expect(mine).toBe(operations.length);
    expect(operations.length).toBeGreaterThanOrEqual(Math.floor(shared.length / ADVERSARIAL_SHARDS));
  });
}

function declareAttacks(title: string, all: Operation[], operations: Operation[], coverage: () => void) {
  // Deletes last: one that wrongly succeeded would turn the following cases into 404s for the wrong reason.
  const ordered = [...operations.filter((op) => op.method !== 'delete'), ...operations.filter((op) => op.method === 'delete')];
  const cases = ordered.flatMap((op) =>
    ATTACKERS.map((attacker) => ({ op, attacker, expected: expectationFor(op, attacker) })).filter((c): c is typeof c & { expected: Expectation } => c.expected !== undefined),
  );

  describe(title, () => {
    let victim: Victim;
    let tokens: Record<Attacker, string>;
    beforeAll(async () => {
      victim = await seedVictim();
      tokens = await seedAttackers(victim);
    }, 60_000);

    it('covers every operation of the served document', () => {
      expect(all.length).toBeGreaterThanOrEqual(215);
      expect(new Set(all.map((op) => op.operationId)).size).toBe(all.length);
      // Every operation is attacked by the four strangers at least (the reader only where it needs more than read).
      for (const op of all) {
        const attacked = ATTACKERS.filter((attacker) => expectationFor(op, attacker));
        expect(attacked, op.operationId).toEqual(expect.arrayContaining(['outsider', 'otherAdmin', 'guest', 'installation', 'integration', 'siteToken']));
      }
      coverage();
    });

    for (const { op, attacker, expected } of cases) {
      const name = `${op.operationId} (${op.method.toUpperCase()} ${op.path}) as ${attacker}`;
      if (expected.skip) {
        it.skip(`KNOWN GAP: ${name}: ${expected.skip}`, () => {});
        continue;
      }
      it(name, async () => {
        expect(await attack(op, attacker, tokens[attacker], victim, expected)).toEqual([]);
      });
    }

    it("leaves the victim's data as it was", async () => {
      const O = victim.owner.token;
      const { ids, markers } = victim;
      const read = async (path: string) => expectStatus(await api('GET', path, { token: O }), 200).body;
      expect((await read(`/v1/orgs/${ids.organizationId}`)).title).toBe(markers.orgtitle);
      expect((await read(`/v1/spaces/${ids.spaceId}`)).title).toBe(markers.spacetitle);
      expect((await read(`/v1/spaces/${ids.spaceId}/content/pages`)).pages[0].title).toBe(markers.pagetitle);
      expect((await read(`/v1/spaces/${ids.spaceId}/change-requests/${ids.changeRequestId}`)).subject).toBe(markers.opencr);
      expect((await read(`/v1/orgs/${ids.organizationId}/teams/${ids.teamId}`)).title).toBe(markers.teamtitle);
      expect((await read(`/v1/collections/${ids.collectionId}`)).title).toBe(markers.collectiontitle);
      expect((await read(`/v1/orgs/${ids.organizationId}/sites/${ids.siteId}`)).title).toBe(markers.sitetitle);
      const spaces = await read(`/v1/orgs/${ids.organizationId}/spaces`);
      expect(spaces.items.map((space: { id: string }) => space.id).sort()).toEqual(victim.spaceIds);
      expect((await read(`/v1/orgs/${ids.organizationId}/members/${ids.readerId}`)).role).toBe('read');
      expect((await read(`/v1/orgs/${ids.organizationId}/members/${ids.userId}`)).role).toBe('edit');
      expect((await read(`/v1/orgs/${ids.organizationId}/teams/${ids.teamId}/members`)).items.map((m: { organization: { user: { id: string } } }) => m.organization.user.id)).toEqual([ids.userId]);
      expect((await read(`/v1/orgs/${ids.organizationId}/members`)).count).toBe(4);
      await read(`/v1/integrations/${ids.integrationName}`);
      expect((await read(`/v1/orgs/${ids.organizationId}/members/${ids.guestId}`)).role).toBe(null);
      expect((await read('/v1/user/tokens')).items.map((t: { id: string }) => t.id)).toContain(ids.tokenId);
      await read(`/v1/orgs/${ids.organizationId}/link-invites/${ids.inviteId}`);
      await read(`/v1/integrations/${ids.integrationName}/installations/${ids.installationId}`);
      await read(`/v1/orgs/${ids.organizationId}/openapi/${ids.specSlug}`);
      await read(`/v1/orgs/${ids.organizationId}/saml/${ids.samlProviderId}`);
      await read(`/v1/orgs/${ids.organizationId}/translations/${ids.translationId}`);
      expect((await read(`/v1/org/${ids.organizationId}/imports/${ids.importRunId}`)).status).toBe('pending');
      await read(`/v1/spaces/${ids.spaceId}/comments/${ids.commentId}`);
      // The audit log holds no change by a stranger: every event is the victim's own members' (the guest and the
      // reader may act on themselves), none an attacker's refused write.
      const insiders = [ids.ownerId, ids.userId, ids.readerId, ids.guestId];
      const events = await read(`/v1/orgs/${ids.organizationId}/audit-events?limit=100`);
      const strangers = events.items.filter((e: { actor: { type: string; id: string } }) => !insiders.includes(e.actor.id));
      expect(strangers.map((e: { action: string; actor: unknown }) => [e.action, e.actor])).toEqual([]);
      const shareLinks = await read(`/v1/orgs/${ids.organizationId}/sites/${ids.siteId}/share-links`);
      expect(shareLinks.items.map((l: { name: string }) => l.name)).toEqual([markers.sharelink]);
    });
  });
}
