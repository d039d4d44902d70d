import { describe, expect, it } from 'vitest';
import { parseGitBookConfig } from '../../src/services/git-sync/layout';
import { redirectStatements } from '../../src/services/git-sync/redirects';

/**
 * A `.gitbook.yaml` redirect to a URL (`pricing: https://www.zenlytic.com/pricing`, found in a real repository's
 * configuration by a probe): GitBook's redirects lead to files, so it is left out, and the warning says why with the
 * URL as written. It was cleaned as a path (`https:/www.zenlytic.com/pricing`) and said to be "no page of the
 * repository".
 */
describe('.gitbook.yaml redirects to URLs', () => {
  it('keeps the URL as written and says that redirects to URLs are not imported', () => {
    const config = parseGitBookConfig('redirects:\n  pricing: https://www.example.com/pricing\n  ./old/page: ./new//page.md\n');
    expect(config.redirects).toEqual({ pricing: 'https://www.example.com/pricing', 'old/page': 'new/page.md' });
    const { warnings, written } = redirectStatements(null as never, { config, pageIdOf: new Map(), places: [], previous: [], now: '2026-01-01T00:00:00.000Z' });
    expect(written).toEqual([]);
    expect(warnings).toEqual([
      '.gitbook.yaml: the redirect of "pricing" leads to "https://www.example.com/pricing", which is a URL: only redirects to files of the repository are imported',
      '.gitbook.yaml: the redirect of "old/page" leads to "new/page.md", which is no page of the repository',
    ]);
  });
});
