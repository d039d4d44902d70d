import type { Metafile } from 'esbuild';
import type ts from 'typescript';

/** `code` (an ES module as esbuild prints it) with its functions written to be compiled with the module, and what was done. */
export function eagerFunctions(code: string, options?: { declarations?: boolean }): { code: string; converted: number; wrapped: number; kept: string[] };
/** The names of top-level function declarations that code run while the module is evaluated may reach before their line. */
export function hoistingNeeded(statements: ts.NodeArray<ts.Statement>): Set<string>;
/** The output modules of a build whose functions a published page's first request runs, each with whether it is in an import cycle. */
export function eagerModules(metafile: Metafile, sources: string[], atStartup: Set<string>, closure: (metafile: Metafile, output: string) => Iterable<string>): { name: string; cyclic: boolean }[];
