import type { Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ICON,
  ICON_KEYWORDS,
  LEXICAL_THRESHOLD,
  MAX_DETAILS_CHARS,
  MAX_DETAIL_SENTENCES,
  MAX_VECTOR_TERMS,
  createLexicalAnalyzer,
  describeLexically,
  impactOf,
  isProblemSentence,
  lexicalMatcher,
  stem,
  terms,
  words,
} from '../../src/services/conversations/lexical';
import { MARKDOWN_CHUNK_CHARS, MAX_ANALYZED_BODY_CHARS, markdownPlainText, plainText } from '../../src/services/conversations/text';
import { MAX_PARTS_PER_CONVERSATION } from '../../src/schemas/conversation';
import {
  MAX_ISSUES_PER_CONVERSATION,
  type ClusterCandidate,
  type ConversationAnalyzer,
  type ConversationText,
  type ExtractedIssue,
  type Vector,
} from '../../src/services/conversations/types';
import { CORPUS, corpusText, type CorpusConversation, type CorpusProblem } from '../fixtures/conversations/corpus';

const analyzer = createLexicalAnalyzer();

const userMessage = (body: string): ConversationText => ({ subject: null, parts: [{ type: 'message', role: 'user', body }] });

async function issuesOf(body: string): Promise<ExtractedIssue[]> {
  return analyzer.extract(userMessage(body));
}

/** Every issue of the corpus, in corpus order, with its conversation and the problem the corpus says it is about. */
async function corpusIssues(corpus: CorpusConversation[] = CORPUS) {
  const out: Array<{ key: string; problem: CorpusProblem; issue: ExtractedIssue; vector: Vector }> = [];
  for (const conversation of corpus) {
    const issues = await analyzer.extract(corpusText(conversation));
    const vectors = await analyzer.vectorize(issues);
    issues.forEach((issue, i) => out.push({ key: `${conversation.input.id}#${i}`, problem: conversation.problems[i], issue, vector: vectors[i] }));
  }
  return out;
}

interface TestCluster extends ClusterCandidate {
  members: string[];
  titles: string[];
}

/**
 * What the queue consumer does, in memory: each issue joins its best cluster when the score reaches the
 * threshold (its vector added to the centroid), else starts a cluster. Records every decision's score.
 */
function assign(analyzerUnderTest: ConversationAnalyzer, items: Array<{ key: string; issue: ExtractedIssue; vector: Vector }>) {
  const clusters: TestCluster[] = [];
  const joined: number[] = [];
  const started: number[] = [];
  for (const { key, issue, vector } of items) {
    const best = analyzerUnderTest.matcher(clusters)(vector);
    if (best && best.score >= analyzerUnderTest.threshold) {
      const cluster = best.cluster as TestCluster;
      for (const [term, weight] of Object.entries(vector)) cluster.centroid[term] = (cluster.centroid[term] ?? 0) + weight;
      cluster.issues += 1;
      cluster.members.push(key);
      cluster.titles.unshift(issue.title);
      joined.push(best.score);
    } else {
      started.push(best?.score ?? 0);
      clusters.push({ id: `cluster-${clusters.length}`, centroid: { ...vector }, issues: 1, members: [key], titles: [issue.title] });
    }
  }
  return { clusters, joined, started };
}

/** The Markdown's top-level nodes, parsed as the platform parses Markdown (GFM, frontmatter). */
function parseMarkdown(markdown: string): RootContent[] {
  return (unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).parse(markdown) as Root).children;
}

describe('plain text of message bodies', () => {
  it('reads HTML: entities decoded, blocks and breaks end lines, scripts and styles dropped', () => {
    const html = '<p>Hello&nbsp;there,</p><div>first <b>bold</b> line<br>second line</div><script>alert("x")</script><style>p{}</style><ul><li>one</li><li>two</li></ul><p>a &amp; b &lt;c&gt;</p>';
    expect(plainText(html)).toBe('Hello there,\nfirst bold line\nsecond line\none\ntwo\na & b <c>');
  });

  it('reads Markdown: formatting dropped, blocks on their own lines, soft breaks as spaces, raw HTML dropped', () => {
    const markdown = '# Title\n\nSome **bold** and *em* text\nwrapped here.  \nHard break.\n\n- item [link](https://x.example)\n- `code`\n\n```\nline 1\nline 2\n```\n\nPress <kbd>Ctrl</kbd> now.\n\n> quoted';
    expect(plainText(markdown)).toBe('Title\nSome bold and em text wrapped here.\nHard break.\nitem link\ncode\nline 1\nline 2\nPress Ctrl now.\nquoted');
  });

  it('treats a body with HTML tags as HTML and one without as Markdown', () => {
    expect(plainText('<p>a</p><p>b</p>')).toBe('a\nb');
    expect(plainText('a < b and c > d')).toBe('a < b and c > d');
  });

  it('analyses the first MAX_ANALYZED_BODY_CHARS characters only, and survives nesting deeper than the parsers recurse', () => {
    const filler = 'All good here. '.repeat(Math.ceil(MAX_ANALYZED_BODY_CHARS / 15));
    expect(plainText(`${filler}Why is it broken?`)).not.toContain('broken');
    expect(plainText(`${filler}Why is it broken?`).length).toBeLessThanOrEqual(MAX_ANALYZED_BODY_CHARS);

    expect(plainText(`${'<div>'.repeat(3000)}Why is the page broken?`)).toBe('Why is the page broken?');
    expect(plainText(`${'>'.repeat(MAX_ANALYZED_BODY_CHARS)}`)).toBe('');
    // Markdown is parsed in chunks: text is kept across them.
    const long = Array.from({ length: 3 * MARKDOWN_CHUNK_CHARS / 20 }, (_, i) => `- item number ${String(i).padStart(4, '0')}`).join('\n');
    const lines = plainText(long).split('\n');
    expect(lines).toHaveLength(3 * MARKDOWN_CHUNK_CHARS / 20);
    expect(lines.at(-1)).toBe(`item number ${String(3 * MARKDOWN_CHUNK_CHARS / 20 - 1).padStart(4, '0')}`);
  });
});

describe('problem sentences and impact', () => {
  it('recognizes questions, with or without a question mark, and negative statements', () => {
    for (const sentence of [
      'How do I reset my password',
      'Where is the export button?',
      'The docs say nothing about SSO?',
      'My import keeps failing.',
      "The editor doesn't save my changes.",
      'I cannot find the setting.',
      'There is an error on the billing page.',
      'The app crashed twice.',
      'The sidebar is missing.',
      'We are stuck on step two.',
      'Can I export the space to PDF',
      'Is the API down',
      'Any idea why the sync stopped',
      'The site is down since this morning.',
    ]) {
      expect(isProblemSentence(sentence), sentence).toBe(true);
    }
    for (const sentence of [
      'Thanks, all good now!',
      'No worries, have a nice weekend.',
      'Perfect, that worked.',
      'I love the new editor.',
      'Our team uses spaces.',
      'Have a great day!',
      'Will do, thanks!',
      'Scroll down to the bottom of the page, it works now.',
    ]) {
      expect(isProblemSentence(sentence), sentence).toBe(false);
    }
  });

  it('takes words without the punctuation around their letters, however long the run of it', () => {
    expect(words('__init__ “quoted” …done… _x')).toEqual(['init', 'quoted', 'done', 'x']);
    expect(words(`a${'_'.repeat(20_000)}b`)).toEqual([]);
    expect(words(`${'_'.repeat(30)}snake_case${'_'.repeat(5)}`)).toEqual(['snake_case']);
  });

  it('takes the impact from documented cue words: high, else medium, else low', () => {
    expect(impactOf(["I'm blocked and cannot publish."])).toBe('high');
    expect(impactOf(['Our production site is down.'])).toBe('high');
    expect(impactOf(['The docs site went down.'])).toBe('high');
    expect(impactOf(['Scroll down to the settings: the export is slow.'])).toBe('medium');
    expect(impactOf(['This is urgent, we lost data.'])).toBe('high');
    expect(impactOf(['The export fails with an error.'])).toBe('medium');
    expect(impactOf(["The search doesn't work for accents."])).toBe('medium');
    expect(impactOf(['The pricing page is confusing.'])).toBe('medium');
    expect(impactOf(['How do I change the logo?'])).toBe('low');
  });
});

describe('extraction', () => {
  it('finds the corpus issues: one per user message describing a problem, none for thanks, assistants and team members ignored', async () => {
    for (const conversation of CORPUS) {
      const issues = await analyzer.extract(corpusText(conversation));
      expect(issues.length, conversation.input.id).toBe(conversation.problems.length);
      for (const issue of issues) {
        expect(issue.title.length).toBeLessThanOrEqual(200);
        expect(issue.details.length).toBeGreaterThan(0);
      }
    }
  });

  it('titles an issue by its first problem sentence naming something, details quote the problem sentences', async () => {
    const byId = (id: string) => corpusText(CORPUS.find((c) => c.input.id === id)!);
    expect(await analyzer.extract(byId('pw-1'))).toEqual([
      {
        title: 'Hi, I requested a password reset email three times but it never arrives.',
        details: 'Hi, I requested a password reset email three times but it never arrives\\. How can I reset my password?',
        impact: 'medium',
      },
    ]);
    // HTML: entities decoded, paragraphs are sentences of their own; "blocked" and "cannot" make it high.
    expect(await analyzer.extract(byId('html-pw-3'))).toEqual([
      {
        title: "I can't log in because the password reset email doesn't arrive in my inbox.",
        details: "I can't log in because the password reset email doesn't arrive in my inbox\\. I'm blocked and cannot access our docs\\.",
        impact: 'high',
      },
    ]);
    // "Any news?" is a problem sentence but names nothing: the restatement is the title.
    const [first, second] = await analyzer.extract(byId('pw-4'));
    expect(first.title).toBe('The password reset email is not arriving for my teammate.');
    expect(second.title).toBe('She still has not received the reset email for her password.');
    expect(markdownPlainText(second.details)).toBe('Any news? She still has not received the reset email for her password.');
    // Markdown: a bold paragraph is a sentence; the list of what was tried is not a problem.
    const [markdown] = await analyzer.extract(byId('md-pw-2'));
    expect(markdown.title).toBe('Reset link never shows up');
    expect(markdownPlainText(markdown.details)).not.toContain('checked spam');
  });

  it('reads only user messages: the same question from an assistant or a team member is no issue', async () => {
    const question = 'Why does the password reset email never arrive?';
    for (const role of ['assistant', 'team-member'] as const) {
      expect(await analyzer.extract({ subject: question, parts: [{ type: 'message', role, body: question }] })).toEqual([]);
    }
    expect(await analyzer.extract({ subject: null, parts: [] })).toEqual([]);
  });

  it('escapes user text: frontmatter, headings, HTML, links and block tags stay text (URLs as code, which nothing links)', async () => {
    const hostile = [
      '<p>--- title: x --- is not parsed?</p>',
      '<p># heading is broken</p>',
      '<p>Why does &lt;script&gt;alert(1)&lt;/script&gt; fail?</p>',
      '<p>Why is [click](https://evil.example) and https://evil.example or WWW.evil.example or a@evil.example or mailto:a@evil.example broken?</p>',
      '<p>Why does `https://evil.example/``x` fail?</p>',
      '<p>{% hint style="danger" %} is broken and so is $$x$$ and &amp;amp; and - and * and | a | b |?</p>',
      'Why does `<img src=x onerror=alert(1)>` and `**bold**` fail?',
      'Why is `\\` escaping broken?',
    ];
    for (const body of hostile) {
      const [issue] = await issuesOf(body);
      expect(issue, body).toBeDefined();
      const nodes = parseMarkdown(issue.details);
      expect(nodes.map((n) => n.type), `${body} -> ${issue.details}`).toEqual(['paragraph']);
      const paragraph = nodes[0] as Extract<RootContent, { type: 'paragraph' }>;
      expect(new Set(paragraph.children.map((n) => n.type)), issue.details).toEqual(new Set(body.includes('evil') ? ['text', 'inlineCode'] : ['text']));
      // What the reader wrote reads back exactly.
      expect(toString(paragraph)).toBe(plainText(body));
      expect(markdownPlainText(issue.details)).toBe(plainText(body));
    }
  });

  it('is deterministic: the same conversation gives the same issues and vectors, whichever instance', async () => {
    const first = await corpusIssues();
    const again = createLexicalAnalyzer();
    const second: unknown[] = [];
    for (const conversation of CORPUS) {
      const issues = await again.extract(corpusText(conversation));
      second.push(...(await again.vectorize(issues)).map((vector, i) => ({ issue: issues[i], vector })));
    }
    expect(second).toEqual(first.map(({ issue, vector }) => ({ issue, vector })));
  });

  it('stays bounded on huge input: one issue per message, bounded details and title, at most MAX_ISSUES_PER_CONVERSATION issues', async () => {
    const sentences = Array.from({ length: 1000 }, (_, i) => `Why does the export number ${i} fail with an error?`);
    const body = sentences.join(' ');
    expect(body.length).toBeGreaterThan(MAX_ANALYZED_BODY_CHARS);
    const issues = await issuesOf(body);
    expect(issues).toHaveLength(1);
    expect(issues[0].title).toBe(sentences[0]);
    expect(markdownPlainText(issues[0].details)).toBe(sentences.slice(0, MAX_DETAIL_SENTENCES).join(' '));
    const [vector] = await analyzer.vectorize(issues);
    expect(Object.keys(vector).length).toBeLessThanOrEqual(MAX_VECTOR_TERMS);

    const [longest] = await issuesOf(`Why ${'does it really fail '.repeat(1200)}?`);
    expect(longest.title.length).toBeLessThanOrEqual(200);
    expect(longest.title.endsWith('…')).toBe(true);
    // The body is parsed in chunks cut between words: each chunk is a sentence, each quoted up to 500 characters.
    const quoted = markdownPlainText(longest.details);
    expect(quoted.length).toBeLessThanOrEqual(MAX_DETAILS_CHARS);
    expect(quoted.split('… ').every((sentence) => sentence.length <= 500)).toBe(true);

    const parts = Array.from({ length: MAX_PARTS_PER_CONVERSATION }, (_, i) => ({ type: 'message' as const, role: 'user' as const, body: `Why is page ${i} broken?` }));
    expect(await analyzer.extract({ subject: null, parts })).toHaveLength(MAX_ISSUES_PER_CONVERSATION);

    // Many distinct words: the vector keeps the 32 most frequent.
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
    const [wide] = await analyzer.vectorize([{ title: 'Why?', details: `${words.join(' ')} ${words.slice(0, 10).join(' ')}`, impact: 'low' }]);
    expect(Object.keys(wide)).toHaveLength(MAX_VECTOR_TERMS);
    for (const word of words.slice(0, 10)) expect(wide[word]).toBeCloseTo(2 / (10 * 2 + 22));
  });
});

describe('terms and vectors', () => {
  it('stems inflections to one term', () => {
    const groups = [
      ['reset', 'resets', 'resetting'],
      ['arrive', 'arrives', 'arrived', 'arriving'],
      ['sync', 'syncs', 'syncing', 'synced'],
      ['fail', 'fails', 'failed', 'failing'],
      ['certificate', 'certificates'],
      ['query', 'queries'],
      ['block', 'blocked', 'blocking', 'blocks'],
      ['stop', 'stopped', 'stopping'],
      ['box', 'boxes'],
      ['issue', 'issues'],
    ];
    for (const group of groups) expect(new Set(group.map(stem)), group.join()).toEqual(new Set([stem(group[0])]));
    // Words that only look inflected keep their ending.
    expect(stem('status')).toBe('status');
    expect(stem('analysis')).toBe('analysis');
    expect(stem('need')).toBe('need');
    expect(stem('class')).toBe('class');
  });

  it('drops stop words, contractions and small talk; keeps numbers and object-like keys as terms', () => {
    expect(terms("Hi team, I can't reset my password and it's urgent. Thanks!")).toEqual(['reset', 'password', 'urgent']);
    expect(terms('Error 429 from the constructor __proto__ toString')).toEqual(['error', '429', 'constructor', 'proto', 'tostr']);
  });

  it('normalizes vectors: weights of the top terms summing to 1', async () => {
    const vectors = await analyzer.vectorize((await corpusIssues()).map((i) => i.issue));
    expect(vectors.length).toBeGreaterThan(10);
    for (const vector of vectors) {
      expect(Object.values(vector).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
      expect(Object.keys(vector).length).toBeLessThanOrEqual(MAX_VECTOR_TERMS);
    }
    const [vector] = await analyzer.vectorize([{ title: 'Reset email', details: 'reset resetting resets email', impact: 'low' }]);
    expect(vector).toEqual({ reset: 4 / 6, email: 2 / 6 });
    // Object-like terms are own properties of the vector, which survives JSON.
    const [odd] = await analyzer.vectorize([{ title: 'constructor __proto__', details: '', impact: 'low' }]);
    expect(JSON.parse(JSON.stringify(odd))).toEqual({ constructor: 0.5, proto: 0.5 });
    expect(await analyzer.vectorize([])).toEqual([]);
  });
});

describe('matcher', () => {
  const cluster = (id: string, centroid: Vector): ClusterCandidate => ({ id, centroid, issues: 1 });

  it('answers undefined without clusters, 1 for the same terms, 0 for none in common', () => {
    expect(lexicalMatcher([])({ a: 1 })).toBeUndefined();
    const match = lexicalMatcher([cluster('a', { password: 2, reset: 2 }), cluster('b', { domain: 1 })]);
    expect(match({ password: 0.5, reset: 0.5 })).toEqual({ cluster: expect.objectContaining({ id: 'a' }), score: expect.closeTo(1, 10) });
    expect(match({ billing: 1 })?.score).toBe(0);
    expect(match({})?.score).toBe(0);
  });

  it('weighs terms by TF-IDF: idf(t) = ln((1 + N) / (1 + df(t))) + 1 over the clusters', () => {
    const match = lexicalMatcher([cluster('a', { x: 1, y: 1 }), cluster('b', { x: 1, z: 1 })]);
    // x is in both clusters (idf 1), y in one (idf ln(3/2) + 1): {x} against a = 1 / |(1, idf(y))|.
    const idfY = Math.log(3 / 2) + 1;
    expect(match({ x: 1 })?.score).toBeCloseTo(1 / Math.sqrt(1 + idfY * idfY), 10);
    // The rarer term decides: {x, y} goes to a.
    expect(match({ x: 0.5, y: 0.5 })).toEqual({ cluster: expect.objectContaining({ id: 'a' }), score: expect.closeTo(1, 10) });
    // A tie goes to the earlier cluster.
    expect(match({ x: 1 })?.cluster.id).toBe('a');
  });

  it('ignores weights that are not positive finite numbers', () => {
    const match = lexicalMatcher([cluster('a', { x: 1, y: Number.NaN, z: -1, w: 'x' as unknown as number })]);
    expect(match({ x: 1 })?.score).toBeCloseTo(1, 10);
  });

  it('clusters the corpus by problem: three clusters, nothing else merged, in either order', async () => {
    const items = await corpusIssues();
    const expected = (['password-reset', 'rate-limit', 'custom-domain'] as const).map((problem) => items.filter((i) => i.problem === problem).map((i) => i.key).sort());
    expect(expected.map((keys) => keys.length)).toEqual([7, 5, 5]);

    for (const order of [items, [...items].reverse()]) {
      const { clusters, joined, started } = assign(analyzer, order);
      expect(clusters.map((c) => [...c.members].sort()).sort()).toEqual([...expected].sort());
      // Margins of the threshold on this corpus (see LEXICAL_THRESHOLD).
      expect(Math.min(...joined)).toBeGreaterThan(LEXICAL_THRESHOLD + 0.1);
      expect(Math.max(...started)).toBeLessThan(LEXICAL_THRESHOLD - 0.1);
    }
  });
});

describe('describe', () => {
  it('names a cluster by terms its issues share, not by what one of them says (a ticket number)', () => {
    const titles = ['It is still broken, this blocks our team 102.', 'It is still broken, this blocks our team 101.'];
    const centroid = Object.fromEntries([...Array(40).keys()].map((n) => [`${100 + n}`, 0.33]));
    Object.assign(centroid, { broken: 13.2, block: 13.2 });
    expect(describeLexically(centroid, titles).label).toBe('Broken blocks');
  });

  it("labels a corpus cluster by its problem's words, with a known icon and a summary of its newest titles", async () => {
    const { clusters } = assign(analyzer, await corpusIssues());
    const byMember = (key: string) => clusters.find((c) => c.members.includes(key))!;
    const described = {
      password: analyzer.describe(byMember('pw-1#0').centroid, byMember('pw-1#0').titles),
      rateLimit: analyzer.describe(byMember('rl-1#0').centroid, byMember('rl-1#0').titles),
      domain: analyzer.describe(byMember('ssl-1#0').centroid, byMember('ssl-1#0').titles),
    };
    expect(described.password.label).toBe('Password reset email');
    expect(described.password.icon).toBe('key');
    expect(described.rateLimit.label).toBe('Rate limit sync');
    expect(described.rateLimit.icon).toBe('plug');
    expect(described.domain.label).toMatch(/^(?=.*custom)(?=.*domain)(?=.*certificate)/i);
    expect(described.domain.icon).toBe('lock');

    const summary = parseMarkdown(described.password.summary);
    expect(summary.map((n) => n.type)).toEqual(['paragraph', 'list']);
    expect(toString(summary[0])).toBe('Conversations about password, reset and email.');
    const titles = byMember('pw-1#0').titles;
    expect((summary[1] as Extract<RootContent, { type: 'list' }>).children.map((item) => toString(item))).toEqual(titles.slice(0, 3));
  });

  it('keeps labels short, capitalized and escaped in the summary; falls back without terms', () => {
    const long = 'a'.repeat(40);
    const described = analyzer.describe({ [`${long}x`]: 3, [`${long}y`]: 2, [`${long}z`]: 1 }, ['# Heading <b>x</b> [l](https://x.example)']);
    expect(described.label.length).toBeLessThanOrEqual(100);
    expect(described.label.startsWith('A')).toBe(true);
    const list = parseMarkdown(described.summary)[1] as Extract<RootContent, { type: 'list' }>;
    expect(toString(list.children[0])).toBe('# Heading <b>x</b> [l](https://x.example)');

    expect(analyzer.describe({}, [])).toEqual({ label: 'Other conversations', icon: DEFAULT_ICON, summary: 'Conversations without distinctive terms.' });
    expect(analyzer.describe({}, ['Why?']).label).toBe('Why?');
  });

  it('names icons from the documented keyword map, the heaviest term first', () => {
    const icons = new Set(ICON_KEYWORDS.map(([icon]) => icon));
    expect(icons).toEqual(new Set(['key', 'credit-card', 'lock', 'globe', 'plug', 'magnifying-glass', 'book', 'gear', 'bug']));
    expect(analyzer.describe({ [stem('invoice')]: 2, [stem('password')]: 1 }, []).icon).toBe('credit-card');
    expect(analyzer.describe({ [stem('invoice')]: 1, [stem('password')]: 2 }, []).icon).toBe('key');
    expect(analyzer.describe({ banana: 1 }, []).icon).toBe(DEFAULT_ICON);
  });
});
