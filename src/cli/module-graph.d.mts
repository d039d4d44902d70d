export interface Metafile {
  inputs: Record<string, { imports: { path: string; kind: string; original?: string }[] }>;
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }>; imports: { path: string; kind: string; external?: boolean }[] }>;
}
export function staticClosure(metafile: Metafile, start: string): Set<string>;
export function routeGroupsNotApart(metafile: Metafile, groupsModule?: string): string[];
export function isZodSource(input: string): boolean;
export function zodEvaluatedWith(metafile: Metafile, sources: string[]): string[];
export function isSiteOnDemandSource(input: string): boolean;
export function isRendererTableSource(input: string): boolean;
export function isSitePageUnneededSource(input: string): boolean;
export function isPageReadUnneededSource(input: string): boolean;
export function evaluatedWith(metafile: Metafile, sources: string[], forbidden: (input: string) => boolean, what: string): string[];
export function builtinsImportedWith(metafile: Metafile, sources: string[]): string[];
export const CONSTANT_SQL_SOURCES: string[];
export function constantSqlBuilding(metafile: Metafile, sources?: string[]): string[];
