/**
 * A path's segments resolved, joined by `/`: empty and `.` segments dropped, `..` drops the segment before it (never
 * above the first: a path does not leave its root). The slow path of layout.ts `cleanPath` (a repository's relative
 * paths, `\` read as `/`) and of memfs `normalize` (absolute paths, `\` a file name's character), after each one's own
 * "already clean" check.
 */
export function resolveSegments(parts: readonly string[]): string {
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}
