import { expect } from 'vitest';
import { api } from './harness';

/**
 * The served `/openapi.json`, requested once per test worker and shared by the files that only read it (the sweeps,
 * the adversarial suite, the conformance tables, platform/openapi.test.ts's per-operation checks). The Worker builds
 * the document once per isolate (app.ts, `openApiDocument`) and serves the same one to every request of the tests'
 * origin; what each request added was its serialization and the test's parse, about 25 ms on an idle 2-core machine
 * (90 ms loaded), and platform/openapi.test.ts alone asked for it 300 times. Its serving is tested where it is the
 * point (platform/openapi.test.ts, "is an OpenAPI 3.1 document served without a token"; system/front-door.test.ts).
 * Frozen, deeply: a test that changed the shared document would throw instead of changing what the others read.
 */
let served: Promise<any> | undefined;

export function servedDocument(): Promise<any> {
  served ??= api('GET', '/openapi.json').then((res) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    return deepFreeze(res.body);
  });
  // A failed request is asked again by the next caller, not remembered.
  served.catch(() => (served = undefined));
  return served;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
