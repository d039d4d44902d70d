import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb, runBatch } from '../../src/db/client';
import { ApiError } from '../../src/lib/errors';
import { cloneModel, modelFrom, saveModel, siteModelQueries } from '../../src/services/sites/model';
import { deleteSiteSpace } from '../../src/services/sites/structure';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';

/** Two edits of one site's structure that read the same version: the second answers 409 and writes nothing. */
describe('concurrent structure edits', () => {
  it('refuses a write based on a structure another write changed since it was read', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const a = await createSpace(org.id, token, 'A');
    const b = await createSpace(org.id, token, 'B');
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title: 'Raced', spaces: [a.id, b.id] } }), 201).body;
    const db = createDb(env.DB);
    const load = async () => modelFrom((await runBatch(db, [...siteModelQueries(db, org.id, site.id, null)])) as never)!;

    const stale = await load();
    // Meanwhile, another request removes the default site space (b becomes the default).
    const [first] = expectStatus(await api('GET', `${base}/${site.id}/site-spaces`, { token }), 200).body.items;
    expectStatus(await api('DELETE', `${base}/${site.id}/site-spaces/${first.id}`, { token }), 204);

    // The stale edit removes b: applied, the site would keep a deleted default and lose b.
    const after = cloneModel(stale);
    deleteSiteSpace(after, stale.siteSpaces.find((s) => s.spaceId === b.id)!.id);
    const error = await saveModel(db, stale, after).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);

    const items = expectStatus(await api('GET', `${base}/${site.id}/site-spaces`, { token }), 200).body.items;
    expect(items.map((s: any) => [s.space.id, s.default])).toEqual([[b.id, true]]);
    // A write from a fresh read goes through.
    const fresh = await load();
    const next = cloneModel(fresh);
    next.site.title = 'Raced again';
    await saveModel(db, fresh, next);
    expect(expectStatus(await api('GET', `${base}/${site.id}`, { token }), 200).body.title).toBe('Raced again');
  });
});
