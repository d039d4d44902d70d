/** One group of the README's operations table (operations-table.mjs). */
export interface OperationsRow {
  group: string;
  gitbook: number;
  served: number;
  missing: string[];
}
type ManifestRoute = readonly [method: string, path: string, group: string, documented?: 1];
export const TABLE_START: string;
export const TABLE_END: string;
export function countOperations(gitbookSpec: unknown, manifest: readonly ManifestRoute[]): OperationsRow[];
export function renderOperationsTable(gitbookSpec: unknown, manifest: readonly ManifestRoute[], version: string): string;
export function replaceOperationsTable(readme: string, table: string): string;
