import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { createApp } from '../../src/app';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, BASE, expectStatus, type TestOrg } from '../helpers/harness';
import { countingD1 } from '../helpers/round-trips';
import { fetchWorker } from '../helpers/worker';

/** Helpers of the published site's tests: sites seeded through the API, pages fetched as a browser would. */

export interface Visit {
  status: number;
  headers: Headers;
  text: string;
}

/** A GET of the Worker's real fetch handler, redirects not followed. */
export async function visit(path: string, headers: Record<string, string> = {}, base = BASE): Promise<Visit> {
  const res = await fetchWorker(new Request(`${base}${path}`, { headers, redirect: 'manual' }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const app = createApp();

/** A GET through the app with a D1 that counts round trips (after background work is done). */
export async function visitCounting(path: string, headers: Record<string, string> = {}): Promise<Visit & { roundTrips: number }> {
  const counter = countingD1(env.DB);
  const ctx = createExecutionContext();
  const res = await app.request(`${BASE}${path}`, { headers }, { ...env, DB: counter.db }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text, roundTrips: counter.count };
}

/** Publishes pages into a space through a change request; answers the created pages' ids by title. */
export async function publishPages(spaceId: string, token: string, changes: unknown[]): Promise<Record<string, string>> {
  const cr = await openChangeRequest(spaceId, token, 'Content');
  const applied = await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  // Created pages are answered in the order of the batch's insertions.
  const titles = (changes as Array<{ operation: string; title?: string }>).filter((c) => c.operation === 'insert_page').map((c) => c.title ?? '');
  const created = (applied.changes ?? []).filter((c: any) => c.object === 'created_page');
  return Object.fromEntries(created.map((c: any, i: number) => [titles[i], c.page.id]));
}

export async function spaceWithPages(org: TestOrg, title: string, changes: unknown[]) {
  const space = await createSpace(org.id, org.owner.token, title);
  const pages = await publishPages(space.id, org.owner.token, changes);
  return { id: space.id as string, pages };
}

export type Visibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth';

/** A site of `spaces` (site spaces at its root), published. */
export async function publishedSite(org: TestOrg, spaces: string[], visibility: Visibility = 'public', title = 'Acme Docs') {
  const token = org.owner.token;
  const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title, visibility, spaces } }), 201).body;
  expectStatus(await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/publish`, { token }), 200);
  return { id: site.id as string, basename: site.basename as string, path: `/v1/orgs/${org.id}/sites/${site.id}` };
}

/** The value of a cookie set by a response. */
export function setCookie(headers: Headers, name: string): string | undefined {
  const all = headers.getSetCookie?.() ?? [headers.get('Set-Cookie') ?? ''];
  return all.find((c) => c.startsWith(`${name}=`));
}

export function cookieValue(header: string | undefined): string {
  expect(header).toBeDefined();
  return header!.split(';')[0];
}

/** Text of an element matched by a regular expression's first group. */
export function grab(text: string, pattern: RegExp): string | undefined {
  return pattern.exec(text)?.[1];
}

/** The key of a share link, from its `urls.published` (`<site>/<key>/`, GitBook's form: the key as the last segment). */
export const shareKeyOf = (link: { urls: { published?: string } }) => decodeURIComponent(new URL(link.urls.published!).pathname.split('/').filter(Boolean).at(-1)!);
