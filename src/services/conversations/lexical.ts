/**
 * The lexical analyzer: deterministic, no model and no network, so it works everywhere (tests, offline
 * development, deployments without Workers AI).
 *
 * - Extraction: each USER message's plain text (text.ts) is cut into sentences (`Intl.Segmenter`,
 *   granularity `sentence`); a sentence describes a problem when it is a question (it ends with `?`, or
 *   starts with an interrogative: INTERROGATIVES, or QUESTION_OPENERS before a subject) or a negative statement (a word of NEGATIVE_CUES, a
 *   word starting with NEGATIVE_PREFIXES, or any `n't` contraction; BENIGN_PHRASES such as "no worries"
 *   are not negative). A message with at least one problem sentence yields one issue: its first problem
 *   sentence (the first with TITLE_MIN_TERMS terms, if one has them) is the title, its problem sentences
 *   (MAX_DETAIL_SENTENCES, MAX_DETAILS_CHARS) the details, and its impact comes from cue words
 *   (HIGH_IMPACT_CUES, MEDIUM_IMPACT_CUES). A conversation whose user messages repeat a problem yields one
 *   issue per message; messages of assistants and team members are never read.
 * - Vectors: the term frequencies of an issue's title and details (words by `Intl.Segmenter`, lowercased,
 *   STOP_WORDS removed, `stem`med), its MAX_VECTOR_TERMS most frequent terms, weights divided by their sum
 *   so that every issue weighs 1 in its cluster's centroid, whatever its length.
 * - Matching: TF-IDF over the organization's clusters (each cluster's centroid is one document) and
 *   cosine similarity; an issue joins its most similar cluster at LEXICAL_THRESHOLD or more.
 * - Description: a label of the centroid's top 3 terms as readers wrote them, an icon (ICON_KEYWORDS) and
 *   a summary naming the top terms and listing the newest titles.
 *
 * Vector keys are stems: object keys such as `constructor` are ordinary terms here, so every map is a
 * `Map` and vectors are built with `Object.fromEntries` (own properties, even `__proto__`).
 */
import {
  MAX_ISSUES_PER_CONVERSATION,
  type ClusterCandidate,
  type ClusterDescription,
  type ClusterMatcher,
  type ConversationAnalyzer,
  type ConversationText,
  type ExtractedIssue,
  type Vector,
} from './types';
import type { Impact } from '../../lib/conversations';
import { MAX_ANALYZED_BODY_CHARS, escapeMarkdown, markdownPlainText, plainText, truncate } from './text';

export const LEXICAL_ANALYZER = 'lexical';

/**
 * The least cosine similarity at which an issue joins a cluster. Issues about one problem share two to
 * four distinctive terms ("password reset email", "ssl certificate custom domain", "api rate limit 429
 * sync") among the 4 to 15 terms of a message: on the fixed corpus (test/fixtures/conversations/corpus.ts)
 * each scores 0.31 to 0.92 against its problem's cluster, and at most 0.06 against the others, which share
 * a generic word at most ("error", "api"). 0.2 sits between the two with a margin on both sides: a higher
 * value splits short restatements of a problem into clusters of their own, a lower one lets two problems
 * that share a product word ("email") merge.
 */
export const LEXICAL_THRESHOLD = 0.2;
/** Terms kept of an issue's vector: the most frequent ones (ties broken alphabetically, for determinism). */
export const MAX_VECTOR_TERMS = 32;
/** Problem sentences an issue's details quote at most. */
export const MAX_DETAIL_SENTENCES = 8;
/** Characters of an issue's details (before escaping) at most; a longer sentence is cut on a word. */
export const MAX_DETAILS_CHARS = 2_000;
const MAX_DETAIL_SENTENCE_CHARS = 500;
export const MAX_TITLE_CHARS = 200;
/**
 * Terms a problem sentence needs to be the title: a follow-up opens with "Any news?" or "Why?" before it
 * restates the problem, and the first sentence that names something is the better title.
 */
const TITLE_MIN_TERMS = 3;
export const MAX_LABEL_CHARS = 100;
/**
 * Characters of a conversation's messages analysed at most (each message's first MAX_ANALYZED_BODY_CHARS
 * count): a conversation of 200 long messages costs the CPU of five (Markdown that is all lists or
 * delimiters parses at up to about 30 ms per thousand characters: text.ts).
 */
export const MAX_ANALYZED_CONVERSATION_CHARS = 5 * MAX_ANALYZED_BODY_CHARS;
/** Longer "words" (pasted hashes, base64, URLs without spaces) are not terms. */
const MAX_WORD_LENGTH = 40;

/** Words that start a question even without its question mark ("how do I reset my password"). */
export const INTERROGATIVES = new Set(['how', 'why', 'what', 'where', 'when', 'which', 'who', 'anyone', 'anybody']);
/**
 * Words that start a question only before its subject ("can I export", "is the API down", "any idea why"):
 * alone they open polite closings too ("Have a great day", "Will do", "Any time").
 */
export const QUESTION_OPENERS = new Set([
  'can', 'could', 'would', 'should', 'is', 'are', 'was', 'were', 'does', 'do', 'did', 'will', 'has', 'have', 'shall',
  'may', 'might', 'any',
]);
/** What follows a QUESTION_OPENERS word when it asks: a subject, or what "any" asks for. */
export const QUESTION_SUBJECTS = new Set([
  'i', 'you', 'we', 'they', 'he', 'she', 'it', 'there', 'this', 'that', 'these', 'those', 'the', 'my', 'our', 'your',
  'their', 'his', 'her', 'its', 'someone', 'somebody', 'anyone', 'anybody', 'idea', 'ideas', 'way', 'update',
  'updates', 'news', 'chance', 'tips', 'suggestions', 'workaround',
]);
/** `down` is a problem only as a state ("the site is down"): "scroll down" is not one. */
export const DOWN_PHRASES = ['is down', 'was down', 'are down', 'were down', 'went down', 'goes down', 'been down', "'s down"];

/** Words that make a sentence a negative statement. Any contraction ending in `n't` counts too. */
export const NEGATIVE_CUES = new Set([
  'not', 'no', 'never', 'cannot', 'unable', 'broken', 'missing', 'wrong', 'stuck', 'blocked', 'blocking', 'nothing',
  'nobody', 'nowhere', 'neither', 'nor', 'incorrect', 'invalid', 'denied', 'refused', 'rejected', 'expired', 'lost',
  'timeout', 'outage', 'slow', 'confusing', 'confused', 'unclear', 'impossible', 'problem', 'problems',
  'exceeded', 'disappeared', 'stopped', 'unexpected', 'unavailable', 'forbidden', 'unauthorized',
]);
/** Word beginnings that make a sentence negative: fail, failed, failing, failure; crash, crashes; error, errors; bug, buggy. */
export const NEGATIVE_PREFIXES = ['fail', 'crash', 'error', 'bug', 'exception'];
/** Phrases that contain a negative word without describing a problem. */
export const BENIGN_PHRASES = [
  'no worries', 'no worry', 'no problem', 'no problems', 'not a problem', 'no rush', 'no hurry', 'no thanks', 'no longer an issue',
  'no longer a problem', 'no further questions', 'nothing else', 'not anymore', 'no more issues',
];

/** Cues of a high impact (the reader cannot work, or something is at risk). Phrases match whole words. */
export const HIGH_IMPACT_CUES = [
  'blocked', 'blocking', 'blocker', 'cannot', "can't", 'unable', 'outage', ...DOWN_PHRASES, 'crash', 'crashes', 'crashed',
  'crashing', 'data loss', 'lost data', 'lost all', 'urgent', 'urgently', 'asap', 'emergency', 'critical', 'production',
  'security', 'breach', 'vulnerability', 'locked out', 'impossible',
];
/** Cues of a medium impact (something misbehaves or misleads); words starting with `error`, `fail` or `bug` count too. */
export const MEDIUM_IMPACT_CUES = [
  'broken', 'wrong', "doesn't work", 'does not work', 'not working', "isn't working", "won't work", 'confusing', 'confused',
  'unclear', 'incorrect', 'invalid', 'timeout', 'timed out', 'missing', 'stuck', 'slow', 'exceeded', 'denied', 'expired',
  'unexpected', 'never',
];
const MEDIUM_IMPACT_PREFIXES = ['error', 'fail', 'bug', 'exception'];

/**
 * English function words and the small talk of support conversations (greetings, thanks, "still",
 * "trying"), which say nothing about what a problem is about. Words with an apostrophe (contractions:
 * can't, I'm, it's) are stop words too.
 */
export const STOP_WORDS = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'anyone', 'anything', 'are',
  'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'cannot',
  'could', 'did', 'do', 'does', 'doing', 'done', 'down', 'during', 'each', 'either', 'else', 'even', 'ever', 'every',
  'few', 'for', 'from', 'further', 'get', 'gets', 'getting', 'got', 'had', 'has', 'have', 'having', 'he', 'her', 'here',
  'hers', 'herself', 'him', 'himself', 'his', 'how', 'however', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself',
  'just', 'let', 'like', 'may', 'me', 'might', 'more', 'most', 'much', 'must', 'my', 'myself', 'neither', 'never', 'no',
  'nor', 'not', 'nothing', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'ourselves', 'out',
  'over', 'own', 'same', 'shall', 'she', 'should', 'since', 'so', 'some', 'someone', 'something', 'still', 'such', 'than',
  'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'though',
  'through', 'to', 'too', 'under', 'until', 'up', 'upon', 'us', 'very', 'was', 'we', 'were', 'what', 'when', 'where',
  'whether', 'which', 'while', 'who', 'whom', 'why', 'will', 'with', 'within', 'without', 'would', 'yet', 'you', 'your',
  'yours', 'yourself', 'yourselves',
  // Small talk and filler of support conversations.
  'hi', 'hello', 'hey', 'dear', 'thanks', 'thank', 'thx', 'please', 'pls', 'regards', 'cheers', 'best', 'team', 'support',
  'help', 'helps', 'helped', 'helping', 'ok', 'okay', 'yes', 'yeah', 'hope', 'know', 'want', 'wanted', 'need', 'needed',
  'try', 'tried', 'tries', 'trying', 'seem', 'seems', 'seemed', 'thing', 'things', 'way', 'today', 'yesterday', 'really',
  'already', 'anymore', 'again', 'sure', 'maybe', 'possible', 'able', 'unable', 'look', 'looks', 'looking', 'see', 'saw',
  'said', 'say', 'says', 'tell', 'told', 'keep', 'keeps', 'kept', 'make', 'makes', 'made', 'one', 'two', 'lot', 'bit',
]);

const segmenters: Partial<Record<'sentence' | 'word', Intl.Segmenter>> = {};
/**
 * Made on first use, not when the module loads: every isolate loads this module (the queue consumer is in the
 * Worker), and making both takes tens of milliseconds of start-up that requests which analyse nothing would pay.
 */
function segmenter(granularity: 'sentence' | 'word'): Intl.Segmenter {
  return (segmenters[granularity] ??= new Intl.Segmenter('en', { granularity }));
}

/** The sentences of a text, trimmed, spaces collapsed; a line break always ends one. */
export function* sentences(text: string): Generator<string> {
  for (const { segment } of segmenter('sentence').segment(text)) {
    const sentence = segment.replace(/\s+/g, ' ').trim();
    if (sentence) yield sentence;
  }
}

/** The words of a text, lowercased, typographic apostrophes made plain, punctuation around them dropped. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const segment of segmenter('word').segment(text.replace(/[\u2018\u2019\u02bc]/g, "'"))) {
    if (!segment.isWordLike) continue;
    const word = trimToLettersAndDigits(segment.segment.toLowerCase());
    if (word && word.length <= MAX_WORD_LENGTH) out.push(word);
  }
  return out;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * The word without what surrounds its letters and digits ("_foo_" → "foo"). A loop, not an end-anchored
 * regex: `[^\p{L}\p{N}]+$` retries from every position of a long run of underscores (quadratic).
 */
function trimToLettersAndDigits(word: string): string {
  const chars = Array.from(word);
  let start = 0;
  while (start < chars.length && !LETTER_OR_DIGIT.test(chars[start])) start++;
  let end = chars.length;
  while (end > start && !LETTER_OR_DIGIT.test(chars[end - 1])) end--;
  return start === 0 && end === chars.length ? word : chars.slice(start, end).join('');
}

const VOWEL = /[aeiouy]/;
const UNDOUBLED = /([bdfgkmnprt])\1$/;

/**
 * A light English stemmer, so that the forms of one word share a term: a possessive `'s` goes; plurals
 * (`-ies` → `-y`, `-es` after s/x/z/ch/sh, `-s` but not `-ss`, `-us`, `-is`); then `-ing` and `-ed` (when
 * a syllable remains), undoubling a final consonant (resetting → reset, stopped → stop); then a final
 * `-e` of a long word (arrive, arrives, arrived, arriving → arriv). Stems need not be words: `describe`
 * finds the words readers used.
 */
export function stem(word: string): string {
  let w = word.endsWith("'s") ? word.slice(0, -2) : word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    if (!w.endsWith(suffix) || (suffix === 'ed' && w.endsWith('eed'))) continue;
    const base = w.slice(0, -suffix.length);
    if (base.length >= 3 && VOWEL.test(base)) w = UNDOUBLED.test(base) ? base.slice(0, -1) : base;
    break;
  }
  if (w.length > 4 && w.endsWith('e') && !w.endsWith('ee')) w = w.slice(0, -1);
  return w;
}

function isStopWord(word: string): boolean {
  return word.length < 2 || word.includes("'") || STOP_WORDS.has(word);
}

/** The terms of a text: stems of its words that are not stop words, in order. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (isStopWord(word)) continue;
    const term = stem(word);
    if (!STOP_WORDS.has(term)) out.push(term);
  }
  return out;
}

/** ` w1 w2 … ` — so that phrases match whole words with `includes(' phrase ')`. */
function spaced(tokens: string[]): string {
  return ` ${tokens.join(' ')} `;
}

/** Whether a sentence is a question or a negative statement. */
export function isProblemSentence(sentence: string): boolean {
  const tokens = words(sentence);
  if (tokens.length === 0) return false;
  if (/\?[\s"')\]»”]*$/.test(sentence) || INTERROGATIVES.has(tokens[0])) return true;
  if (QUESTION_OPENERS.has(tokens[0]) && QUESTION_SUBJECTS.has(tokens[1])) return true;
  let text = spaced(tokens);
  if (DOWN_PHRASES.some((phrase) => text.includes(` ${phrase} `))) return true;
  for (const phrase of BENIGN_PHRASES) text = text.replaceAll(` ${phrase} `, ' ');
  return text
    .trim()
    .split(' ')
    .some((t) => NEGATIVE_CUES.has(t) || t.endsWith("n't") || NEGATIVE_PREFIXES.some((p) => t.startsWith(p)));
}

/** The impact the cue words of these sentences name: high, else medium, else low. */
export function impactOf(problemSentences: string[]): Impact {
  const tokens = problemSentences.flatMap((s) => words(s));
  const text = spaced(tokens);
  if (HIGH_IMPACT_CUES.some((cue) => text.includes(` ${cue} `))) return 'high';
  if (MEDIUM_IMPACT_CUES.some((cue) => text.includes(` ${cue} `))) return 'medium';
  if (tokens.some((t) => MEDIUM_IMPACT_PREFIXES.some((p) => t.startsWith(p)))) return 'medium';
  return 'low';
}

/** The issue a user message describes, if it describes one. */
export function messageIssue(text: string): ExtractedIssue | undefined {
  const problems: string[] = [];
  let chars = 0;
  for (const sentence of sentences(text)) {
    if (!isProblemSentence(sentence)) continue;
    const quoted = truncate(sentence, MAX_DETAIL_SENTENCE_CHARS);
    if (problems.length > 0 && chars + quoted.length > MAX_DETAILS_CHARS) break;
    problems.push(quoted);
    chars += quoted.length + 1;
    if (problems.length === MAX_DETAIL_SENTENCES) break;
  }
  if (problems.length === 0) return undefined;
  return {
    title: truncate(problems.find((p) => terms(p).length >= TITLE_MIN_TERMS) ?? problems[0], MAX_TITLE_CHARS),
    details: problems.map(escapeMarkdown).join(' '),
    impact: impactOf(problems),
  };
}

async function extract(conversation: ConversationText): Promise<ExtractedIssue[]> {
  const issues: ExtractedIssue[] = [];
  let budget = MAX_ANALYZED_CONVERSATION_CHARS;
  for (const part of conversation.parts) {
    if (issues.length === MAX_ISSUES_PER_CONVERSATION || budget <= 0) break;
    if (part.type !== 'message' || part.role !== 'user' || typeof part.body !== 'string') continue;
    const body = part.body.slice(0, Math.min(budget, MAX_ANALYZED_BODY_CHARS));
    budget -= body.length;
    const issue = messageIssue(plainText(body));
    if (issue) issues.push(issue);
  }
  return issues;
}

const byCountThenTerm = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The MAX_VECTOR_TERMS most frequent terms of a text, weights summing to 1 (none when it has no terms). */
export function termVector(text: string): Vector {
  const counts = new Map<string, number>();
  for (const term of terms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const top = [...counts].sort(byCountThenTerm).slice(0, MAX_VECTOR_TERMS);
  const total = top.reduce((sum, [, count]) => sum + count, 0);
  return Object.fromEntries(top.map(([term, count]) => [term, count / total]));
}

/** An issue's vector: its title and the text of its details (the title is their first sentence, so it counts twice: it is the gist). */
export function issueVector(issue: ExtractedIssue): Vector {
  return termVector(`${issue.title}\n${markdownPlainText(issue.details)}`);
}

/** The positive, finite weights of a vector (a stored centroid is trusted no further). */
function weights(vector: Vector): [string, number][] {
  return Object.entries(vector).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && e[1] > 0);
}

interface Weighted {
  terms: Map<string, number>;
  norm: number;
}

function weigh(entries: [string, number][], idf: (term: string) => number): Weighted {
  const terms = new Map<string, number>();
  let squares = 0;
  for (const [term, weight] of entries) {
    const w = weight * idf(term);
    terms.set(term, w);
    squares += w * w;
  }
  return { terms, norm: Math.sqrt(squares) };
}

/**
 * TF-IDF cosine matcher. The documents are the clusters (their centroid term weights) and the candidate:
 * idf(t) = ln((1 + N) / (1 + df(t))) + 1, N the number of clusters, df(t) how many of them have t (the
 * smoothed idf of scikit-learn: a term every cluster has still counts a little, one no cluster has
 * counts most, which lowers the candidate's similarity to all of them alike). Ties go to the earlier
 * cluster, so the result depends only on the input.
 */
export function lexicalMatcher(clusters: ClusterCandidate[]): ClusterMatcher {
  if (clusters.length === 0) return () => undefined;
  const entries = clusters.map((c) => weights(c.centroid));
  const df = new Map<string, number>();
  for (const list of entries) for (const [term] of list) df.set(term, (df.get(term) ?? 0) + 1);
  const n = clusters.length;
  const idf = (term: string) => Math.log((1 + n) / (1 + (df.get(term) ?? 0))) + 1;
  const documents = entries.map((list) => weigh(list, idf));
  return (vector) => {
    const candidate = weigh(weights(vector), idf);
    let best: { cluster: ClusterCandidate; score: number } | undefined;
    documents.forEach((doc, i) => {
      let dot = 0;
      for (const [term, w] of candidate.terms) dot += w * (doc.terms.get(term) ?? 0);
      const score = candidate.norm > 0 && doc.norm > 0 ? Math.min(1, Math.max(0, dot / (candidate.norm * doc.norm))) : 0;
      if (!best || score > best.score) best = { cluster: clusters[i], score };
    });
    return best;
  };
}

/**
 * Icons by topic, GitBook icon names, the first topic listed winning a tie. `iconFor` looks the terms up
 * in order of weight: the heaviest term with a topic names the icon; `circle-question` otherwise.
 */
export const ICON_KEYWORDS: [icon: string, keywords: string[]][] = [
  ['key', ['password', 'passwords', 'login', 'log', 'signin', 'sign', 'sso', 'saml', 'oauth', '2fa', 'mfa', 'otp', 'credential', 'account', 'authentication', 'invite', 'invitation']],
  ['credit-card', ['billing', 'invoice', 'payment', 'pay', 'plan', 'subscription', 'price', 'pricing', 'charge', 'charged', 'card', 'refund', 'trial', 'seat']],
  ['lock', ['ssl', 'tls', 'certificate', 'https', 'security', 'permission', 'access', 'private', 'visibility', 'role']],
  ['globe', ['domain', 'subdomain', 'dns', 'cname', 'website', 'site', 'url', 'redirect', 'publish', 'published']],
  ['plug', ['api', 'integration', 'webhook', 'sync', 'synchronization', 'rate', 'limit', '429', 'endpoint', 'request', 'token', 'github', 'gitlab', 'git']],
  ['magnifying-glass', ['search', 'find', 'index', 'result']],
  ['book', ['doc', 'docs', 'documentation', 'page', 'article', 'guide', 'content', 'space', 'collection', 'editor']],
  ['gear', ['setting', 'settings', 'config', 'configure', 'configuration', 'option', 'customize', 'customization']],
  ['bug', ['error', 'bug', 'crash', 'broken', 'fail', 'failure', 'exception']],
];
export const DEFAULT_ICON = 'circle-question';
const ICON_BY_TERM = new Map<string, string>();
for (const [icon, keywords] of ICON_KEYWORDS) for (const keyword of keywords) if (!ICON_BY_TERM.has(stem(keyword))) ICON_BY_TERM.set(stem(keyword), icon);

/** The icon of the first of these terms (stems, most important first) that has one. */
export function iconFor(orderedTerms: Iterable<string>): string {
  for (const term of orderedTerms) {
    const icon = ICON_BY_TERM.get(term);
    if (icon) return icon;
  }
  return DEFAULT_ICON;
}

/** Terms of these texts, most frequent first (ties: first seen). */
export function rankedTerms(texts: string[]): string[] {
  const counts = new Map<string, number>();
  for (const text of texts) for (const term of terms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  // Map order is first-seen order and the sort is stable.
  return [...counts].sort((a, b) => b[1] - a[1]).map(([term]) => term);
}

/** Each stem's most frequent word in these texts (ties: first seen), so labels read as readers wrote. */
function surfaceForms(texts: string[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const text of texts) {
    for (const word of words(text)) {
      if (isStopWord(word)) continue;
      const forms = counts.get(stem(word)) ?? new Map<string, number>();
      forms.set(word, (forms.get(word) ?? 0) + 1);
      counts.set(stem(word), forms);
    }
  }
  const out = new Map<string, string>();
  for (const [term, forms] of counts) out.set(term, [...forms].sort((a, b) => b[1] - a[1])[0][0]);
  return out;
}

/** The terms in the order of the title that has most of them (newest first on a tie), so that a label reads as a phrase. */
function inTitleOrder(top: string[], titles: string[]): string[] {
  let order: string[] = [];
  let found = 0;
  for (const title of titles) {
    const titleTerms = terms(title);
    const count = top.filter((t) => titleTerms.includes(t)).length;
    if (count > found) [order, found] = [titleTerms, count];
  }
  const position = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length + top.indexOf(t));
  return [...top].sort((a, b) => position(a) - position(b));
}

function listing(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Markdown: the sentence, then up to 3 titles as a bulleted list (user text, escaped). */
export function summaryMarkdown(sentence: string, titles: string[]): string {
  const bullets = titles.slice(0, 3).map((title) => `- ${escapeMarkdown(title)}`);
  return bullets.length ? `${sentence}\n\n${bullets.join('\n')}` : sentence;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A term names a cluster only with at least this share of its heaviest term's weight: what one or two of its
 * issues say (a ticket number, a customer's name) is no label, however few terms the others share.
 */
export const LABEL_MIN_SHARE = 0.25;

export function describeLexically(centroid: Vector, titles: string[]): ClusterDescription {
  const weighted = weights(centroid).sort(byCountThenTerm);
  const ranked = weighted.map(([term]) => term);
  const labelTerms = weighted.filter(([, weight]) => weight >= LABEL_MIN_SHARE * weighted[0][1]).map(([term]) => term);
  const forms = surfaceForms(titles);
  const top = inTitleOrder(labelTerms.slice(0, 3), titles).map((term) => forms.get(term) ?? term);
  const label = top.length ? capitalize(top.join(' ')) : titles[0] ?? 'Other conversations';
  const sentence = top.length ? `Conversations about ${escapeMarkdown(listing(top))}.` : 'Conversations without distinctive terms.';
  return {
    label: truncate(label, MAX_LABEL_CHARS),
    icon: iconFor(ranked.slice(0, 10)),
    summary: summaryMarkdown(sentence, titles),
  };
}

export function createLexicalAnalyzer(): ConversationAnalyzer {
  return {
    name: LEXICAL_ANALYZER,
    threshold: LEXICAL_THRESHOLD,
    extract,
    vectorize: async (issues) => issues.map(issueVector),
    matcher: lexicalMatcher,
    describe: describeLexically,
  };
}

