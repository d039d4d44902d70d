import type { Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { analyzerFor } from '../../src/services/conversations/analyzers';
import { LEXICAL_ANALYZER } from '../../src/services/conversations/lexical';
import { MAX_ISSUES_PER_CONVERSATION, type ClusterCandidate, type ConversationText } from '../../src/services/conversations/types';
import {
  MAX_PROMPT_CHARS,
  WORKERS_AI_ANALYZER,
  WORKERS_AI_EMBEDDING_MODEL,
  WORKERS_AI_INSTRUCTION_MODEL,
  WORKERS_AI_THRESHOLD,
  createWorkersAIAnalyzer,
  type WorkersAIBinding,
} from '../../src/services/conversations/workers-ai';
import { CORPUS, corpusText } from '../fixtures/conversations/corpus';

interface Call {
  model: string;
  input: any;
}

/** A deterministic `AI` binding: answers each call with the next canned output (or what `answer` computes), records the calls. */
function fakeAI(...outputs: Array<unknown | ((input: any) => unknown)>) {
  const calls: Call[] = [];
  const binding: WorkersAIBinding = {
    async run(model, input) {
      calls.push({ model, input });
      if (outputs.length === 0) throw new Error('the fake AI has no more answers');
      const next = outputs.shift();
      return typeof next === 'function' ? (next as (input: unknown) => unknown)(input) : next;
    },
  };
  return { binding, calls };
}

const ISSUE = { title: 'Password reset email never arrives', details: 'The reader requested a reset three times.', impact: 'high' };

const conversation = (...bodies: Array<[role: 'user' | 'assistant' | 'team-member', body: string]>): ConversationText => ({
  subject: 'Cannot log in',
  parts: bodies.map(([role, body]) => ({ type: 'message', role, body })),
});

describe('Workers AI extraction', () => {
  it('asks the instruction model once, in JSON mode, with the subject and the user messages only', async () => {
    const { binding, calls } = fakeAI({ response: { issues: [ISSUE] } });
    const analyzer = createWorkersAIAnalyzer(binding);
    const issues = await analyzer.extract(
      conversation(['user', '<p>The <b>reset</b> email never arrives.</p>'], ['assistant', 'Did you check spam? SECRET-ASSISTANT'], ['team-member', 'SECRET-TEAM'], ['user', 'Still nothing.']),
    );
    expect(issues).toEqual([{ title: ISSUE.title, details: 'The reader requested a reset three times\\.', impact: 'high' }]);

    expect(calls).toHaveLength(1);
    const [{ model, input }] = calls;
    expect(model).toBe(WORKERS_AI_INSTRUCTION_MODEL);
    expect(input.response_format.type).toBe('json_schema');
    expect(input.response_format.json_schema).toMatchObject({
      type: 'object',
      required: ['issues'],
      properties: { issues: { type: 'array', maxItems: MAX_ISSUES_PER_CONVERSATION, items: { required: ['title', 'details', 'impact'] } } },
    });
    expect(input.response_format.json_schema).not.toHaveProperty('$schema');
    expect(input.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    const prompt: string = input.messages[1].content;
    expect(prompt).toContain('Subject: Cannot log in');
    expect(prompt).toContain('[Message 1]\nThe reset email never arrives.');
    expect(prompt).toContain('[Message 2]\nStill nothing.');
    expect(prompt).not.toContain('SECRET');
  });

  it('makes no call for a conversation without user messages, and bounds the prompt', async () => {
    const { binding, calls } = fakeAI({ response: { issues: [] } });
    const analyzer = createWorkersAIAnalyzer(binding);
    expect(await analyzer.extract(conversation(['assistant', 'Why?'], ['team-member', 'How?']))).toEqual([]);
    expect(calls).toHaveLength(0);

    const long = 'Why does the export fail? '.repeat(800);
    expect(await analyzer.extract(conversation(['user', long], ['user', long], ['user', long]))).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(calls[0].input.messages[1].content.length).toBeLessThan(MAX_PROMPT_CHARS + 200);
    expect(calls[0].input.messages[1].content).not.toContain('[Message 2]');
  });

  it('parses a response given as a JSON string, fenced or not', async () => {
    const { binding } = fakeAI({ response: JSON.stringify({ issues: [ISSUE] }) }, { response: `\`\`\`json\n${JSON.stringify({ issues: [ISSUE, ISSUE] })}\n\`\`\`` });
    const analyzer = createWorkersAIAnalyzer(binding);
    expect((await analyzer.extract(conversation(['user', 'x']))).map((i) => i.title)).toEqual([ISSUE.title]);
    expect(await analyzer.extract(conversation(['user', 'x']))).toHaveLength(2);
  });

  it('makes titles one line and details safe Markdown paragraphs, the title when there are none', async () => {
    const details = '# Not a heading\n---\n<script>alert(1)</script> [link](https://evil.example)';
    const { binding } = fakeAI({ response: { issues: [{ title: '  Line\none  ', details, impact: 'low' }, { title: 'Only a title', details: '', impact: 'medium' }] } });
    const [first, second] = await createWorkersAIAnalyzer(binding).extract(conversation(['user', 'x']));
    expect(first.title).toBe('Line one');
    const nodes = (unified().use(remarkParse).use(remarkGfm).parse(first.details) as Root).children;
    expect(nodes.map((n) => n.type)).toEqual(['paragraph', 'paragraph', 'paragraph']);
    expect(nodes.map((n) => toString(n))).toEqual(['# Not a heading', '---', '<script>alert(1)</script> [link](https://evil.example)']);
    const links = (nodes[2] as Extract<RootContent, { type: 'paragraph' }>).children.filter((n) => n.type === 'link');
    expect(links).toEqual([]);
    expect(second.details).toBe('Only a title');
  });

  it('throws a clear Error on malformed output, so that the message is retried', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ response: { issues: [{ ...ISSUE, impact: 'critical' }] } }, /issues\.0\.impact/],
      [{ response: { issues: [{ details: 'x', impact: 'low' }] } }, /issues\.0\.title/],
      [{ response: { issues: [{ ...ISSUE, title: '   ' }] } }, /issues\.0\.title/],
      [{ response: { issues: [{ ...ISSUE, title: 'x'.repeat(201) }] } }, /issues\.0\.title/],
      [{ response: { issues: [{ ...ISSUE, details: 'x'.repeat(4001) }] } }, /issues\.0\.details/],
      [{ response: { issues: Array.from({ length: MAX_ISSUES_PER_CONVERSATION + 1 }, () => ISSUE) } }, /issues: .*(?:10|many)/i],
      [{ response: { problems: [] } }, /issues/],
      [{ response: 'Sure! Here are the issues: none.' }, /not JSON/],
      [{ response: null }, /without a response/],
      [{}, /without a response/],
      ['plain text', /without a response/],
    ];
    for (const [output, message] of cases) {
      const { binding } = fakeAI(output);
      const extraction = createWorkersAIAnalyzer(binding).extract(conversation(['user', 'x']));
      await expect(extraction, JSON.stringify(output).slice(0, 80)).rejects.toThrow(message);
      await extraction.catch((error: Error) => expect(error.message).toContain(WORKERS_AI_INSTRUCTION_MODEL));
    }
  });

  it('passes the binding’s own failures on', async () => {
    const binding: WorkersAIBinding = { run: async () => Promise.reject(new Error('3040: Capacity temporarily exceeded')) };
    await expect(createWorkersAIAnalyzer(binding).extract(conversation(['user', 'x']))).rejects.toThrow('Capacity');
  });
});

describe('Workers AI embeddings', () => {
  const issues = [ISSUE, { ...ISSUE, title: 'Second', details: 'Rate limit \\(429\\)' }].map((i) => ({ ...i, impact: 'low' as const }));

  it('embeds all issues in one call and stores one vector per issue, by component index', async () => {
    const { binding, calls } = fakeAI((input: { text: string[] }) => ({ shape: [2, 3], data: [[0.1, -0.2, 0.30000001], [1, 0, 0]].slice(0, input.text.length) }));
    const vectors = await createWorkersAIAnalyzer(binding).vectorize(issues);
    expect(vectors).toEqual([{ '0': 0.1, '1': -0.2, '2': 0.3 }, { '0': 1, '1': 0, '2': 0 }]);
    expect(calls).toHaveLength(1);
    expect(calls[0].model).toBe(WORKERS_AI_EMBEDDING_MODEL);
    // The text embedded is the title and the details as read (not their Markdown).
    expect(calls[0].input.text).toEqual([`${ISSUE.title}\n${ISSUE.details}`, 'Second\nRate limit (429)']);
  });

  it('makes no call for no issues; throws on a count, dimension or type that does not match', async () => {
    const none = fakeAI();
    expect(await createWorkersAIAnalyzer(none.binding).vectorize([])).toEqual([]);
    expect(none.calls).toHaveLength(0);

    const cases: Array<[unknown, RegExp]> = [
      [{ data: [[1, 2]] }, /1 embeddings for 2 issues/],
      [{ data: [[1, 2], [1, 2], [1, 2]] }, /3 embeddings for 2 issues/],
      [{ data: [[1, 2], [1, 2, 3]] }, /different dimensions/],
      [{ data: [[1, 'x'], [1, 2]] }, /data\.0\.1/],
      [{ data: [[], []] }, /data\.0/],
      [{ response: 'no' }, /data/],
    ];
    for (const [output, message] of cases) {
      const { binding } = fakeAI(output);
      await expect(createWorkersAIAnalyzer(binding).vectorize(issues), JSON.stringify(output)).rejects.toThrow(message);
    }
  });
});

describe('Workers AI matching and description', () => {
  const cluster = (id: string, centroid: Record<string, number>): ClusterCandidate => ({ id, centroid, issues: 2 });
  const analyzer = createWorkersAIAnalyzer(fakeAI().binding);

  it('matches by cosine similarity with the centroids (the sum of vectors), negative similarity as 0', () => {
    expect(analyzer.name).toBe(WORKERS_AI_ANALYZER);
    expect(analyzer.threshold).toBe(WORKERS_AI_THRESHOLD);
    expect(createWorkersAIAnalyzer(fakeAI().binding, { threshold: 0.9 }).threshold).toBe(0.9);
    expect(analyzer.matcher([])({ '0': 1 })).toBeUndefined();

    const match = analyzer.matcher([cluster('a', { '0': 2, '1': 0 }), cluster('b', { '0': 1, '1': 1 }), cluster('c', { '0': -1, '1': 0 })]);
    expect(match({ '0': 3, '1': 0 })).toEqual({ cluster: expect.objectContaining({ id: 'a' }), score: 1 });
    expect(match({ '0': 0, '1': 1 })).toEqual({ cluster: expect.objectContaining({ id: 'b' }), score: expect.closeTo(Math.SQRT1_2, 10) });
    // Opposite of a and c's directions: nothing is similar.
    expect(analyzer.matcher([cluster('c', { '0': -1, '1': 0 })])({ '0': 1, '1': 0 })?.score).toBe(0);
    expect(match({})?.score).toBe(0);
  });

  it('describes a cluster without a call: the newest title, an icon from the keyword map, the newest titles escaped', () => {
    const titles = ['Password reset email never arrives for [our](https://x.example) team', 'Cannot reset my password', 'Reset email is slow', 'Fourth'];
    const described = analyzer.describe({ '0': 1 }, titles);
    expect(described.label).toBe(titles[0]);
    expect(described.icon).toBe('key');
    const nodes = (unified().use(remarkParse).use(remarkGfm).parse(described.summary) as Root).children;
    expect(nodes.map((n) => n.type)).toEqual(['paragraph', 'list']);
    expect((nodes[1] as Extract<RootContent, { type: 'list' }>).children.map((item) => toString(item))).toEqual(titles.slice(0, 3));

    expect(analyzer.describe({}, ['x'.repeat(300)]).label).toHaveLength(100);
    expect(analyzer.describe({}, ['Our SSL certificate is pending']).icon).toBe('lock');
    expect(analyzer.describe({}, []).label).toBe('Other conversations');
  });

  it('clusters the corpus with embeddings the fake derives from the problem, through the same seam', async () => {
    // One axis per problem: what a good embedding model does for these conversations.
    const axis = (text: string) => (/password|reset/i.test(text) ? 0 : /429|rate/i.test(text) ? 1 : 2);
    const ai: WorkersAIBinding = {
      async run(model, input: any) {
        if (model === WORKERS_AI_EMBEDDING_MODEL) return { data: input.text.map((t: string) => [0, 1, 2].map((i) => (i === axis(t) ? 1 : 0.05))) };
        const prompt: string = input.messages[1].content;
        const messages = prompt.split(/\[Message \d+\]\n/).slice(1).filter((m) => /\?|n't|not|never|fail|error|stuck/i.test(m));
        return { response: { issues: messages.map((m) => ({ title: m.split('\n')[0].slice(0, 200), details: m, impact: 'low' })) } };
      },
    };
    const analyzer = createWorkersAIAnalyzer(ai);
    const clusters: Array<ClusterCandidate & { members: string[] }> = [];
    for (const c of CORPUS) {
      const issues = await analyzer.extract(corpusText(c));
      const vectors = await analyzer.vectorize(issues);
      vectors.forEach((vector, i) => {
        const best = analyzer.matcher(clusters)(vector);
        const key = `${c.input.id}#${i}`;
        if (best && best.score >= analyzer.threshold) {
          for (const [k, v] of Object.entries(vector)) best.cluster.centroid[k] = (best.cluster.centroid[k] ?? 0) + v;
          (best.cluster as (typeof clusters)[number]).members.push(key);
        } else clusters.push({ id: key, centroid: { ...vector }, issues: 1, members: [key] });
      });
    }
    const expected = (['password-reset', 'rate-limit', 'custom-domain'] as const).map((p) =>
      CORPUS.flatMap((c) => c.problems.flatMap((problem, i) => (problem === p ? [`${c.input.id}#${i}`] : []))),
    );
    expect(clusters.map((c) => c.members)).toEqual(expected.map((keys) => expect.arrayContaining(keys)));
    expect(clusters.map((c) => c.members.length)).toEqual(expected.map((keys) => keys.length));
  });
});

describe('analyzerFor', () => {
  it('picks Workers AI only when AI is a binding with a run function, else the lexical analyzer', async () => {
    expect(analyzerFor({}).name).toBe(LEXICAL_ANALYZER);
    expect(analyzerFor({ AI: undefined }).name).toBe(LEXICAL_ANALYZER);
    expect(analyzerFor({ AI: null }).name).toBe(LEXICAL_ANALYZER);
    expect(analyzerFor({ AI: {} }).name).toBe(LEXICAL_ANALYZER);
    expect(analyzerFor({ AI: { run: 'no' } }).name).toBe(LEXICAL_ANALYZER);
    expect(analyzerFor({ AI: 'binding' }).name).toBe(LEXICAL_ANALYZER);

    const { binding, calls } = fakeAI({ response: { issues: [ISSUE] } });
    const analyzer = analyzerFor({ AI: binding });
    expect(analyzer.name).toBe(WORKERS_AI_ANALYZER);
    expect(await analyzer.extract(conversation(['user', 'Why?']))).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it('asks the instruction model CONVERSATIONS_AI_MODEL names, else the default one', async () => {
    for (const [configured, expected] of [[undefined, WORKERS_AI_INSTRUCTION_MODEL], ['@cf/meta/llama-4-scout-17b-16e-instruct', '@cf/meta/llama-4-scout-17b-16e-instruct']]) {
      const { binding, calls } = fakeAI({ response: { issues: [ISSUE] } });
      await analyzerFor({ AI: binding, CONVERSATIONS_AI_MODEL: configured }).extract(conversation(['user', 'Why?']));
      expect(calls.map((call) => call.model)).toEqual([expected]);
    }
  });
});
