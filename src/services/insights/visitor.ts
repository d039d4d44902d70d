/**
 * A user agent reduced to what GitBook's insights group by (`SiteInsightsVisitorBrowser`, `...OS`, `...Device`,
 * `...Bot`): the user agent itself is never stored. Plain substring rules, in the order that disambiguates them
 * (Edge and Opera say "Chrome", Chrome says "Safari", iPadOS says "Macintosh" only with touch, which a header cannot tell).
 */

export type Browser = 'chrome' | 'firefox' | 'safari' | 'edge' | 'ie' | 'opera' | 'unknown';
export type OS = 'windows' | 'macos' | 'linux' | 'android' | 'ios' | 'unknown';
export type Device = 'desktop' | 'tablet' | 'mobile' | 'unknown';

/** GitBook's bot names, by a token of the user agent (the first that matches). */
const BOTS: Array<[RegExp, string]> = [
  [/googlebot/i, 'googlebot'],
  [/bingbot/i, 'bingbot'],
  [/duckduckbot/i, 'duckduckbot'],
  [/duckassist/i, 'duckassist'],
  [/facebookexternalhit|facebookbot/i, 'facebookbot'],
  [/meta-externalfetcher/i, 'meta-fetcher'],
  [/meta-externalagent/i, 'meta'],
  [/applebot/i, 'applebot'],
  [/gptbot/i, 'gptbot'],
  [/chatgpt/i, 'chatgpt'],
  [/oai-searchbot|openai/i, 'openai'],
  [/claudebot/i, 'claudebot'],
  [/claude-code/i, 'claude-code'],
  [/claude-user|claude-searchbot|claude/i, 'claude'],
  [/anthropic/i, 'anthropic'],
  [/gemini|google-extended/i, 'gemini'],
  [/perplexity/i, 'perplexity'],
  [/cohere/i, 'cohere'],
  [/mistral/i, 'mistral'],
  [/deepseek/i, 'deepseek'],
  [/bytespider/i, 'bytespider'],
  [/ccbot/i, 'ccbot'],
  [/amazonbot/i, 'amazonbot'],
  [/youbot/i, 'youbot'],
  [/cursor/i, 'cursor'],
  [/vscode/i, 'vscode'],
  [/codex/i, 'codex'],
  [/opencode/i, 'opencode'],
  [/grok|xai/i, 'grok'],
  [/copilot/i, 'github-copilot'],
  [/bot\b|crawler|spider|headless/i, 'unknown'],
];

function browserOf(ua: string): Browser {
  if (/edg(e|a|ios)?\//i.test(ua)) return 'edge';
  if (/opr\/|opera/i.test(ua)) return 'opera';
  if (/msie |trident\//i.test(ua)) return 'ie';
  if (/firefox\/|fxios\//i.test(ua)) return 'firefox';
  if (/chrome\/|crios\//i.test(ua)) return 'chrome';
  if (/safari\//i.test(ua)) return 'safari';
  return 'unknown';
}

function osOf(ua: string): OS {
  if (/iphone|ipad|ipod/i.test(ua)) return 'ios';
  if (/android/i.test(ua)) return 'android';
  if (/windows/i.test(ua)) return 'windows';
  if (/mac os x|macintosh/i.test(ua)) return 'macos';
  if (/linux|x11/i.test(ua)) return 'linux';
  return 'unknown';
}

function deviceOf(ua: string): Device {
  if (!ua) return 'unknown';
  if (/ipad|tablet/i.test(ua) || (/android/i.test(ua) && !/mobile/i.test(ua))) return 'tablet';
  if (/mobile|iphone|ipod/i.test(ua)) return 'mobile';
  if (/windows|macintosh|x11|linux/i.test(ua)) return 'desktop';
  return 'unknown';
}

export function botOf(ua: string): string | null {
  for (const [pattern, name] of BOTS) if (pattern.test(ua)) return name;
  return null;
}

/** What insights keep of a user agent. */
export function visitorTraits(userAgent: string): { browser: Browser; os: OS; device: Device; bot: string | null } {
  return { browser: browserOf(userAgent), os: osOf(userAgent), device: deviceOf(userAgent), bot: botOf(userAgent) };
}
