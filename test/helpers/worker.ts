import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';

/**
 * A request through the Worker's own fetch handler (the default export of src/index.ts: routing, middleware,
 * validation, errors), called in this isolate with the test environment and an execution context whose
 * `waitUntil` work the test pool awaits. The same handler `exports.default.fetch` reaches, without its
 * loopback: a service-binding round trip costs about 5 ms, more than most requests themselves, and the
 * suite makes hundreds of thousands of them.
 */
export function fetchWorker(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  return Promise.resolve(worker.fetch(request, env, createExecutionContext()));
}
