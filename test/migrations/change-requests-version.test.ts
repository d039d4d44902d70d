import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/**
 * Migration 0168: `spaces.change_requests_version`, moved by triggers with every write to a space's change requests and
 * to their creators' names (what a held change-request list depends on, services/content/change-request-lists). A
 * space from before it reads 0 (the column's default) and moves from there. A change request's head still moves
 * (applyChanges answers 200) although local D1 counts the trigger's row among the write's changes (assertMoved).
 */
const versionOf = async (spaceId: string) =>
  (await env.DB.prepare('select change_requests_version as v from spaces where id = ?').bind(spaceId).first<number>('v'))!;

describe('migration 0168: the change-request version of a space', () => {
  it('adds the column with 0 for existing spaces and creates its triggers', async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0168_'))!;
    expect(migration.queries[0]).toMatch(/ADD `change_requests_version` integer DEFAULT 0 NOT NULL/);
    const triggers = await env.DB.prepare("select name from sqlite_master where type = 'trigger' and name like '%change_requests_version%' order by name").all<{ name: string }>();
    expect(triggers.results.map((t) => t.name)).toEqual([
      'change_requests_version_ad',
      'change_requests_version_ai',
      'change_requests_version_au',
      'users_change_requests_version_ad',
      'users_change_requests_version_au',
    ]);
  });

  it('moves with every write to the space\'s change requests and their creators, and only theirs', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const spaceId = (await createSpace(org.id, token, 'Versioned')).id;
    const other = (await createSpace(org.id, token, 'Other')).id;
    // A space as the code before 0168 left it: the default.
    await env.DB.prepare('update spaces set change_requests_version = 0 where id in (?, ?)').bind(spaceId, other).run();
    let last = await versionOf(spaceId);
    const moved = async () => {
      const now = await versionOf(spaceId);
      const grew = now > last;
      last = now;
      return grew;
    };
    const cr = await openChangeRequest(spaceId, token, 'One');
    expect(await moved()).toBe(true);
    expectStatus(await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { token, body: { subject: 'Two' } }), 200);
    expect(await moved()).toBe(true);
    await applyChanges(spaceId, cr.number, token, [{ operation: 'insert_page', title: 'Page', document: {} }]);
    expect(await moved()).toBe(true);
    expectStatus(await api('PATCH', `/v1/users/${org.owner.id}`, { token, body: { displayName: 'Someone else' } }), 200);
    expect(await moved()).toBe(true);
    // A user who created no change request here: the space's version stays.
    expectStatus(await api('PATCH', `/v1/users/${org.members.read.id}`, { token: org.members.read.token, body: { displayName: 'Reader' } }), 200);
    expect(await moved()).toBe(false);
    expectStatus(await merge(spaceId, cr.number, token), 200);
    expect(await moved()).toBe(true);
    await env.DB.prepare('delete from change_requests where id = ?').bind(cr.id).run();
    expect(await moved()).toBe(true);
    expect(await versionOf(other)).toBe(0);
  });
});
