import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { builtinsNotAtStartup, buildWithMetafile } from '../../src/cli/build-worker.mjs';

/**
 * node:zlib is evaluated with the isolate (src/index.ts): its first import, with workerd's stream and process modules
 * behind it, was about 45% of a cold isolate's first published page (issue 42 item 7). The build fails when the
 * entry stops importing it; this shows what it checks, on the Worker's own build and on a graph without the import.
 */
const entryWith = (imports: Metafile['outputs'][string]['imports']): Metafile => ({
  inputs: {},
  outputs: {
    'out/index.js': { entryPoint: 'src/index.ts', inputs: {}, imports, exports: [], bytes: 1 },
    'out/on-demand/site.js': { inputs: {}, imports: [{ path: 'node:zlib', kind: 'import-statement', external: true }], exports: [], bytes: 1 },
  },
});

describe('the built-ins the Worker evaluates at startup (build-worker builtinsNotAtStartup)', () => {
  it("are imported by the Worker's built entry", async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'startup-builtins-'));
    try {
      const { metafile } = await buildWithMetafile({ outdir });
      expect(builtinsNotAtStartup(metafile)).toEqual([]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);

  it('are named when only a module imported on demand imports them, or the entry imports them on demand', () => {
    expect(builtinsNotAtStartup(entryWith([]))).toEqual(['node:zlib']);
    expect(builtinsNotAtStartup(entryWith([{ path: 'node:zlib', kind: 'dynamic-import', external: true }]))).toEqual(['node:zlib']);
    expect(builtinsNotAtStartup(entryWith([{ path: 'node:zlib', kind: 'import-statement', external: true }]))).toEqual([]);
  });
});
