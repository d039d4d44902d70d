import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWithMetafile, GROUP_APP, PAGE_READ, RENDERER, SITE } from '../../src/cli/build-worker.mjs';
import { builtinsImportedWith, evaluatedWith, isPageReadUnneededSource } from '../../src/cli/module-graph.mjs';

/**
 * The Worker as built: a cold isolate's first published page imports no Node.js built-in (issue 42 item 7). Its
 * documents are inflated by the runtime (services/content/packed-form), where Brotli needed workerd's node:zlib, whose
 * first import (its zlib, stream and process modules) was about 45% of that request; and the entry imports none either,
 * so the cost is gone rather than moved to every isolate's startup. The build itself fails on the first
 * (build-worker.mjs); this shows it on the real source.
 */
describe("the Worker's build", () => {
  it("imports no Node.js built-in for a published page's or a page read's first request, nor at the isolate's startup", async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const scratch = mkdtempSync(path.join(tmpdir(), 'dpa-site-builtins-'));
    try {
      const { metafile } = await buildWithMetafile({ root, outdir: path.relative(root, scratch) });
      expect(builtinsImportedWith(metafile, [GROUP_APP, SITE, RENDERER])).toEqual([]);
      // Nor a page read's (GET .../content/page/{pageId}): its documents are inflated by the runtime too (packed-form);
      // packed-documents' node:zlib came with them, through reads.ts, document-cache.ts and revisions.ts.
      expect(builtinsImportedWith(metafile, [GROUP_APP, PAGE_READ])).toEqual([]);
      // Nor the content writers (revisions.ts, its deltas and `diff`), nor the site conditions' jsep (a site token's
      // read loads them): 45 modules, 200 KB evaluated by that first request on eec1db4; 40 modules, 148 KB now.
      expect(evaluatedWith(metafile, [GROUP_APP, PAGE_READ], isPageReadUnneededSource, 'what a page read does not need')).toEqual([]);
      expect(builtinsImportedWith(metafile, ['src/index.ts'])).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 240_000);
});
