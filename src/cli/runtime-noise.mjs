// The runtime's reports of expected outbound failures in wrangler's output (`npm run dev`, `npm start`): see below.
// Kept apart from wrangler-dev.mjs (which starts processes) so that test/lib/runtime-noise.test.ts can import it.

/**
 * workerd reports every failed outbound connection of a Worker (a website import or an OpenAPI source whose host
 * does not resolve, offline or not; a TLS handshake that fails) as an "uncaught exception" with a native stack,
 * which wrangler prints as red `[ERROR]` blocks, although the Worker caught the error and answered a clean 400
 * naming the host. Observed (wrangler 4, offline): a block whose line names the cause (kj's `failed to lookup address
 * information`, or `TLS handshake failed`) with `stack:` lines of the workerd binary, then one or two blocks of the
 * same failure as the Worker sees it (`jsg.Error: internal error; reference = <id>`, no cause) with their stacks.
 *
 * Only what follows a named cause is dropped: an `internal error` line that no such cause preceded within a
 * second is passed through (it may be a bug), as is everything else.
 */
const CAUSE = /failed to lookup address information|TLS handshake failed/;
const ECHO = /internal error; reference = \w+/;
/** The native stack of such a block: `stack: /path/to/workerd@1234 ... [sentryErrorContext = ...]`. */
const RUNTIME_FRAME = /^\s*stack:\s+\S*workerd\S*@[0-9a-f]+/;
const ECHO_WINDOW_MS = 1000;

/**
 * A line filter for wrangler's stderr: each expected outbound failure becomes one dim line, its blocks dropped;
 * everything else passes through unchanged. `now` is the clock (tests give their own); `dim` styles the line.
 */
export function outboundNoiseFilter(write, now = Date.now, dim = (text) => `\x1b[2m${text}\x1b[22m`) {
  let causeAt = -Infinity;
  let inBlock = false;
  return (line) => {
    const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
    if (CAUSE.test(plain)) {
      causeAt = now();
      inBlock = true;
      const what = /lookup/.test(plain) ? 'a host name did not resolve' : 'a TLS handshake failed';
      write(dim(`workerd: an outbound fetch failed (${what}); the Worker handled it: its answer, or the import's or spec's status, says why`));
      return;
    }
    if (ECHO.test(plain) && now() - causeAt <= ECHO_WINDOW_MS) {
      inBlock = true;
      return;
    }
    if (inBlock && (RUNTIME_FRAME.test(plain) || plain.trim() === '')) return;
    inBlock = false;
    write(line);
  };
}
