import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { pageId } from '../helpers/large-content';

/**
 * Migration 0003 converts revisions written as whole manifests into page and file maps. The test
 * writes a revision the way the content engine did before it, runs the migration's conversion
 * statements again (the columns exist already), and reads and edits the space through the API.
 */
describe('migration 0003: manifests to content trees', () => {
  const conversion = () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0003_'));
    expect(migration, 'migration 0003').toBeDefined();
    return migration!.queries.filter((q) => !/^ALTER TABLE/i.test(q.replace(/^\s*--.*$/gm, '').trim()));
  };

  it('converts a legacy revision with no loss: page tree, paths, documents, files, variables; it can be edited and merged', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Legacy');
    const doc = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Legacy body', marks: [] }] }] }] };
    const docHash = 'legacy-document-hash-0001';
    const at = '2025-06-01T00:00:00.000Z';
    const entry = (id: string, title: string, slug: string, pages: unknown[] = [], extra: Record<string, unknown> = {}) => ({
      id, type: 'document', title, slug, createdAt: at, updatedAt: at, pages, ...extra,
    });
    const ids = { guide: pageId('legacy-guide'), install: pageId('legacy-install'), deep: pageId('legacy-deep'), faq: pageId('legacy-faq') };
    const manifest = {
      pages: [
        entry(ids.guide, 'Guide', 'guide', [entry(ids.install, 'Install', 'install', [entry(ids.deep, 'Deep', 'deep')], { document: docHash, description: 'How to' })], { emoji: '1f4d8' }),
        entry(ids.faq, 'FAQ', 'faq', [], { hidden: true }),
      ],
      files: [{ id: 'legacyFile0000000001', name: 'a.png', contentType: 'image/png', size: 70, hash: 'abc' }],
      variables: { product: 'Legacy' },
      reusableContents: [],
    };
    const revision = 'legacyRevision000001';
    await env.DB.batch([
      env.DB.prepare('insert into documents (hash, body, created_at) values (?, ?, ?)').bind(docHash, JSON.stringify(doc), at),
      env.DB.prepare(
        `insert into revisions (id, space_id, parents, type, manifest, created_at) values (?, ?, ?, 'edits', ?, ?)`,
      ).bind(revision, space.id, JSON.stringify([space.revision]), JSON.stringify(manifest), at),
      env.DB.prepare('update spaces set revision_id = ? where id = ?').bind(revision, space.id),
    ]);
    for (const query of conversion()) await env.DB.prepare(query).run();

    const row = await env.DB.prepare('select page_count, file_count, meta, pages_root from revisions where id = ?').bind(revision).first<any>();
    expect(row).toMatchObject({ page_count: 4, file_count: 1, pages_root: `legacy:${revision}:p` });
    expect(JSON.parse(row.meta)).toEqual({ variables: { product: 'Legacy' }, reusableContents: [] });
    // Converted once: running it again changes nothing.
    const before = await env.DB.prepare('select count(*) as n from documents').first('n');
    for (const query of conversion()) await env.DB.prepare(query).run();
    expect(await env.DB.prepare('select count(*) as n from documents').first('n')).toBe(before);

    const content = await api('GET', `/v1/spaces/${space.id}/content`, { token });
    expect(content.status, JSON.stringify(content.body)).toBe(200);
    expect(content.body.variables).toEqual({ product: 'Legacy' });
    expect(content.body.files.map((f: any) => f.name)).toEqual(['a.png']);
    const paths = (pages: any[]): string[] => pages.flatMap((p) => [p.path, ...paths(p.pages)]);
    expect(paths(content.body.pages)).toEqual(['guide', 'guide/install', 'guide/install/deep', 'faq']);
    expect(content.body.pages[0].emoji).toBe('1f4d8');
    expect(content.body.pages[1].hidden).toBe(true);
    const install = await api('GET', `/v1/spaces/${space.id}/content/page/${ids.install}`, { token });
    expect(install.body).toMatchObject({ path: 'guide/install', description: 'How to', documentId: docHash });
    expect(install.body.document).toEqual(doc);
    expect(install.body.pages.map((p: any) => p.path)).toEqual(['guide/install/deep']);

    // The converted revision is a base like any other.
    const cr = await openChangeRequest(space.id, token);
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: ids.deep, document: { markdown: 'Deeper' } },
      { operation: 'insert_page', into: ids.guide, title: 'Added', document: { markdown: 'Added' } },
    ]);
    const other = await openChangeRequest(space.id, token, 'Concurrent');
    await applyChanges(space.id, other.number, token, [{ operation: 'update_page', page: ids.faq, title: 'Questions' }]);
    expect((await merge(space.id, other.number, token)).status).toBe(200);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    expect(await pageMarkdown(space.id, ids.deep, token)).toContain('Deeper');
    const after = await api('GET', `/v1/spaces/${space.id}/content/pages`, { token });
    expect(paths(after.body.pages)).toEqual(['guide', 'guide/install', 'guide/install/deep', 'guide/added', 'faq']);
    expect(after.body.pages[1].title).toBe('Questions');
  });
});
