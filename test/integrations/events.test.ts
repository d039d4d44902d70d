import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { contentUpdatedEvents, eventIdsOf, insertEvent } from '../../src/services/integrations/events';
import { createSpace } from '../helpers/content';
import { gitbookErrors, gitbookOperations, gitbookValidator, GITBOOK_0202, schemaValidator } from '../helpers/gitbook-schema';
import { ALL_ROLES, api, expectError, expectStatus, seedOrg, type Caller, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { seedInstallation, seedIntegration, seedToken, type SeededIntegration } from '../helpers/integrations';

const eventsPath = (name: string) => `/v1/integrations/${name}/events`;
const eventPath = (name: string, id: string) => `/v1/integrations/${name}/events/${id}`;

/** Inserts an event dated `createdAt` with a status and trace lines, straight in D1. */
async function seedEvent(
  integration: SeededIntegration,
  installationId: string,
  orgId: string,
  createdAt: string,
  status: 'pending' | 'success' | 'failed',
  logs: { level: string; message: string }[] = [],
): Promise<string> {
  const db = createDb(env.DB);
  const { id, statement } = insertEvent(db, { integrationId: integration.id, installationId, orgId, payload: { type: 'installation_setup', installationId, status: 'active' } }, createdAt);
  await statement;
  await env.DB.batch([
    env.DB.prepare('update integration_events set status = ?, attempts = ? where id = ?').bind(status, status === 'pending' ? 0 : 1, id),
    ...logs.map((log, i) =>
      env.DB.prepare('insert into integration_event_logs (event_id, level, message, timestamp) values (?, ?, ?, ?)').bind(id, log.level, log.message, new Date(Date.parse(createdAt) + i).toISOString()),
    ),
  ]);
  return id;
}

describe('listIntegrationEvents and getIntegrationEvent', () => {
  let publisher: TestOrg;
  let customer: TestOrg;
  let integration: SeededIntegration;
  let installationId: string;
  let ids: string[];
  let spaceEvent: string;

  beforeAll(async () => {
    publisher = await seedOrg();
    customer = await seedOrg();
    integration = await seedIntegration(publisher.id, { visibility: 'private', secrets: { TOKEN: 'never-shown' } });
    const space = await createSpace(customer.id, customer.owner.token);
    installationId = (await seedInstallation(integration, customer.id, { spaces: [space.id] })).id;
    const base = Date.parse('2026-11-20T10:00:00.000Z');
    ids = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        await seedEvent(integration, installationId, customer.id, new Date(base + i * 1000).toISOString(), i === 3 ? 'pending' : i === 2 ? 'failed' : 'success', [
          { level: 'info', message: `handled ${i}` },
          { level: i === 2 ? 'error' : 'info', message: `Attempt 1 of 6: the script answered ${i === 2 ? 500 : 200}` },
        ]),
      );
    }
    const revisionId = (await env.DB.prepare('select revision_id as r from spaces where id = ?').bind(space.id).first<{ r: string }>())!.r;
    [spaceEvent] = eventIdsOf(await contentUpdatedEvents(createDb(env.DB), space.id, revisionId, customer.owner.id, new Date(base + 10_000).toISOString()));
    await env.DB.prepare("update integration_events set status = 'success' where id = ?").bind(spaceEvent).run();
  });

  it('lists the events newest first, page by page, as GitBook describes them', async () => {
    const token = publisher.owner.token;
    const all = expectStatus(await api('GET', eventsPath(integration.name), { token }), 200).body;
    expect(all.count).toBe(5);
    expect(all.items.map((e: { id: string }) => e.id)).toEqual([spaceEvent, ...[...ids].reverse()]);
    expect(all.next).toBeUndefined();
    // GitBook's two states; an event not delivered yet is `failed` with `pending`.
    expect(all.items.map((e: { status: string; pending?: true }) => [e.status, e.pending ?? false])).toEqual([
      ['success', false],
      ['failed', true],
      ['failed', false],
      ['success', false],
      ['success', false],
    ]);
    const validator = gitbookValidator('IntegrationEvent', GITBOOK_0202.components);
    for (const item of all.items) expect(gitbookErrors(validator, item)).toBe('valid');
    expect(all.items[4]).toEqual({
      id: ids[0],
      integrationId: integration.id,
      installationId,
      createdAt: '2026-11-20T10:00:00.000Z',
      payload: { type: 'installation_setup', installationId, status: 'active', eventId: ids[0] },
      status: 'success',
    });
    // The payload's users are linked from the API's origin.
    expect(all.items[0].payload).toMatchObject({
      type: 'space_content_updated',
      eventId: spaceEvent,
      updatedBy: [{ object: 'user', id: customer.owner.id, urls: { location: `http://api.test/v1/users/${customer.owner.id}` } }],
    });

    const first = expectStatus(await api('GET', `${eventsPath(integration.name)}?limit=2`, { token }), 200).body;
    expect(first.items.map((e: { id: string }) => e.id)).toEqual([spaceEvent, ids[3]]);
    expect(first.count).toBe(5);
    const second = expectStatus(await api('GET', `${eventsPath(integration.name)}?limit=2&page=${first.next.page}`, { token }), 200).body;
    expect(second.items.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    const third = expectStatus(await api('GET', `${eventsPath(integration.name)}?limit=2&page=${second.next.page}`, { token }), 200).body;
    expect(third.items.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(third.next).toBeUndefined();
  });

  it('gets one event with its trace', async () => {
    const res = expectStatus(await api('GET', eventPath(integration.name, ids[2]), { token: publisher.owner.token }), 200);
    const operation = gitbookOperations().get('getIntegrationEvent')!;
    expect(gitbookErrors(schemaValidator(operation.responses['200']!, GITBOOK_0202.components), res.body)).toBe('valid');
    expect(res.body.event).toMatchObject({ id: ids[2], status: 'failed' });
    expect(res.body.trace.logs.map(({ level, message }: { level: string; message: string }) => ({ level, message }))).toEqual([
      { level: 'info', message: 'handled 2' },
      { level: 'error', message: 'Attempt 1 of 6: the script answered 500' },
    ]);
    // An event not delivered yet reads as GitBook's `failed` with `pending`, and has an empty trace until its first attempt.
    const pending = expectStatus(await api('GET', eventPath(integration.name, ids[3]), { token: publisher.owner.token }), 200).body;
    expect(pending.event).toMatchObject({ status: 'failed', pending: true });
    expect(gitbookErrors(schemaValidator(operation.responses['200']!, GITBOOK_0202.components), pending)).toBe('valid');
    expect(JSON.stringify(pending)).not.toContain('never-shown');
  });

  it('answers within two D1 round trips', async () => {
    const token = publisher.owner.token;
    await api('GET', eventsPath(integration.name), { token });
    for (const path of [eventsPath(integration.name), eventPath(integration.name, ids[0])]) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it("is for the admins of the integration's organization (the rest of it 403, other organizations 404) and its own token", async () => {
    const expected: Record<Caller, number> = { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 403, outsider: 404 };
    for (const caller of [...ALL_ROLES, 'outsider'] as Caller[]) {
      const token = caller === 'outsider' ? publisher.outsider.token : publisher.members[caller].token;
      for (const path of [eventsPath(integration.name), eventPath(integration.name, ids[0])]) {
        const res = await api('GET', path, { token });
        if (expected[caller] === 200) expectStatus(res, 200);
        else expectError(res, expected[caller]);
      }
    }
    // The customer's admin installed it but does not publish it.
    expectError(await api('GET', eventsPath(integration.name), { token: customer.owner.token }), 404);

    const own = await seedToken(integration.id, null);
    expectStatus(await api('GET', eventsPath(integration.name), { token: own }), 200);
    expectStatus(await api('GET', eventPath(integration.name, ids[1]), { token: own }), 200);
    // An installation token acts for an installation, not the integration.
    const installationToken = await seedToken(integration.id, installationId);
    expectError(await api('GET', eventsPath(integration.name), { token: installationToken }), 403);
    // Another integration's token does not see a private integration.
    const other = await seedIntegration(customer.id);
    expectError(await api('GET', eventsPath(integration.name), { token: await seedToken(other.id, null) }), 404);
  });

  it("answers 404 for an unknown event, another integration's event and an unknown integration, 401 without a token, 400 for bad paging", async () => {
    const token = publisher.owner.token;
    expectError(await api('GET', eventPath(integration.name, 'no-such-event'), { token }), 404);
    const other = await seedIntegration(publisher.id);
    const otherInstallation = await seedInstallation(other, customer.id);
    const foreign = await seedEvent(other, otherInstallation.id, customer.id, new Date().toISOString(), 'success');
    expectError(await api('GET', eventPath(integration.name, foreign), { token }), 404);
    expectStatus(await api('GET', eventPath(other.name, foreign), { token }), 200);
    expect((await api('GET', eventsPath(other.name), { token })).body.items.map((e: { id: string }) => e.id)).toEqual([foreign]);
    expectError(await api('GET', eventsPath('no-such-integration'), { token }), 404);
    expectError(await api('GET', eventPath('no-such-integration', ids[0]), { token }), 404);

    expectError(await api('GET', eventsPath(integration.name)), 401);
    expectError(await api('GET', eventPath(integration.name, ids[0])), 401);

    expectError(await api('GET', `${eventsPath(integration.name)}?limit=0`, { token }), 400);
    expectError(await api('GET', `${eventsPath(integration.name)}?page=not-a-cursor`, { token }), 400);
  });

  it('shows the events of an unpublished integration to nobody', async () => {
    const gone = await seedIntegration(publisher.id);
    const goneInstallation = await seedInstallation(gone, customer.id);
    const event = await seedEvent(gone, goneInstallation.id, customer.id, new Date().toISOString(), 'success');
    await env.DB.prepare('update integrations set deleted_at = ? where id = ?').bind(new Date().toISOString(), gone.id).run();
    expectError(await api('GET', eventsPath(gone.name), { token: publisher.owner.token }), 404);
    expectError(await api('GET', eventPath(gone.name, event), { token: publisher.owner.token }), 404);
  });
});
