/**
 * What lowlight's type declarations import from 'highlight.js', declared here (tsconfig `paths`): highlight.js's own
 * types reference the DOM library, which would mix browser globals into the Workers types of the whole program.
 * Only types: nothing imports 'highlight.js' itself at run time (lowlight imports its `lib/core` and languages).
 */
export type LanguageFn = (hljs: unknown) => unknown;
export type HLJSOptions = Record<string, unknown>;
export type HighlightResult = Record<string, unknown>;
export type Emitter = Record<string, unknown>;
