import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest, pageMarkdown, pageTree } from '../helpers/content';
import { fetchWorker } from '../helpers/worker';

describe('the content engine, end to end', () => {
  it('creates a change request, adds pages and an image, reads them, merges, and reports the other one outdated until updated', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const first = await openChangeRequest(space.id, token, 'Guides');
    const second = await openChangeRequest(space.id, token, 'Later');
    expect([first.number, second.number]).toEqual([1, 2]);
    expect(first.outdated).toBe(false);

    const result = await applyChanges(space.id, first.number, token, [
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
      {
        operation: 'insert_page',
        ref: 'intro',
        document: { markdown: '# Introduction\n\nWelcome. See [install](./install.md).\n\n![Logo](./logo.png)\n' },
      },
      { operation: 'insert_page', ref: 'install', title: 'Install', document: { markdown: 'Run **npm install**.\n' } },
    ]);
    expect(result.changes.map((c: any) => c.object)).toEqual(['created_page', 'created_page']);
    expect(result.insertedFiles).toHaveLength(1);
    expect(result.insertedFiles[0].dimensions).toEqual({ width: 1, height: 1 });
    const [introId, installId] = result.changes.map((c: any) => c.page.id);
    const fileId = result.insertedFiles[0].id;

    expect(await pageTree(space.id, token, first.id)).toEqual(['introduction: Introduction', 'install: Install']);
    const markdown = await pageMarkdown(space.id, introId, token, first.number);
    expect(markdown).toContain(`[install](/pages/${installId})`);
    expect(markdown).toContain(`![Logo](/files/${fileId})`);
    const asDocument = await api('GET', `/v1/spaces/${space.id}/change-requests/${first.id}/content/page/${introId}`, { token });
    expect(asDocument.status).toBe(200);
    expect(asDocument.body.document.object).toBe('document');

    const download = await fetchDownload(result.insertedFiles[0].downloadURL);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');

    const merged = await merge(space.id, first.id, token);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.result).toBe('merge');
    const spaceAfter = await api('GET', `/v1/spaces/${space.id}`, { token });
    expect(spaceAfter.body.revision).toBe(merged.body.revision);
    expect(spaceAfter.body.changeRequests).toBe(2);
    expect(spaceAfter.body.changeRequestsOpen).toBe(1);
    expect(await pageTree(space.id, token)).toEqual(['introduction: Introduction', 'install: Install']);
    const mergedCr = await api('GET', `/v1/spaces/${space.id}/change-requests/1`, { token });
    expect(mergedCr.body.status).toBe('merged');
    expect(mergedCr.body.revisionMerged).toBe(merged.body.revision);

    const stale = await api('GET', `/v1/spaces/${space.id}/change-requests/${second.id}`, { token });
    expect(stale.body.outdated).toBe(true);
    const updated = await api('POST', `/v1/spaces/${space.id}/change-requests/${second.id}/update`, { token });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.result).toBe('update');
    const fresh = await api('GET', `/v1/spaces/${space.id}/change-requests/${second.id}`, { token });
    expect(fresh.body.outdated).toBe(false);
    expect(fresh.body.revisionMergedAncestor).toBe(merged.body.revision);
    expect(await pageTree(space.id, token, second.id)).toEqual(['introduction: Introduction', 'install: Install']);
  });
});

async function fetchDownload(url: string) {
  const { exports } = await import('cloudflare:workers');
  return fetchWorker(url);
}
