/**
 * The filter `npm run dev` and `npm start` put on wrangler's stderr (src/cli/runtime-noise.mjs): the runtime's
 * red blocks about an outbound fetch the Worker caught (a host that does not resolve, offline) become one dim
 * line; everything else, an unrelated internal error included, passes unchanged. The lines are wrangler 4's, as
 * printed for an offline website import.
 */
import { describe, expect, it } from 'vitest';
import { outboundNoiseFilter } from '../../src/cli/runtime-noise.mjs';

const RED_ERROR = '\x1b[31m✘ \x1b[41;31m[\x1b[41;97mERROR\x1b[41;31m]\x1b[0m \x1b[1me = rust/worker/ffi.rs:110: failed: failed to lookup address information: Name or service not known\x1b[0m';
const STACK = '  stack: /work/x/node_modules/@cloudflare/workerd-linux-64/bin/workerd@383c3f9 /work/x/node_modules/@cloudflare/workerd-linux-64/bin/workerd@28a3c60 /lib/x86_64-linux-gnu/libc.so.6@29d8f; sentryErrorContext = jsgInternalError; wdErrId = l5n9kbjuo0p29hmivjtc7n4g';
const ECHO = 'uncaught exception; source = Uncaught (in promise); stack = Error: internal error; reference = 8j1sqaiq1t36u9qu6ahbtgfq';
const ECHO2 = 'uncaught exception; exception = workerd/jsg/value.h:1535: failed: jsg.Error: internal error; reference = 8j1sqaiq1t36u9qu6ahbtgfq';

function run(lines: string[], clock: number[] = []) {
  const out: string[] = [];
  let i = 0;
  const filter = outboundNoiseFilter((line) => out.push(line), () => clock[Math.min(i, clock.length - 1)] ?? 0);
  for (const line of lines) {
    filter(line);
    i++;
  }
  return out;
}

describe('outboundNoiseFilter', () => {
  it('turns a failed lookup and its echoes into one dim line, keeping the lines around it', async () => {
    const out = run([
      '[wrangler:info] POST /v1/spaces/s/change-requests 201 Created (528ms)',
      RED_ERROR,
      '',
      STACK,
      '',
      ECHO,
      ECHO2,
      STACK,
      '',
      '[wrangler:info] POST /v1/spaces/s/change-requests/2/content/import 400 Bad Request (140ms)',
    ]);
    expect(out).toEqual([
      '[wrangler:info] POST /v1/spaces/s/change-requests 201 Created (528ms)',
      "\x1b[2mworkerd: an outbound fetch failed (a host name did not resolve); the Worker handled it: its answer, or the import's or spec's status, says why\x1b[22m",
      '[wrangler:info] POST /v1/spaces/s/change-requests/2/content/import 400 Bad Request (140ms)',
    ]);
  });

  it('says it again for each failure', async () => {
    expect(run([RED_ERROR, STACK, RED_ERROR, STACK])).toHaveLength(2);
  });

  it('passes an internal error through when no failed lookup or handshake came just before it', async () => {
    const lines = ['something', ECHO, STACK, 'after'];
    expect(run(lines)).toEqual(lines);
    // Long after a named cause, too.
    expect(run([RED_ERROR, 'next', ECHO], [0, 0, 5_000])).toEqual([expect.stringContaining('outbound fetch failed'), 'next', ECHO]);
  });

  it('leaves the Worker\'s own errors and stacks alone', async () => {
    const lines = ['[ERROR] [req1] Error: boom', '    at handler (src/app.ts:10:5)', '', 'stack: not a runtime frame'];
    expect(run(lines)).toEqual(lines);
  });
});
