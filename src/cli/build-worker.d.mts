/** Where wrangler.toml's `main` points (build-worker.mjs). */
export const WORKER_OUT_DIR: string;
/** Builds `entry` into `outdir` as an entry module and its chunks; answers the modules written, entry first. */
export function buildWorker(options?: { root?: string; entry?: string; outdir?: string; minify?: boolean }): Promise<{ name: string; bytes: number }[]>;
/** `buildWorker` with esbuild's metafile (the build's inputs and outputs), for the checks and tests that read the graph. */
export function buildWithMetafile(options?: { root?: string; entry?: string; outdir?: string; minify?: boolean }): Promise<{ out: string; metafile: import('esbuild').Metafile }>;
/** A source module of the build and the bytes it puts in the output. */
export interface BuiltModule {
  input: string;
  bytes: number;
}
/** The source modules a cold isolate evaluates on its first import of each of `sources`, beyond the entry's, largest first. */
export function onDemandModules(options: { root?: string; entry?: string; sources: string[] }): Promise<Map<string, BuiltModule[]>>;
/** Whether a module of the build is zod or an extension of it. */
export function isZodModule(input: string): boolean;
/** The modules whose first import must evaluate no zod (checked on every build). */
export const ZOD_FREE: string[];
/** The published site's module, what serves every route group, and the published page's renderer (build-worker.mjs). */
export const SITE: string;
export const GROUP_APP: string;
export const PAGE_READ: string;
export const RENDERER: string;
