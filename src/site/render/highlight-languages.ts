/**
 * The languages of lowlight's `common` set (highlight.ts), which its sub-language spans are named after
 * (`<span class="javascript">` inside HTML): the sanitizer's schema allows them as classes. Written out here so that
 * the schema, which every page's rendering needs, loads no grammar; highlight.ts's test checks the list is lowlight's.
 */
export const HIGHLIGHT_LANGUAGES: readonly string[] = [
  'arduino', 'bash', 'c', 'cpp', 'csharp', 'css', 'diff', 'go', 'graphql', 'ini', 'java', 'javascript', 'json', 'kotlin',
  'less', 'lua', 'makefile', 'markdown', 'objectivec', 'perl', 'php', 'php-template', 'plaintext', 'python', 'python-repl',
  'r', 'ruby', 'rust', 'scss', 'shell', 'sql', 'swift', 'typescript', 'vbnet', 'wasm', 'xml', 'yaml',
];
