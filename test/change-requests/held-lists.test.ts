/**
 * A space's change-request list held per isolate by the space's change-request version (services/content/
 * change-request-lists, migration 0168's triggers; issue 42 item 6): a warm list sends the space's statement alone
 * (the caller's rank, the access check) and answers what a read in full answers; after a change request is created,
 * edited, commented, archived or merged, its creator renamed, or the space's head moved, the next list is the space's
 * now, within two round trips; another tenant, a guest and a removed member get what they got before.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetToken } from '../../src/middleware/identity-cache';
import { clearHeldChangeRequestLists } from '../../src/services/content/change-request-lists';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { addMember, api, createUser, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { countingD1, requestWithBindings } from '../helpers/round-trips';

async function list(spaceId: string, token: string, query = '') {
  const counter = countingD1(env.DB);
  const { status, body } = await requestWithBindings('GET', `/v1/spaces/${spaceId}/change-requests${query}`, token, undefined, { DB: counter.db });
  // Only a list read from D1 sends a statement that reads change_requests (the space's statement with the rank does not).
  const listed = counter.texts.some((text) => text.includes('"change_requests"'));
  return { status, body: body as any, roundTrips: counter.count, listed };
}

describe("a space's change-request list held per isolate", () => {
  let org: TestOrg;
  let owner: string;
  let spaceId: string;

  beforeAll(async () => {
    org = await seedOrg();
    owner = org.owner.token;
    spaceId = (await createSpace(org.id, owner, 'Held list')).id;
    await openChangeRequest(spaceId, owner, 'First');
    // The tokens' identities known to the isolate before any count.
    for (const member of [org.owner, org.members.read, org.members.edit, org.members.guest, org.outsider]) await api('GET', '/v1/user', { token: member.token });
  });

  it('sends the space statement alone once the list is held, and answers as a read in full', async () => {
    clearHeldChangeRequestLists();
    const full = await list(spaceId, owner);
    expect([full.status, full.roundTrips, full.listed]).toEqual([200, 1, true]);
    expect(full.body.items.map((cr: { subject: string }) => cr.subject)).toEqual(['First']);
    const warm = await list(spaceId, owner);
    expect([warm.status, warm.roundTrips, warm.listed]).toEqual([200, 1, false]);
    expect(warm.body).toEqual(full.body);
    // Each set of filters is a list of its own; a list of other statuses is read, then held too.
    const merged = await list(spaceId, owner, '?status=merged');
    expect([merged.listed, merged.body.items]).toEqual([true, []]);
    expect((await list(spaceId, owner, '?status=merged')).listed).toBe(false);
    // A list by contributor reads a table the version does not follow: never held.
    const contributed = `?contributor=${org.owner.id}`;
    expect((await list(spaceId, owner, contributed)).listed).toBe(true);
    expect((await list(spaceId, owner, contributed)).listed).toBe(true);
  });

  it('answers every write to the space\'s change requests at the next read, in two round trips', async () => {
    clearHeldChangeRequestLists();
    const subjects = async () => {
      const read = await list(spaceId, owner, '?status=open');
      expect([read.status, read.roundTrips]).toEqual([200, read.listed ? 2 : 1]);
      return { listed: read.listed, items: read.body.items as any[], count: read.body.count };
    };
    expect((await list(spaceId, owner, '?status=open')).listed).toBe(true);
    expect((await subjects()).listed).toBe(false);
    // Created.
    const second = await openChangeRequest(spaceId, owner, 'Second');
    let now = await subjects();
    expect([now.listed, now.items.map((cr) => cr.subject).sort(), now.count]).toEqual([true, ['First', 'Second'], 2]);
    expect((await subjects()).listed).toBe(false);
    // Edited (its subject), then its content (updatedAt and revision).
    expectStatus(await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${second.number}`, { token: owner, body: { subject: 'Second, renamed' } }), 200);
    now = await subjects();
    expect([now.listed, now.items.some((cr) => cr.subject === 'Second, renamed')]).toEqual([true, true]);
    const before = now.items.find((cr) => cr.number === second.number);
    await applyChanges(spaceId, second.number, owner, [{ operation: 'insert_page', title: 'New page', document: {} }]);
    now = await subjects();
    const edited = now.items.find((cr) => cr.number === second.number);
    expect([now.listed, edited.revision !== before.revision]).toEqual([true, true]);
    // Commented: its comment count.
    expectStatus(await api('POST', `/v1/spaces/${spaceId}/change-requests/${second.number}/comments`, { token: owner, body: { body: { markdown: 'A remark' } } }), 200);
    now = await subjects();
    expect([now.listed, now.items.find((cr) => cr.number === second.number).comments]).toEqual([true, 1]);
    // Its creator renamed.
    expectStatus(await api('PATCH', `/v1/users/${org.owner.id}`, { token: owner, body: { displayName: 'Renamed owner' } }), 200);
    now = await subjects();
    expect([now.listed, now.items.map((cr) => cr.createdBy.displayName)]).toEqual([true, ['Renamed owner', 'Renamed owner']]);
    // Merged: it leaves the open list, and the other one is outdated now (the space's head moved).
    expect((await subjects()).items.every((cr) => cr.outdated === false)).toBe(true);
    expectStatus(await merge(spaceId, second.number, owner), 200);
    now = await subjects();
    expect([now.listed, now.items.map((cr) => [cr.subject, cr.outdated])]).toEqual([true, [['First', true]]]);
    // Archived.
    expectStatus(await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${now.items[0].number}`, { token: owner, body: { status: 'archived' } }), 200);
    now = await subjects();
    expect([now.listed, now.items, now.count]).toEqual([true, [], 0]);
    expect((await subjects()).listed).toBe(false);
  });

  it("answers the space's head as it is now, from held rows (outdated)", async () => {
    const space = (await createSpace(org.id, owner, 'Head moves')).id;
    const open = await openChangeRequest(space, owner, 'Waits');
    expect((await list(space, owner)).listed).toBe(true);
    const held = await list(space, owner);
    expect([held.listed, held.body.items.map((cr: { outdated: boolean }) => cr.outdated)]).toEqual([false, [false]]);
    // The head moved by a write that is no change request's: the space's revision set directly.
    const other = await openChangeRequest(space, owner, 'Other');
    await applyChanges(space, other.number, owner, [{ operation: 'insert_page', title: 'Elsewhere', document: {} }]);
    const moved = (await env.DB.prepare('select revision_id from change_requests where id = ?').bind(other.id).first<string>('revision_id'))!;
    await env.DB.prepare('update spaces set revision_id = ? where id = ?').bind(moved, space).run();
    await env.DB.prepare('delete from change_requests where id = ?').bind(other.id).run();
    expect((await list(space, owner)).listed).toBe(true);
    await env.DB.prepare('update spaces set revision_id = (select revision_initial from change_requests where id = ?) where id = ?').bind(open.id, space).run();
    const back = await list(space, owner);
    expect([back.listed, back.body.items.map((cr: { outdated: boolean }) => cr.outdated)]).toEqual([false, [false]]);
    await env.DB.prepare('update spaces set revision_id = ? where id = ?').bind(moved, space).run();
    const warm = await list(space, owner);
    expect([warm.listed, warm.body.items.map((cr: { outdated: boolean }) => cr.outdated)]).toEqual([false, [true]]);
  });

  it('refuses another tenant, a guest and a removed member, whatever is held', async () => {
    const reader = await createUser();
    await addMember(org.id, reader.id, 'read');
    expectStatus(await api('GET', '/v1/user', { token: reader.token }), 200);
    expect((await list(spaceId, reader.token)).status).toBe(200);
    const held = await list(spaceId, reader.token);
    expect([held.status, held.listed]).toEqual([200, false]);
    for (const token of [org.outsider.token, org.members.guest.token]) {
      const refused = await list(spaceId, token);
      expect([refused.status, refused.body.error?.message, refused.listed]).toEqual([404, 'Space not found', false]);
    }
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/members/${reader.id}`, { token: owner }), 204);
    const removed = await list(spaceId, reader.token);
    expect([removed.status, removed.body.error?.message, removed.listed]).toEqual([404, 'Space not found', false]);
  });

  it('reads in full when the token cost a round trip already: two at most', async () => {
    expect((await list(spaceId, owner)).listed).toBe(false);
    await openChangeRequest(spaceId, owner, 'Third');
    const newcomer = await createUser();
    await addMember(org.id, newcomer.id, 'read');
    expectStatus(await api('GET', '/v1/user', { token: newcomer.token }), 200);
    const tokenId = await env.DB.prepare('select id from api_tokens where user_id = ?').bind(newcomer.id).first<string>('id');
    forgetToken(tokenId!);
    const first = await list(spaceId, newcomer.token);
    expect([first.status, first.roundTrips, first.listed]).toEqual([200, 2, true]);
    expect(first.body.items.map((cr: { subject: string }) => cr.subject)).toContain('Third');
  });
});
