import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { createDb } from '../../src/db/client';
import { requeueSpecJobs } from '../../src/jobs/cron';
import { newId, sha256Hex } from '../../src/lib/ids';
import { OutboundError, outboundFetch, setOutboundFetch } from '../../src/lib/outbound';
import { OPENAPI_PROCESS_JOB } from '../../src/services/openapi/jobs';
import { buildOutline, MAX_OUTLINE_BYTES } from '../../src/services/openapi/outline';
import { MAX_ERROR_MESSAGE, MAX_SPEC_DEPTH, MAX_SPEC_REFERENCES, MAX_STORED_ERRORS } from '../../src/services/openapi/parse';
import { INTERNAL_ERROR, MAX_PROCESS_ATTEMPTS, MAX_PROCESSING_CLAIMS, PROCESSING_LIMITS_MESSAGE, processSpec } from '../../src/services/openapi/process';
import { MAX_SPEC_FILES, SPEC_SOURCE_LIMITS } from '../../src/services/openapi/source';
import { sourceTextKey, specPrefix, versionFilesystemKey, versionListKey, versionRawKey } from '../../src/services/openapi/storage';
import { MAX_SPEC_SOURCE_BYTES } from '../../src/lib/openapi-specs';
import { MAX_OUTLINE_OPERATIONS, MAX_OUTLINE_TEXT, type SpecOutline } from '../../src/services/openapi/types';
import { seedOrg } from '../helpers/harness';
import { seedSpec } from '../helpers/openapi';
import petstoreExpandedJson from '../fixtures/openapi/petstore-expanded.json?raw';
import petstoreYaml from '../fixtures/openapi/petstore.yaml?raw';
import errorYaml from '../fixtures/openapi/petstore-separate/common/Error.yaml?raw';
import newPetYaml from '../fixtures/openapi/petstore-separate/spec/NewPet.yaml?raw';
import parametersYaml from '../fixtures/openapi/petstore-separate/spec/parameters.yaml?raw';
import petYaml from '../fixtures/openapi/petstore-separate/spec/Pet.yaml?raw';
import separateSwaggerYaml from '../fixtures/openapi/petstore-separate/spec/swagger.yaml?raw';
import swaggerPetstoreJson from '../fixtures/openapi/swagger-petstore.json?raw';

/** A file of a version's stored filesystem (GitBook's list). */
interface StoredFile {
  dir: string;
  isEntrypoint: boolean;
  references: string[];
  filename: string;
  specification: any;
}

/** A stored specification without the HTML its descriptions were given (services/openapi/filesystem). */
function stripDescriptionsHtml(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripDescriptionsHtml);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'x-gitbook-description-html').map(([key, value]) => [key, stripDescriptionsHtml(value)]));
}

const ORIGIN = 'https://specs.example.com';

let orgId: string;
beforeAll(async () => {
  orgId = (await seedOrg()).id;
});

afterEach(() => {
  setOutboundFetch();
});

type Route = string | ((request: Request) => Response | Promise<Response>);

/** Serves `routes` (full URLs) through the outbound guard's fetch; anything else is a 404. Returns the URLs asked for. */
function serve(routes: Record<string, Route>): string[] {
  const requests: string[] = [];
  setOutboundFetch(async (request) => {
    requests.push(request.url);
    const route = routes[request.url];
    if (route === undefined) return new Response('not found', { status: 404 });
    return typeof route === 'function' ? route(request) : new Response(route);
  });
  return requests;
}

/** One delivery of a processing message, as the queue makes it. */
async function deliver(specId: string, jobId: string, options: { attempts?: number; messageId?: string; bindings?: typeof env } = {}) {
  const messageId = options.messageId ?? `m-${jobId}`;
  const batch = createMessageBatch<unknown>('docs-platform-jobs', [
    { id: messageId, timestamp: new Date(), attempts: options.attempts ?? 1, body: { id: jobId, type: OPENAPI_PROCESS_JOB, payload: { specId } } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, options.bindings ?? env, ctx);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.includes(messageId), retried: result.retryMessages.some((m) => m.msgId === messageId) };
}

interface SpecRecord {
  processing_state: string;
  processing_job: string | null;
  queued_at: string | null;
  processing_attempts: number;
  last_version_id: string | null;
  last_processed_at: string | null;
  last_process_error_code: string | null;
  last_processed_errors: string | null;
  last_processed_error_count: number;
  updated_at: string;
}

async function specRow(id: string): Promise<SpecRecord> {
  return (await env.DB.prepare('select * from openapi_specs where id = ?').bind(id).first<SpecRecord>())!;
}

const errorsOf = (row: SpecRecord) => JSON.parse(row.last_processed_errors ?? 'null') as { message: string; code?: string }[] | null;

interface VersionRecord {
  id: string;
  hash: string;
  url: string | null;
  format: string;
  entry: string;
  outline: string;
  created_at: string;
}

async function versionsOf(specId: string): Promise<VersionRecord[]> {
  return (await env.DB.prepare('select * from openapi_spec_versions where spec_id = ? order by created_at, rowid').bind(specId).all<VersionRecord>()).results;
}

async function versionObjects(specId: string): Promise<string[]> {
  return (await env.FILES.list({ prefix: `${specPrefix(specId)}versions/` })).objects.map((o) => o.key).sort();
}

/** Gives the spec a new outstanding job, as an update of its source does (the URL stays; no claim of the job yet). */
async function requeue(specId: string): Promise<string> {
  const job = newId();
  await env.DB.prepare(`update openapi_specs set processing_job = ?, processing_state = 'pending', queued_at = ?, processing_attempts = 0 where id = ?`)
    .bind(job, new Date().toISOString(), specId)
    .run();
  return job;
}

/** Seeds a URL spec and processes its job; returns the spec and the delivery's outcome. */
async function processUrl(url: string, routes: Record<string, Route>) {
  const requests = serve(routes);
  const spec = await seedSpec(orgId, { url });
  const delivery = await deliver(spec.id, spec.job!);
  return { spec, delivery, requests, row: await specRow(spec.id), versions: await versionsOf(spec.id) };
}

const PETSTORE_OUTLINE: SpecOutline = {
  title: 'Swagger Petstore',
  version: '1.0.0',
  tags: [
    {
      name: 'pets',
      operations: [
        { path: '/pets', method: 'get', summary: 'List all pets', operationId: 'listPets' },
        { path: '/pets', method: 'post', summary: 'Create a pet', operationId: 'createPets' },
        { path: '/pets/{petId}', method: 'get', summary: 'Info for a specific pet', operationId: 'showPetById' },
      ],
    },
  ],
  schemas: ['Pet', 'Pets', 'Error'],
};

describe('processing a spec from a URL', () => {
  it('moves a YAML spec pending -> progress -> complete and stores one version: bundle, raw text, outline, hash', async () => {
    const url = `${ORIGIN}/v1/petstore.yaml`;
    const seen: string[] = [];
    let specId = '';
    const requests = serve({
      [url]: async () => {
        // While the source is being fetched, the record says so.
        seen.push((await specRow(specId)).processing_state);
        return new Response(petstoreYaml, { headers: { 'content-type': 'application/yaml' } });
      },
    });
    const spec = await seedSpec(orgId, { url });
    specId = spec.id;
    const before = await specRow(spec.id);
    expect(before).toMatchObject({ processing_state: 'pending', processing_job: spec.job, last_version_id: null, last_processed_at: null });

    expect(await deliver(spec.id, spec.job!)).toEqual({ acked: true, retried: false });
    expect(seen).toEqual(['progress']);
    expect(requests).toEqual([url]);

    const row = await specRow(spec.id);
    const [version, ...others] = await versionsOf(spec.id);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      processing_state: 'complete',
      processing_job: null,
      last_version_id: version.id,
      last_process_error_code: null,
      last_processed_errors: null,
      last_processed_error_count: 0,
    });
    expect(Date.parse(row.last_processed_at!)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(row.updated_at >= before.updated_at).toBe(true);
    expect(version).toMatchObject({ url, format: 'yaml', entry: 'petstore.yaml' });
    expect(JSON.parse(version.outline)).toEqual(PETSTORE_OUTLINE);

    // Stored as GitBook's filesystem list: one file, the entry, its descriptions with their HTML.
    const [stored, ...otherFiles] = (await (await env.FILES.get(versionListKey(spec.id, version.id)))!.json()) as StoredFile[];
    expect(otherFiles).toEqual([]);
    expect(stored).toMatchObject({ dir: './', isEntrypoint: true, references: [], filename: 'petstore.yaml' });
    const document = parseYaml(petstoreYaml);
    expect(stripDescriptionsHtml(stored.specification)).toEqual(document);
    expect(stored.specification.paths['/pets'].get.parameters[0]['x-gitbook-description-html']).toBe('<p>How many items to return at one time (max 100)</p>');
    // Its identity: what it is made of (the bundle's JSON, the raw bytes) and the source URL, together.
    const rawHash = await sha256Hex(new TextEncoder().encode(petstoreYaml));
    expect(version.hash).toBe(await sha256Hex(JSON.stringify([await sha256Hex(JSON.stringify({ 'petstore.yaml': document })), rawHash, url])));
    // The raw entry is stored byte for byte as fetched.
    expect(await (await env.FILES.get(versionRawKey(spec.id, version.id)))!.text()).toBe(petstoreYaml);
    // And the bundle itself, as releases before the list read it.
    expect(await (await env.FILES.get(versionFilesystemKey(spec.id, version.id)))!.json()).toEqual({ 'petstore.yaml': document });
    expect(await versionObjects(spec.id)).toEqual([versionFilesystemKey(spec.id, version.id), versionListKey(spec.id, version.id), versionRawKey(spec.id, version.id)].sort());
  });

  it('reads a JSON spec (OpenAPI 3.0 without tags: its operations gather under the empty tag)', async () => {
    const url = `${ORIGIN}/petstore-expanded.json`;
    const { delivery, row, versions } = await processUrl(url, { [url]: petstoreExpandedJson });
    expect(delivery.acked).toBe(true);
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: null, last_version_id: versions[0].id });
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ format: 'json', entry: 'petstore-expanded.json', url });
    const outline = JSON.parse(versions[0].outline) as SpecOutline;
    expect(outline).toEqual({
      title: 'Swagger Petstore',
      version: '1.0.0',
      description: 'A sample API that uses a petstore as an example to demonstrate features in the OpenAPI 3.0 specification',
      tags: [
        {
          name: '',
          operations: [
            { path: '/pets', method: 'get', operationId: 'findPets' },
            { path: '/pets', method: 'post', operationId: 'addPet' },
            { path: '/pets/{id}', method: 'get', operationId: 'find pet by id' },
            { path: '/pets/{id}', method: 'delete', operationId: 'deletePet' },
          ],
        },
      ],
      schemas: ['Pet', 'NewPet', 'Error'],
    });
  });

  it('reads a Swagger 2.0 spec, its schemas from `definitions`', async () => {
    const url = `${ORIGIN}/swagger/petstore.json`;
    const { row, versions } = await processUrl(url, { [url]: swaggerPetstoreJson });
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: null });
    expect(versions[0]).toMatchObject({ format: 'json', entry: 'petstore.json' });
    expect(JSON.parse(versions[0].outline)).toEqual({
      title: 'Swagger Petstore',
      version: '1.0.0',
      tags: [
        {
          name: 'pets',
          operations: [
            { path: '/pets', method: 'get', summary: 'List all pets', operationId: 'listPets' },
            { path: '/pets', method: 'post', summary: 'Create a pet', operationId: 'createPets' },
            { path: '/pets/{petId}', method: 'get', summary: 'Info for a specific pet', operationId: 'showPetById' },
          ],
        },
      ],
      schemas: ['Pet', 'Pets', 'Error'],
    });
  });

  it('fetches the files external $refs name (each once, relative to the file that names them) and bundles them under normalized names', async () => {
    const base = `${ORIGIN}/examples/petstore`;
    const url = `${base}/spec/swagger.yaml`;
    const { row, versions, requests, spec } = await processUrl(url, {
      [url]: separateSwaggerYaml,
      [`${base}/spec/parameters.yaml`]: parametersYaml,
      [`${base}/spec/Pet.yaml`]: petYaml,
      [`${base}/spec/NewPet.yaml`]: newPetYaml,
      [`${base}/common/Error.yaml`]: errorYaml,
    });
    expect(row, JSON.stringify(errorsOf(row))).toMatchObject({ processing_state: 'complete', last_process_error_code: null, last_version_id: versions[0].id });
    expect([...requests].sort()).toEqual(
      [url, `${base}/spec/parameters.yaml`, `${base}/spec/Pet.yaml`, `${base}/spec/NewPet.yaml`, `${base}/common/Error.yaml`].sort(),
    );
    expect(versions[0]).toMatchObject({ format: 'yaml', entry: 'swagger.yaml', url });

    // Stored as GitBook's filesystem list, the entry first.
    const stored = (await (await env.FILES.get(versionListKey(spec.id, versions[0].id)))!.json()) as StoredFile[];
    expect(stored.map((f) => [f.filename, f.isEntrypoint])).toEqual([
      ['swagger.yaml', true],
      ['parameters.yaml', false],
      ['Pet.yaml', false],
      ['../common/Error.yaml', false],
      ['NewPet.yaml', false],
    ]);
    expect(stored.every((f) => f.dir === './' && f.references.length === 0)).toBe(true);
    const filesystem = Object.fromEntries(stored.map((f) => [f.filename, stripDescriptionsHtml(f.specification)])) as Record<string, any>;
    const pets = filesystem['swagger.yaml'].paths['/pets'];
    expect(pets.get.parameters).toEqual([{ $ref: 'parameters.yaml#/tagsParam' }, { $ref: 'parameters.yaml#/limitsParam' }]);
    expect(pets.get.responses['200'].schema.items).toEqual({ $ref: 'Pet.yaml#' });
    expect(pets.get.responses.default.schema).toEqual({ $ref: '../common/Error.yaml#' });
    expect(filesystem['NewPet.yaml'].allOf[0]).toEqual({ $ref: 'Pet.yaml#' });
    // Files other than the entry are kept as they were, but for their references.
    expect(filesystem['Pet.yaml']).toEqual(parseYaml(petYaml));
    expect(filesystem['../common/Error.yaml']).toEqual(parseYaml(errorYaml));
    expect(await (await env.FILES.get(versionRawKey(spec.id, versions[0].id)))!.text()).toBe(separateSwaggerYaml);

    const outline = JSON.parse(versions[0].outline) as SpecOutline;
    expect(outline.tags.map((t) => [t.name, t.operations.map((o) => `${o.method} ${o.path} ${o.operationId}`)])).toEqual([
      ['', ['get /pets findPets', 'post /pets addPet', 'get /pets/{id} find pet by id', 'delete /pets/{id} deletePet']],
    ]);
  });

  it('refuses an external $ref to another origin, without fetching it', async () => {
    const url = `${ORIGIN}/multi/openapi.json`;
    const document = {
      openapi: '3.1.0',
      info: { title: 'Split', version: '1' },
      paths: { '/a': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: 'https://elsewhere.example.org/schemas.json#/A' } } } } } } } },
    };
    const { row, versions, requests } = await processUrl(url, { [url]: JSON.stringify(document), 'https://elsewhere.example.org/schemas.json': '{"A":{"type":"string"}}' });
    expect(requests).toEqual([url]);
    expect(versions).toEqual([]);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: 'FETCH_ERROR', last_processed_error_count: 1, last_version_id: null });
    const [error] = errorsOf(row)!;
    expect(error.code).toBe('FETCH_ERROR');
    expect(error.message).toContain('https://elsewhere.example.org/schemas.json#/A');
    expect(error.message).toContain(`is not ${ORIGIN}`);
    expect(error.message).toContain('/paths/~1a/get/responses/200/content/application~1json/schema/$ref of openapi.json');
  });

  it('leaves a $ref inside an example alone (data, not a reference)', async () => {
    const url = `${ORIGIN}/example-ref/openapi.yaml`;
    const text = [
      'openapi: 3.1.0',
      'info: {title: Examples, version: "1"}',
      'paths:',
      '  /a:',
      '    get:',
      '      responses:',
      "        '200':",
      '          description: ok',
      '          content:',
      '            application/json:',
      "              schema: {$ref: 'schemas.yaml#/A'}",
      "              example: {$ref: 'not-a-file.yaml'}",
    ].join('\n');
    const { row, versions, requests, spec } = await processUrl(url, { [url]: text, [`${ORIGIN}/example-ref/schemas.yaml`]: 'A: {type: object}' });
    expect(row.last_process_error_code, row.last_processed_errors ?? '').toBeNull();
    expect(requests).toEqual([url, `${ORIGIN}/example-ref/schemas.yaml`]);
    const [entry] = (await (await env.FILES.get(versionListKey(spec.id, versions[0].id)))!.json()) as StoredFile[];
    const media = entry.specification.paths['/a'].get.responses['200'].content['application/json'];
    expect(media).toEqual({ schema: { $ref: 'schemas.yaml#/A' }, example: { $ref: 'not-a-file.yaml' } });
  });

  it(`fetches at most ${MAX_SPEC_FILES} files`, async () => {
    const url = `${ORIGIN}/chain/0.json`;
    const routes: Record<string, Route> = {
      [url]: JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Chain', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: '1.json#/S' } } },
      }),
    };
    for (let i = 1; i <= MAX_SPEC_FILES; i++) routes[`${ORIGIN}/chain/${i}.json`] = JSON.stringify({ S: { type: 'object', properties: { next: { $ref: `${i + 1}.json#/S` } } } });
    const { row, requests } = await processUrl(url, routes);
    expect(requests).toHaveLength(MAX_SPEC_FILES);
    expect(row.last_process_error_code).toBe('FETCH_ERROR');
    expect(errorsOf(row)![0].message).toContain(`more than ${MAX_SPEC_FILES} files`);
  });
});

describe('source failures are recorded on the spec', () => {
  it('FETCH_TIMEOUT: the source did not answer within the limit', async () => {
    expect(SPEC_SOURCE_LIMITS.fileTimeoutMs).toBe(10_000);
    const url = `${ORIGIN}/slow/openapi.json`;
    serve({ [url]: () => new Promise<Response>(() => undefined) });
    const spec = await seedSpec(orgId, { url });
    expect(await processSpec(env, spec.id, spec.job!, { limits: { ...SPEC_SOURCE_LIMITS, fileTimeoutMs: 50 } })).toBe('failed');
    const row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: 'FETCH_TIMEOUT', last_processed_error_count: 1 });
    expect(row.last_processed_at).not.toBeNull();
    expect(errorsOf(row)).toEqual([{ message: `url: ${url} did not answer within 0.05 s`, code: 'FETCH_TIMEOUT' }]);
  });

  it('FETCH_ERROR: a source answering 500', async () => {
    const url = `${ORIGIN}/broken/openapi.json`;
    const { row, versions, delivery } = await processUrl(url, { [url]: () => new Response('oops', { status: 500 }) });
    expect(delivery).toEqual({ acked: true, retried: false });
    expect(versions).toEqual([]);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: 'FETCH_ERROR', last_processed_error_count: 1 });
    expect(errorsOf(row)).toEqual([{ message: `${url} answered 500`, code: 'FETCH_ERROR' }]);
  });

  it('FETCH_ERROR: a host name that does not resolve is named as such (workerd says only "internal error")', async () => {
    const url = 'http://nonexistent.invalid/openapi.json';
    const { row } = await processUrl(url, {
      [url]: () => {
        throw new Error('internal error; reference = 6rq5fmk1kf1ed67p8e18lj6g');
      },
    });
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: 'FETCH_ERROR', last_processed_error_count: 1 });
    expect(errorsOf(row)).toEqual([{ message: `url: ${url} could not be fetched: the host name nonexistent.invalid did not resolve (DNS)`, code: 'FETCH_ERROR' }]);
  });

  it('FETCH_ERROR: a redirect to a private address is refused before it is followed', async () => {
    const url = `${ORIGIN}/redirect/openapi.json`;
    const { row, requests } = await processUrl(url, { [url]: () => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }) });
    expect(requests).toEqual([url]);
    expect(row.last_process_error_code).toBe('FETCH_ERROR');
    const [error] = errorsOf(row)!;
    expect(error.message).toContain('http://169.254.169.254/latest/meta-data/ is refused');
    expect(error.message).toContain('link-local');
  });

  it('FETCH_ERROR: a referenced file redirecting to another origin is refused before that origin is requested', async () => {
    const url = `${ORIGIN}/hop/openapi.yaml`;
    const text = ['openapi: 3.1.0', 'info: {title: Hops, version: "1"}', 'paths: {}', 'components:', '  schemas:', "    Pet: {$ref: 'schemas/pet.yaml'}", "    Moved: {$ref: 'schemas/moved.yaml'}"].join('\n');
    const redirect = (location: string) => () => new Response(null, { status: 302, headers: { location } });
    const { row, requests, versions } = await processUrl(url, {
      [url]: text,
      // A redirect on the same origin is followed...
      [`${ORIGIN}/hop/schemas/pet.yaml`]: redirect(`${ORIGIN}/v2/pet.yaml`),
      [`${ORIGIN}/v2/pet.yaml`]: 'type: object',
      // ...one to another origin is not.
      [`${ORIGIN}/hop/schemas/moved.yaml`]: redirect('https://cdn.example.net/moved.yaml'),
      'https://cdn.example.net/moved.yaml': 'type: string',
    });
    expect(requests).toEqual([url, `${ORIGIN}/hop/schemas/pet.yaml`, `${ORIGIN}/v2/pet.yaml`, `${ORIGIN}/hop/schemas/moved.yaml`]);
    expect(versions).toEqual([]);
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: 'FETCH_ERROR', last_processed_error_count: 1 });
    const [error] = errorsOf(row)!;
    expect(error.message).toContain(`(redirected from ${ORIGIN}/hop/schemas/moved.yaml): https://cdn.example.net/moved.yaml is refused: it is not on ${ORIGIN}`);
  });

  it("the guard's allowHop is asked before every request, the first one included", async () => {
    const first = 'https://a.example.com/spec.json';
    const second = 'https://b.example.com/spec.json';
    const requests = serve({ [first]: () => new Response(null, { status: 307, headers: { location: second } }), [second]: 'ok' });
    const refused = outboundFetch(env, first, {}, { allowHop: (hop) => (hop.hostname === 'a.example.com' ? 'not this one' : null) });
    await expect(refused).rejects.toBeInstanceOf(OutboundError);
    await expect(refused).rejects.toMatchObject({ reason: 'refused', message: `url: ${first} is refused: not this one` });
    expect(requests).toEqual([]);

    const asked: string[] = [];
    const response = await outboundFetch(env, first, {}, { allowHop: (hop) => (asked.push(hop.href), null) });
    expect(response.text()).toBe('ok');
    expect(asked).toEqual([first, second]);
    expect(requests).toEqual([first, second]);
  });

  it(`stores each message cut to ${MAX_ERROR_MESSAGE} characters`, async () => {
    expect(MAX_ERROR_MESSAGE).toBe(500);
    const url = `${ORIGIN}/long/${'a'.repeat(800)}.json`;
    const { row } = await processUrl(url, { [url]: () => new Response('oops', { status: 500 }) });
    const [error] = errorsOf(row)!;
    expect(error.message).toHaveLength(MAX_ERROR_MESSAGE);
    expect(error.message).toBe(`${url} answered 500`.slice(0, MAX_ERROR_MESSAGE - 1) + '…');
  });

  it('FETCH_ERROR: a source larger than the cap', async () => {
    const url = `${ORIGIN}/huge/openapi.json`;
    const huge = `{"openapi":"3.1.0","info":{"title":"${'x'.repeat(MAX_SPEC_SOURCE_BYTES)}","version":"1"},"paths":{}}`;
    const { row, versions } = await processUrl(url, { [url]: huge });
    expect(versions).toEqual([]);
    expect(row.last_process_error_code).toBe('FETCH_ERROR');
    expect(errorsOf(row)![0].message).toBe(`url: ${url} answered more than ${MAX_SPEC_SOURCE_BYTES} bytes`);
  });

  it('PARSE_ERROR: an invalid document, with the validator messages and their JSON pointers', async () => {
    const url = `${ORIGIN}/invalid/openapi.json`;
    const document = { openapi: '3.1.0', info: { title: 5, version: '1' }, paths: { '/pets': { get: { responses: 'none' } } } };
    const { row, versions } = await processUrl(url, { [url]: JSON.stringify(document) });
    expect(versions).toEqual([]);
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: 'PARSE_ERROR', last_processed_error_count: 2 });
    expect(errorsOf(row)).toEqual([
      { message: '/info/title: Instance type "number" is invalid. Expected "string".', code: 'PARSE_ERROR' },
      { message: '/paths/~1pets/get/responses: Instance type "string" is invalid. Expected "object".', code: 'PARSE_ERROR' },
    ]);
  });

  it('PARSE_ERROR: semantic errors (pointer from a path array), at most 20 stored with the total count', async () => {
    const url = `${ORIGIN}/many-errors/openapi.yaml`;
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 25; i++) paths[`/p${i}/{id}`] = { get: { responses: { '200': { description: 'ok' } } } };
    const { row } = await processUrl(url, { [url]: JSON.stringify({ openapi: '3.0.3', info: { title: 'Many', version: '1' }, paths }) });
    expect(row.last_process_error_code).toBe('PARSE_ERROR');
    expect(row.last_processed_error_count).toBe(25);
    const errors = errorsOf(row)!;
    expect(errors).toHaveLength(MAX_STORED_ERRORS);
    expect(errors[0]).toEqual({
      message: '/paths/~1p0~1{id}/get: Declared path parameter "id" needs to be defined as a path parameter at either the path or operation level',
      code: 'PARSE_ERROR',
    });
  });

  it('PARSE_ERROR: neither JSON nor YAML, an HTML page, not an OpenAPI document, an unsupported version', async () => {
    const cases: [string, string][] = [
      ['{"openapi": "3.1.0", "info": ', 'is neither JSON nor YAML'],
      ['<!doctype html><html><body>Sign in</body></html>', 'is not an OpenAPI document'],
      ['hello: world', 'is not an OpenAPI document'],
      ['openapi: 3.2.0\ninfo: {title: New, version: "1"}\npaths: {}', 'only OpenAPI 3.0, 3.1 and Swagger 2.0 are supported'],
    ];
    for (const [text, expected] of cases) {
      const url = `${ORIGIN}/parse/${newId()}.yaml`;
      const { row } = await processUrl(url, { [url]: text });
      expect(row.last_process_error_code, text).toBe('PARSE_ERROR');
      expect(errorsOf(row)![0].message, text).toContain(expected);
    }
  });

  it('PARSE_ERROR: YAML aliases that would expand past the bound', async () => {
    const url = `${ORIGIN}/aliases/openapi.yaml`;
    const big = 'x'.repeat(200_000);
    const lines = ['openapi: 3.1.0', 'info: {title: Aliases, version: "1"}', 'paths: {}', `x-big: &big "${big}"`, 'x-copies:'];
    for (let i = 0; i < 60; i++) lines.push('  - *big');
    const { row } = await processUrl(url, { [url]: lines.join('\n') });
    expect(row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(row)![0].message).toContain('aliases expand it beyond');
  });
});

describe('versions', () => {
  it('adds no version for the same source again; the same document as JSON instead of YAML, or from another URL, is a new version', async () => {
    const url = `${ORIGIN}/same/openapi.yaml`;
    const { spec, versions } = await processUrl(url, { [url]: petstoreYaml });
    expect(versions).toHaveLength(1);
    const first = await specRow(spec.id);

    // The same bytes from the same URL: the same version.
    serve({ [url]: petstoreYaml });
    expect(await deliver(spec.id, await requeue(spec.id))).toEqual({ acked: true, retried: false });
    expect(await versionsOf(spec.id)).toEqual(versions);
    const row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_version_id: versions[0].id, last_process_error_code: null });
    expect(row.last_processed_at! >= first.last_processed_at!).toBe(true);
    expect(await versionObjects(spec.id)).toHaveLength(3);

    // The same document written as JSON: the same bundle, but its raw text (and format) are what readers get.
    const json = JSON.stringify(parseYaml(petstoreYaml), null, 2);
    serve({ [url]: json });
    expect(await deliver(spec.id, await requeue(spec.id))).toEqual({ acked: true, retried: false });
    const [, asJson, ...none] = await versionsOf(spec.id);
    expect(none).toEqual([]);
    expect(asJson).toMatchObject({ format: 'json', url, entry: 'openapi.yaml' });
    expect((await specRow(spec.id)).last_version_id).toBe(asJson.id);
    expect(await (await env.FILES.get(versionRawKey(spec.id, asJson.id)))!.text()).toBe(json);

    // The same bytes from another URL: the version's url is the new one.
    const moved = `${ORIGIN}/moved/openapi.yaml`;
    await env.DB.prepare('update openapi_specs set source_url = ? where id = ?').bind(moved, spec.id).run();
    serve({ [moved]: json });
    expect(await deliver(spec.id, await requeue(spec.id))).toEqual({ acked: true, retried: false });
    const all = await versionsOf(spec.id);
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ format: 'json', url: moved });
    expect((await specRow(spec.id)).last_version_id).toBe(all[2].id);
  });

  it('A -> B -> A gives three versions (compared with the latest only)', async () => {
    const url = `${ORIGIN}/aba/openapi.json`;
    const a = swaggerPetstoreJson;
    const b = petstoreExpandedJson;
    const { spec } = await processUrl(url, { [url]: a });
    for (const text of [b, a]) {
      serve({ [url]: text });
      expect((await deliver(spec.id, await requeue(spec.id))).acked).toBe(true);
    }
    const versions = await versionsOf(spec.id);
    expect(versions).toHaveLength(3);
    expect(versions[0].hash).toBe(versions[2].hash);
    expect(versions[1].hash).not.toBe(versions[0].hash);
    expect(new Set(versions.map((v) => v.id)).size).toBe(3);
    expect((await specRow(spec.id)).last_version_id).toBe(versions[2].id);
    expect(await versionObjects(spec.id)).toHaveLength(9);
  });

  it('a failed fetch keeps the last good version; the next success clears the error', async () => {
    const url = `${ORIGIN}/flaky/openapi.yaml`;
    const { spec, versions } = await processUrl(url, { [url]: petstoreYaml });
    serve({ [url]: () => new Response('down', { status: 503 }) });
    expect((await deliver(spec.id, await requeue(spec.id))).acked).toBe(true);
    let row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', last_version_id: versions[0].id, last_process_error_code: 'FETCH_ERROR', last_processed_error_count: 1 });
    expect(await versionsOf(spec.id)).toEqual(versions);

    serve({ [url]: petstoreYaml });
    expect((await deliver(spec.id, await requeue(spec.id))).acked).toBe(true);
    row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', last_version_id: versions[0].id, last_process_error_code: null, last_processed_errors: null, last_processed_error_count: 0 });
  });

  it('a message delivered twice processes once', async () => {
    const url = `${ORIGIN}/twice/openapi.yaml`;
    const requests = serve({ [url]: petstoreYaml });
    const spec = await seedSpec(orgId, { url });
    expect(await deliver(spec.id, spec.job!, { messageId: 'first' })).toEqual({ acked: true, retried: false });
    const after = await specRow(spec.id);
    expect(await deliver(spec.id, spec.job!, { messageId: 'again', attempts: 2 })).toEqual({ acked: true, retried: false });
    expect(requests).toEqual([url]);
    expect(await versionsOf(spec.id)).toHaveLength(1);
    expect(await specRow(spec.id)).toEqual(after);
    expect(after).toMatchObject({ processing_state: 'complete', processing_job: null });
  });

  it('a message whose job was superseded does nothing', async () => {
    const url = `${ORIGIN}/superseded/openapi.yaml`;
    const requests = serve({ [url]: petstoreYaml });
    const spec = await seedSpec(orgId, { url });
    const before = await specRow(spec.id);
    expect(await deliver(spec.id, 'an-older-job')).toEqual({ acked: true, retried: false });
    expect(requests).toEqual([]);
    expect(await specRow(spec.id)).toEqual(before);
    expect(await versionsOf(spec.id)).toEqual([]);
    // A message for a spec that no longer exists is acked too.
    expect(await deliver('no-such-spec', spec.job!)).toEqual({ acked: true, retried: false });
  });

  it('a spec updated while its source was being processed keeps the new job, and the version written is removed', async () => {
    const url = `${ORIGIN}/raced/openapi.yaml`;
    let specId = '';
    const newer = newId();
    serve({
      [url]: async () => {
        // An update of the source lands while this job is at work.
        await env.DB.prepare(`update openapi_specs set processing_job = ?, processing_state = 'pending' where id = ?`).bind(newer, specId).run();
        return new Response(petstoreYaml);
      },
    });
    const spec = await seedSpec(orgId, { url });
    specId = spec.id;
    expect(await processSpec(env, spec.id, spec.job!)).toBe('skipped');
    expect(await versionsOf(spec.id)).toEqual([]);
    expect(await versionObjects(spec.id)).toEqual([]);
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'pending', processing_job: newer, last_version_id: null });
  });
});

describe('text sources', () => {
  it('processes a JSON text (entry openapi.json, no URL) and a YAML text (openapi.yaml) without fetching', async () => {
    const requests = serve({});
    for (const [text, format] of [
      [petstoreExpandedJson, 'json'],
      [petstoreYaml, 'yaml'],
    ] as const) {
      const spec = await seedSpec(orgId, { text });
      expect(await deliver(spec.id, spec.job!)).toEqual({ acked: true, retried: false });
      const [version, ...others] = await versionsOf(spec.id);
      expect(others).toEqual([]);
      expect(version).toMatchObject({ url: null, format, entry: `openapi.${format}` });
      expect(await specRow(spec.id)).toMatchObject({ processing_state: 'complete', last_version_id: version.id, last_process_error_code: null });
      expect(await (await env.FILES.get(versionRawKey(spec.id, version.id)))!.text()).toBe(text);
    }
    expect(requests).toEqual([]);
  });

  it('PARSE_ERROR: external references of a text source cannot be resolved', async () => {
    const requests = serve({});
    const text = ['swagger: "2.0"', 'info: {title: Split, version: "1"}', 'paths:', '  /pets:', '    get:', '      responses:', "        '200': {description: ok, schema: {$ref: 'Pet.yaml'}}"].join('\n');
    const spec = await seedSpec(orgId, { text });
    expect((await deliver(spec.id, spec.job!)).acked).toBe(true);
    const row = await specRow(spec.id);
    expect(requests).toEqual([]);
    expect(row).toMatchObject({ processing_state: 'complete', last_process_error_code: 'PARSE_ERROR', last_version_id: null });
    expect(errorsOf(row)![0].message).toContain('/paths/~1pets/get/responses/200/schema/$ref: the external reference Pet.yaml cannot be resolved for a text source');
  });
});

describe('a text source missing from R2', () => {
  it('is skipped when an update replaced (and removed) it after the job was claimed', async () => {
    const spec = await seedSpec(orgId, { text: petstoreYaml });
    const newer = newId();
    const racing = {
      ...env,
      FILES: new Proxy(env.FILES, {
        get(target, name) {
          if (name === 'get') {
            return async (key: string) => {
              // An update of the source lands between the claim and the read: it names a new job, then removes the text it replaced.
              await env.FILES.put(sourceTextKey(spec.id, newer), swaggerPetstoreJson);
              await env.DB.prepare(`update openapi_specs set processing_job = ?, processing_state = 'pending', processing_attempts = 0, source_text_key = ? where id = ?`)
                .bind(newer, sourceTextKey(spec.id, newer), spec.id)
                .run();
              await target.delete(key);
              return target.get(key);
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    } as typeof env;
    expect(await processSpec(racing, spec.id, spec.job!)).toBe('skipped');
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'pending', processing_job: newer, processing_attempts: 0, last_process_error_code: null, last_version_id: null });
    expect(await deliver(spec.id, newer)).toEqual({ acked: true, retried: false });
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: null });
  });

  it('is a failure of ours (retried) while the spec still names the job', async () => {
    const spec = await seedSpec(orgId, { text: petstoreYaml });
    await env.FILES.delete(sourceTextKey(spec.id, spec.job!));
    expect(await deliver(spec.id, spec.job!)).toEqual({ acked: false, retried: true });
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'pending', processing_job: spec.job, processing_attempts: 0, last_process_error_code: null });
  });
});

describe('failures of ours', () => {
  /** The bindings with an R2 bucket whose writes fail. */
  const brokenFiles = () =>
    ({
      ...env,
      FILES: new Proxy(env.FILES, {
        get(target, name) {
          if (name === 'put') return async () => Promise.reject(new Error('R2 is down'));
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    }) as typeof env;

  it('are retried, the spec pending again meanwhile; the last attempt records INTERNAL_ERROR and keeps the last version', async () => {
    const url = `${ORIGIN}/ours/openapi.yaml`;
    const { spec, versions } = await processUrl(url, { [url]: swaggerPetstoreJson });
    serve({ [url]: petstoreYaml });
    const job = await requeue(spec.id);
    await env.DB.prepare('update openapi_specs set queued_at = ? where id = ?').bind(new Date(Date.now() - 60 * 60_000).toISOString(), spec.id).run();

    // Every attempt but the last: pending again, and its claim given back (it ended: it was not cut short).
    for (let attempts = 1; attempts < MAX_PROCESS_ATTEMPTS; attempts++) {
      expect(await deliver(spec.id, job, { bindings: brokenFiles(), attempts })).toEqual({ acked: false, retried: true });
      const row = await specRow(spec.id);
      expect(row).toMatchObject({ processing_state: 'pending', processing_job: job, processing_attempts: 0, last_version_id: versions[0].id, last_process_error_code: null });
      expect(Date.now() - Date.parse(row.queued_at!)).toBeLessThan(60_000);
    }
    expect(MAX_PROCESS_ATTEMPTS).toBeGreaterThan(MAX_PROCESSING_CLAIMS);

    expect(await deliver(spec.id, job, { bindings: brokenFiles(), attempts: MAX_PROCESS_ATTEMPTS })).toEqual({ acked: false, retried: true });
    const row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_version_id: versions[0].id, last_process_error_code: INTERNAL_ERROR, last_processed_error_count: 1 });
    expect(errorsOf(row)![0].code).toBe(INTERNAL_ERROR);
    expect(await versionsOf(spec.id)).toEqual(versions);
    expect(await versionObjects(spec.id)).toHaveLength(3);
  });
});

/** A text spec, processed: its record afterwards. */
async function processText(text: string, bindings?: typeof env) {
  const spec = await seedSpec(orgId, { text });
  const delivery = await deliver(spec.id, spec.job!, { bindings });
  return { spec, delivery, row: await specRow(spec.id), versions: await versionsOf(spec.id) };
}

describe("work cut short by the Worker's limits", () => {
  it('a claim sets queued_at to its own time and counts itself, so the cron leaves a running job alone', async () => {
    const url = `${ORIGIN}/claimed/openapi.yaml`;
    let specId = '';
    const seen: SpecRecord[] = [];
    const cronSent: { payload: { specId: string } }[] = [];
    serve({
      [url]: async () => {
        seen.push(await specRow(specId));
        // The hourly cron runs while the job is at work.
        const queue = { send: async () => undefined, sendBatch: async (messages: { body: unknown }[]) => void cronSent.push(...(messages.map((m) => m.body) as typeof cronSent)) };
        await requeueSpecJobs({ ...env, JOBS: queue as unknown as Queue<unknown> }, createDb(env.DB), Date.now());
        seen.push(await specRow(specId));
        return new Response(petstoreYaml);
      },
    });
    const spec = await seedSpec(orgId, { url });
    specId = spec.id;
    // Its message waited in the queue for 20 minutes before a consumer took it.
    await env.DB.prepare('update openapi_specs set queued_at = ? where id = ?').bind(new Date(Date.now() - 20 * 60_000).toISOString(), spec.id).run();
    const before = new Date().toISOString();
    expect(await deliver(spec.id, spec.job!)).toEqual({ acked: true, retried: false });

    expect(seen[0]).toMatchObject({ processing_state: 'progress', processing_job: spec.job, processing_attempts: 1 });
    expect(seen[0].queued_at! >= before).toBe(true);
    expect(seen[1]).toEqual(seen[0]);
    expect(cronSent.filter((m) => m.payload.specId === spec.id)).toEqual([]);
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: null });
  });

  it(`a job whose ${MAX_PROCESSING_CLAIMS} claims were cut short is recorded as failed at the next one, without processing it; the last version stays`, async () => {
    const url = `${ORIGIN}/killer/openapi.yaml`;
    const { spec, versions } = await processUrl(url, { [url]: petstoreYaml });
    const requests = serve({ [url]: swaggerPetstoreJson });
    const job = await requeue(spec.id);
    // What claims that never ended leave (their isolate killed by the CPU or memory limit: no catch block ran).
    await env.DB.prepare(`update openapi_specs set processing_state = 'progress', processing_attempts = ? where id = ?`).bind(MAX_PROCESSING_CLAIMS, spec.id).run();

    expect(await deliver(spec.id, job, { attempts: MAX_PROCESSING_CLAIMS + 1 })).toEqual({ acked: true, retried: false });
    expect(requests).toEqual([]);
    const row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_version_id: versions[0].id, last_process_error_code: 'PARSE_ERROR', last_processed_error_count: 1 });
    expect(errorsOf(row)).toEqual([{ message: PROCESSING_LIMITS_MESSAGE, code: 'PARSE_ERROR' }]);
    expect(PROCESSING_LIMITS_MESSAGE).toContain("could not be processed within the Worker's limits (it is too large or too complex)");
    expect(await versionsOf(spec.id)).toEqual(versions);
    // Its message again (a redelivery): nothing more.
    expect(await deliver(spec.id, job)).toEqual({ acked: true, retried: false });
    expect(await specRow(spec.id)).toEqual(row);
  });

  it('a job with one claim fewer cut short is still processed', async () => {
    const url = `${ORIGIN}/survivor/openapi.yaml`;
    serve({ [url]: petstoreYaml });
    const spec = await seedSpec(orgId, { url, state: 'progress', attempts: MAX_PROCESSING_CLAIMS - 1 });
    expect(await deliver(spec.id, spec.job!)).toEqual({ acked: true, retried: false });
    const [version] = await versionsOf(spec.id);
    expect(await specRow(spec.id)).toMatchObject({ processing_state: 'complete', processing_job: null, last_version_id: version.id, last_process_error_code: null });
  });
});

describe('bounds on the documents (checked before validation)', () => {
  const deepArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  /** A valid document with `value` as an extension: data, which is walked for its depth all the same. */
  const withExtension = (value: string) => `{"openapi":"3.1.0","info":{"title":"Deep","version":"1"},"paths":{},"x-deep":${value}}`;

  it(`PARSE_ERROR, not retried: objects and arrays nested deeper than ${MAX_SPEC_DEPTH} levels (4000 nested arrays, 8 KB)`, async () => {
    expect(MAX_SPEC_DEPTH).toBe(500);
    for (const text of [withExtension(deepArrays(4000)), deepArrays(4000)]) {
      const { delivery, row, versions } = await processText(text);
      expect(delivery).toEqual({ acked: true, retried: false });
      expect(versions).toEqual([]);
      expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: 'PARSE_ERROR', last_processed_error_count: 1 });
      expect(errorsOf(row)![0].message).toMatch(new RegExp(`^The source text nests objects and arrays deeper than ${MAX_SPEC_DEPTH} levels, the most that is processed \\(at /`));
    }
  });

  it(`processes ${MAX_SPEC_DEPTH} levels exactly, and refuses one more`, async () => {
    // The document is level 1, its `x-deep` array level 2.
    const atBound = await processText(withExtension(deepArrays(MAX_SPEC_DEPTH - 1)));
    expect(atBound.row, JSON.stringify(errorsOf(atBound.row))).toMatchObject({ processing_state: 'complete', last_process_error_code: null, last_version_id: atBound.versions[0].id });
    const past = await processText(withExtension(deepArrays(MAX_SPEC_DEPTH)));
    expect(past.row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(past.row)![0].message).toContain(`deeper than ${MAX_SPEC_DEPTH} levels`);
  });

  it('counts the depth of YAML with its aliases expanded', async () => {
    const lines = ['openapi: 3.1.0', 'info: {title: Chain, version: "1"}', 'paths: {}', 'x-chain:', '  a0: &a0 [leaf]'];
    for (let i = 1; i <= MAX_SPEC_DEPTH; i++) lines.push(`  a${i}: &a${i} [*a${i - 1}]`);
    const { row } = await processText(lines.join('\n'));
    expect(row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(row)![0].message).toMatch(/^The source text is YAML that cannot be read: it nests objects and arrays deeper than 500 levels at line \d+, column \d+, aliases expanded/);
  });

  it('RangeError while the source is prepared (a limit of the runtime, met by the document): PARSE_ERROR, not retried', async () => {
    const failing = {
      ...env,
      FILES: new Proxy(env.FILES, {
        get(target, name) {
          if (name === 'get') return async () => ({ arrayBuffer: async () => Promise.reject(new RangeError('Array buffer allocation failed')) });
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    } as typeof env;
    const { delivery, row } = await processText(petstoreYaml, failing);
    expect(delivery).toEqual({ acked: true, retried: false });
    expect(row).toMatchObject({ processing_state: 'complete', processing_job: null, last_process_error_code: 'PARSE_ERROR' });
    expect(errorsOf(row)![0].message).toContain('Array buffer allocation failed');
  });

  /** A valid document with `count` references (to one schema); `target` is what reference `i` names. */
  const withReferences = (count: number, target = (_i: number) => '#/components/schemas/A') => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) properties[`p${i}`] = { $ref: target(i) };
    return JSON.stringify({ openapi: '3.1.0', info: { title: 'Refs', version: '1' }, paths: {}, components: { schemas: { A: { type: 'string' }, B: { type: 'object', properties } } } });
  };

  it(`PARSE_ERROR: more than ${MAX_SPEC_REFERENCES} references; exactly that many are processed`, async () => {
    expect(MAX_SPEC_REFERENCES).toBe(20_000);
    const atBound = await processText(withReferences(MAX_SPEC_REFERENCES));
    expect(atBound.row, JSON.stringify(errorsOf(atBound.row))).toMatchObject({ processing_state: 'complete', last_process_error_code: null });
    const past = await processText(withReferences(MAX_SPEC_REFERENCES + 1));
    expect(past.row).toMatchObject({ processing_state: 'complete', last_process_error_code: 'PARSE_ERROR', last_processed_error_count: 1 });
    expect(errorsOf(past.row)![0].message).toBe(
      `The spec has more than ${MAX_SPEC_REFERENCES} references ($ref) in all its files, the most that is processed (the bound is passed in The source text)`,
    );
  });

  it("counts the references of all the spec's files together", async () => {
    const url = `${ORIGIN}/refs/openapi.json`;
    const entry = JSON.parse(withReferences(MAX_SPEC_REFERENCES - 1));
    entry.components.schemas.C = { $ref: 'schemas.json#/A' };
    const { row, requests } = await processUrl(url, { [url]: JSON.stringify(entry), [`${ORIGIN}/refs/schemas.json`]: JSON.stringify({ A: { $ref: '#/B' }, B: { type: 'string' } }) });
    expect(requests).toHaveLength(2);
    expect(row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(row)![0].message).toContain(`more than ${MAX_SPEC_REFERENCES} references ($ref) in all its files, the most that is processed (the bound is passed in schemas.json)`);
  });

  // A thousand is fifty times what is kept: every one is still counted. The bound itself (MAX_SPEC_REFERENCES of them)
  // is the tests' above; as many broken ones took this test 99 s on a loaded machine, past its timeout.
  const BROKEN = 1_000;
  it(`reports ${BROKEN} broken references (each counted, at most 20 kept)`, async () => {
    // Each names another missing schema (the validator reports a message once, however often it comes).
    const { row } = await processText(withReferences(BROKEN, (i) => `#/components/schemas/Missing${i}`));
    expect(row, JSON.stringify(errorsOf(row))).toMatchObject({ last_process_error_code: 'PARSE_ERROR', last_processed_error_count: BROKEN });
    expect(errorsOf(row)).toHaveLength(20);
  });

  // yaml's own duplicate check (`uniqueKeys`) compares each key with every earlier one (about 10 s for these
  // 40,000 keys); parse.ts checks them with a set per mapping. Speed is the bench's to measure, not a test's.
  it('reads a YAML mapping of 40,000 keys, and still refuses a duplicate key, naming its line', async () => {
    const lines = ['openapi: 3.1.0', 'info: {title: Many keys, version: "1"}', 'paths: {}', 'x-many:'];
    for (let i = 0; i < 40_000; i++) lines.push(`  k${i}: ${i}`);
    const unique = await processText(lines.join('\n'));
    expect(unique.row, JSON.stringify(errorsOf(unique.row))).toMatchObject({ processing_state: 'complete', last_process_error_code: null });

    lines.push('  k0: again');
    const repeated = await processText(lines.join('\n'));
    expect(repeated.row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(repeated.row)![0].message).toBe(`The source text is YAML that cannot be read: Map keys must be unique: "k0" is repeated at line ${lines.length}, column 3`);
  });

  it('reads YAML naming one anchor more than 100 times (aliases are bounded by their expanded size), and refuses an alias naming its ancestor', async () => {
    const lines = ['openapi: 3.1.0', 'info: {title: Aliases, version: "1"}', 'x-ok: &ok {description: OK}', 'paths:'];
    for (let i = 0; i < 150; i++) lines.push(`  /r${i}:`, '    get:', `      operationId: op${i}`, '      responses:', "        '200': *ok");
    const { row, versions } = await processText(lines.join('\n'));
    expect(row, JSON.stringify(errorsOf(row))).toMatchObject({ processing_state: 'complete', last_process_error_code: null });
    expect((JSON.parse(versions[0].outline) as SpecOutline).tags[0].operations).toHaveLength(150);

    const cycle = await processText(['openapi: 3.1.0', 'info: {title: Cycle, version: "1"}', 'paths: {}', 'x-loop: &loop', '  again: *loop'].join('\n'));
    expect(cycle.row.last_process_error_code).toBe('PARSE_ERROR');
    expect(errorsOf(cycle.row)![0].message).toContain('an alias names one of its own ancestors');
  });
});

describe('outline bounds', () => {
  it(`cuts texts to ${MAX_OUTLINE_TEXT} characters, lists at most ${MAX_OUTLINE_OPERATIONS} operations and stays under ${MAX_OUTLINE_BYTES} bytes`, () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < MAX_OUTLINE_OPERATIONS + 10; i++) paths[`/r${i}`] = { get: { operationId: `op${i}`, tags: ['a'] } };
    const small = buildOutline({ openapi: '3.1.0', info: { title: 't'.repeat(MAX_OUTLINE_TEXT + 5), version: '1' }, paths });
    expect(small.title).toHaveLength(MAX_OUTLINE_TEXT);
    expect(small.tags[0].operations).toHaveLength(MAX_OUTLINE_OPERATIONS);
    expect(small.tags[0].operations.at(-1)).toEqual({ path: `/r${MAX_OUTLINE_OPERATIONS - 1}`, method: 'get', operationId: `op${MAX_OUTLINE_OPERATIONS - 1}` });

    const long = 's'.repeat(MAX_OUTLINE_TEXT * 2);
    const heavy: Record<string, unknown> = { '/first': { get: { operationId: 'first', tags: ['declared'] } } };
    for (let i = 0; i < 1000; i++) heavy[`/h${i}`] = { get: { summary: long, operationId: long, tags: [`t${i}`] }, post: { summary: long } };
    const outline = buildOutline({ openapi: '3.1.0', info: { title: 'Heavy', version: '1' }, tags: [{ name: 'declared', description: long }], paths: heavy, components: { schemas: { A: {} } } });
    const bytes = new TextEncoder().encode(JSON.stringify(outline)).byteLength;
    expect(bytes).toBeLessThanOrEqual(MAX_OUTLINE_BYTES);
    expect(bytes).toBeGreaterThan(MAX_OUTLINE_BYTES - 3 * (MAX_OUTLINE_TEXT + 200));
    expect(outline.tags[0]).toEqual({ name: 'declared', description: 's'.repeat(MAX_OUTLINE_TEXT), operations: [{ path: '/first', method: 'get', operationId: 'first' }] });
    expect(outline.tags[1].operations[0].summary).toHaveLength(MAX_OUTLINE_TEXT);
    // Tags only named by operations follow the declared ones; operations without a tag come last.
    expect(outline.tags.slice(1, 3).map((t) => t.name)).toEqual(['t0', 't1']);
    expect(outline.tags.at(-1)!.name).toBe('');
  });
});
