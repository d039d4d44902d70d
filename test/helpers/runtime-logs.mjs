// workerd's own reports, in the test run's output (Node side: imported by test/vitest.config.ts).
//
// The test pool prints what workerd logs straight to the run's stdout and stderr. workerd logs an "uncaught exception" (with a native
// stack) whenever an exception leaves a Durable Object's RPC method or an entrypoint's handler, although the caller
// catches it: the tests provoke such errors on purpose (a space whose index catch-up fails, an integration script's
// fetch the outbound guard refuses). These reports tell nothing about a run that passes, and each is 5 to 15 lines:
// they are held back here, and printed at the end of a run that failed (with everything else it printed), or always
// with RUNTIME_LOGS=1. Every other line passes through unchanged.

/** The first line of one of workerd's reports: an uncaught exception, or a failed outbound lookup (`e = ...`). */
const REPORT_START = /^(?:uncaught exception; |e = [\w/.]+:\d+: failed: )/;
/** The lines that go on such a report: its JavaScript stack, and workerd's native one. */
const REPORT_MORE = /^(?:\s+at |stack: \S*workerd\S*@[0-9a-f]+)/;

const held = [];
let installed = false;
/** stdout's own write, for the held lines themselves. */
let rawStdout = (text) => process.stdout.write(text);

/**
 * Wraps `stream.write` with a line filter: the lines of workerd's reports are held (in `held`), every other line is
 * written on as it was. A chunk's last line, when it has no newline yet, waits for the rest (or the next report).
 */
function filterLines(stream) {
  const write = stream.write.bind(stream);
  let partial = '';
  let inReport = false;
  stream.write = (chunk, ...rest) => {
    const done = rest.find((arg) => typeof arg === 'function');
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : null;
    if (text === null) return write(chunk, ...rest);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    let out = '';
    for (const line of lines) {
      const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
      if (REPORT_START.test(plain) || (inReport && REPORT_MORE.test(plain))) {
        inReport = true;
        held.push(line);
        continue;
      }
      inReport = false;
      out += `${line}\n`;
    }
    if (out) return write(out, done);
    if (done) done();
    return true;
  };
  return write;
}

/** Starts holding workerd's exception reports back, on stdout and stderr (once per process). */
export function holdRuntimeReports() {
  if (installed || process.env.RUNTIME_LOGS === '1') return;
  installed = true;
  rawStdout = filterLines(process.stdout);
  filterLines(process.stderr);
}

/** The known cross-Durable-Object settlement messages (test/vitest.config.ts `onUnhandledError`), counted. */
const settlements = [];
export function noteSettlement(message) {
  settlements.push(message);
}

/**
 * A reporter that prints the held reports once a run has failed (on a run that passed, nothing), and how many
 * settlement messages did not fail the run (one line; the messages themselves when it failed).
 */
export const runtimeReportsReporter = {
  onTestRunEnd(_modules, unhandledErrors, reason) {
    const failed = reason !== 'passed' || unhandledErrors.length > 0;
    if (settlements.length > 0) {
      rawStdout(`test pool: ${settlements.length} promise(s) of one Durable Object settled in another's context (workerd's "Cannot perform I/O on behalf of a different Durable Object"), not failing the run\n`);
      if (failed) rawStdout(`${settlements.map((message) => `  ${message.slice(0, 300)}`).join('\n')}\n`);
    }
    if (held.length === 0 || !failed) return;
    rawStdout(`\nworkerd's reports of exceptions during the run (${held.length}; held back while it passed, RUNTIME_LOGS=1 prints them as they come):\n`);
    // Written past the filter: these are the held lines themselves.
    rawStdout(`${held.join('\n')}\n`);
  },
};
