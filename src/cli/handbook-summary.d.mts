/** A group of the Handbook's SUMMARY.md (handbook-summary.mjs): its title, the text under its heading, its guides' file names. */
export interface SummaryGroup {
  title: string;
  intro: string;
  files: string[];
}
export function parseSummary(text: string): SummaryGroup[];
export function summaryGaps(groups: SummaryGroup[], guideFiles: string[]): { unlisted: string[]; unknown: string[] };
