// The Handbook's table of contents: src/templates/handbook/SUMMARY.md, in GitBook's SUMMARY.md form (a `## ` heading
// per group, then a `* [Title](file.md)` line per guide), read by demo-site.mjs into the Handbook site's menu groups.
// Pure (no file access), so that test/lib/handbook-summary.test.ts runs it as it is.

/**
 * The groups of a SUMMARY.md text, in order: { title, intro, files }. `intro` is the text under the group's heading
 * before its first guide (the group page's opening line). Refuses a guide listed before any group, or twice.
 */
export function parseSummary(text) {
  const groups = [];
  const seen = new Set();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trimEnd();
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      groups.push({ title: heading[1].trim(), intro: [], files: [] });
      continue;
    }
    const entry = /^\s*[*-] \[[^\]]+\]\(([^)\s]+\.md)\)\s*$/.exec(line);
    if (entry) {
      const group = groups.at(-1);
      if (!group) throw new Error(`SUMMARY.md line ${index + 1}: a guide before the first "## " group heading`);
      if (seen.has(entry[1])) throw new Error(`SUMMARY.md line ${index + 1}: ${entry[1]} is listed twice`);
      seen.add(entry[1]);
      group.files.push(entry[1]);
      continue;
    }
    const group = groups.at(-1);
    if (group && group.files.length === 0 && line.trim() !== '') group.intro.push(line.trim());
  }
  return groups.map((group) => ({ ...group, intro: group.intro.join(' ') }));
}

/** The guides (file names) missing from the groups, and the files the groups name that are not guides. */
export function summaryGaps(groups, guideFiles) {
  const listed = new Set(groups.flatMap((group) => group.files));
  return {
    unlisted: guideFiles.filter((file) => !listed.has(file)),
    unknown: [...listed].filter((file) => !guideFiles.includes(file)),
  };
}
