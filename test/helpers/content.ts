import { expect } from 'vitest';
import { api, type ApiResponse } from './harness';

/** Helpers for content tests: change requests, content batches, merges. */

let uniqueCounter = 0;
/** Text no other test uses, so that its document is shared with nothing by accident (documents are shared by hash). */
export const uniqueText = (label: string) =>
  `${label} ${Date.now().toString(36)}-${(uniqueCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export async function createSpace(orgId: string, token: string, title = 'Docs'): Promise<any> {
  const res = await api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function openChangeRequest(spaceId: string, token: string, subject = 'Edits'): Promise<any> {
  const res = await api('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export function postChanges(spaceId: string, cr: string | number, token: string, changes: unknown[], compat?: boolean): Promise<ApiResponse> {
  const query = compat === undefined ? '' : `?compat=${compat}`;
  return api('POST', `/v1/spaces/${spaceId}/change-requests/${cr}/content${query}`, { token, body: { changes } });
}

export async function applyChanges(spaceId: string, cr: string | number, token: string, changes: unknown[]): Promise<any> {
  const res = await postChanges(spaceId, cr, token, changes, false);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function merge(spaceId: string, cr: string | number, token: string): Promise<ApiResponse> {
  return api('POST', `/v1/spaces/${spaceId}/change-requests/${cr}/merge`, { token });
}

/** A space's pages as `path: title` pairs, depth first: easy to compare whole trees. */
export async function pageTree(spaceId: string, token: string, cr?: string | number): Promise<string[]> {
  const base = cr === undefined ? `/v1/spaces/${spaceId}/content` : `/v1/spaces/${spaceId}/change-requests/${cr}/content`;
  const res = await api('GET', `${base}/pages`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const out: string[] = [];
  const walk = (pages: any[]) => {
    for (const page of pages) {
      out.push(`${page.path}: ${page.title}`);
      walk(page.pages);
    }
  };
  walk(res.body.pages);
  return out;
}

export async function pageMarkdown(spaceId: string, pageId: string, token: string, cr?: string | number): Promise<string> {
  const base = cr === undefined ? `/v1/spaces/${spaceId}/content` : `/v1/spaces/${spaceId}/change-requests/${cr}/content`;
  const res = await api('GET', `${base}/page/${pageId}?format=markdown`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.markdown;
}
