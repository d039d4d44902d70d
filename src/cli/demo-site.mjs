// The demo docs site of `npm run dev`: once the local server answers, makes sure the demo
// organization has a published public site (a space with a first page, published through the API
// itself) and prints where a visitor reads it. Idempotent: an existing "Demo docs" site is reused.
import { DEV_URL } from './seed.mjs';

const TITLE = 'Demo docs';
const SPEC_SLUG = 'demo-api';

/** The demo OpenAPI spec, given as text (processed by the local queue consumer; no network needed). */
const DEMO_SPEC = `openapi: 3.1.0
info:
  title: Demo API
  version: 1.0.0
  description: A small API whose reference pages are computed from this document.
tags:
  - name: projects
    description: Projects group your work.
  - name: tasks
    description: Tasks belong to a project.
paths:
  /projects:
    get:
      tags: [projects]
      summary: List projects
      responses:
        '200':
          description: The projects
          content:
            application/json:
              schema:
                type: array
                items: { $ref: '#/components/schemas/Project' }
    post:
      tags: [projects]
      summary: Create a project
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Project' }
      responses:
        '201': { description: The project }
  /projects/{projectId}/tasks:
    get:
      tags: [tasks]
      summary: List the tasks of a project
      parameters:
        - { name: projectId, in: path, required: true, schema: { type: string } }
      responses:
        '200': { description: The tasks }
components:
  schemas:
    Project:
      type: object
      properties:
        id: { type: string }
        name: { type: string }
`;
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

/** Support conversations about two problems: ingested (again, idempotently) at each start, analysed by the local queue consumer. */
const DEMO_CONVERSATIONS = [
  ['demo-1', 'I never received the password reset email. I checked the spam folder too.'],
  ['demo-2', 'Why does the password reset link say it has expired? I clicked it right away.'],
  ['demo-3', 'The password reset email is not arriving, so I cannot log in.'],
  ['demo-4', 'Our custom domain still shows an SSL certificate error after two days.'],
  ['demo-5', 'How long does the SSL certificate for a custom domain take? It is still pending.'],
  ['demo-6', 'Thanks, the new search works great!'],
].map(([id, body]) => ({ id, subject: `Support ticket ${id}`, parts: [{ type: 'message', role: 'user', body }] }));

async function createDemoSite(token, organizationId) {
  const space = await call(token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Getting started' });
  const cr = await call(token, 'POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'First page' });
  await call(token, 'POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, {
    changes: [
      { operation: 'insert_page', title: 'Welcome', document: { markdown: '# Welcome\n\nThis page is published in the demo site.\n' } },
      // An API reference computed from the demo spec: one page per tag, operations and models.
      {
        operation: 'insert_page',
        title: 'API reference',
        computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: SPEC_SLUG } } }, props: { models: true } },
      },
    ],
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
    // Create-or-update: the same text again adds no version.
    await call(token, 'PUT', `/v1/orgs/${organizationId}/openapi/${SPEC_SLUG}`, { source: { text: DEMO_SPEC } });
    await call(token, 'PATCH', `/v1/orgs/${organizationId}/openapi/${SPEC_SLUG}`, { visibility: 'public' });
    await call(token, 'POST', `/v1/orgs/${organizationId}/conversations`, DEMO_CONVERSATIONS);
    const found = await call(token, 'GET', `/v1/orgs/${organizationId}/sites?title=${encodeURIComponent(TITLE)}&published=true`);
    const site = found.items[0] ?? (await createDemoSite(token, organizationId));
    console.log(`\nDemo site "${TITLE}" (public, published; no token needed):`);
    console.log(`  curl ${DEV_URL}/v1/orgs/${organizationId}/sites/${site.id}/published`);
    console.log(`Demo OpenAPI spec "${SPEC_SLUG}" (public; its raw document without a token, once processed):`);
    console.log(`  curl ${DEV_URL}/public/openapi/${organizationId}/${SPEC_SLUG}`);
    console.log(`Demo support conversations (${DEMO_CONVERSATIONS.length}, analysed in the background): their issue clusters with the token above:`);
    console.log(`  curl -H "Authorization: Bearer <token>" ${DEV_URL}/v1/orgs/${organizationId}/conversations-clusters\n`);
  } catch (error) {
    console.error(`demo site: ${error instanceof Error ? error.message : error}`);
  }
}
