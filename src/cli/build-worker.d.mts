/** Where wrangler.toml's `main` points (build-worker.mjs). */
export const WORKER_OUT_DIR: string;
/** Builds `entry` into `outdir` as an entry module and its chunks; answers the modules written, entry first. */
export function buildWorker(options?: { root?: string; entry?: string; outdir?: string; minify?: boolean }): Promise<{ name: string; bytes: number }[]>;
