/** A folder's text files in one module, by path from the checkout (test/helpers/text-files.ts). */
declare module 'virtual:text-files/*' {
  const files: Record<string, string>;
  export default files;
}
