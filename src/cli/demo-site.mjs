// The demo docs site of `npm run dev`: once the local server answers, makes sure the demo
// organization has a published public site (a space with a first page, published through the API
// itself) and prints where a visitor reads it. Idempotent: an existing "Demo docs" site is reused.
import { DEV_URL } from './seed.mjs';

const TITLE = 'Demo docs';
const WAIT_MS = 90_000;

async function call(token, method, path, body) {
  const res = await fetch(`${DEV_URL}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body && { 'Content-Type': 'application/json' }) },
    body: body && JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function serverUp() {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${DEV_URL}/openapi.json`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function createDemoSite(token, organizationId) {
  const space = await call(token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Getting started' });
  const cr = await call(token, 'POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'First page' });
  await call(token, 'POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, {
    changes: [{ operation: 'insert_page', title: 'Welcome', document: { markdown: '# Welcome\n\nThis page is published in the demo site.\n' } }],
  });
  await call(token, 'POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`);
  const site = await call(token, 'POST', `/v1/orgs/${organizationId}/sites`, { title: TITLE, visibility: 'public', spaces: [space.id] });
  await call(token, 'POST', `/v1/orgs/${organizationId}/sites/${site.id}/publish`);
  return site;
}

/** Waits for the server, then finds or creates the demo site and prints its visitor URL. */
export async function ensureDemoSite({ token, organizationId }) {
  if (!(await serverUp())) {
    console.error(`demo site: the server did not answer on ${DEV_URL} within ${WAIT_MS / 1000} s; skipped`);
    return;
  }
  try {
    const found = await call(token, 'GET', `/v1/orgs/${organizationId}/sites?title=${encodeURIComponent(TITLE)}&published=true`);
    const site = found.items[0] ?? (await createDemoSite(token, organizationId));
    console.log(`\nDemo site "${TITLE}" (public, published; no token needed):`);
    console.log(`  curl ${DEV_URL}/v1/orgs/${organizationId}/sites/${site.id}/published\n`);
  } catch (error) {
    console.error(`demo site: ${error instanceof Error ? error.message : error}`);
  }
}
