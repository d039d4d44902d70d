import type { Env } from '../../env';

/**
 * The machine translator behind translation runs. Production: Workers AI (the optional `AI` binding).
 * Without it no translator is configured and a run fails saying so: never a fake translation. Tests inject
 * a deterministic one through the same seam (a fake `AI` binding whose `run` answers `translated_text`).
 */
export interface TranslateOptions {
  /** GitBook language codes (TranslationLanguage). */
  source: string;
  target: string;
  /** The translation's instructions as plain text, for models that take them. */
  instructions?: string;
}

export interface Translator {
  name: string;
  /** One translation per text, in order. Texts are plain text without leading or trailing whitespace. */
  translate(texts: string[], options: TranslateOptions): Promise<string[]>;
}

/** What the Workers AI translator uses of the `AI` binding (`Ai` of @cloudflare/workers-types has it). */
export interface WorkersAIBinding {
  run(model: string, input: unknown): Promise<unknown>;
}

/** A translation model of Workers AI; `TRANSLATIONS_AI_MODEL` names another of the same input shape. */
export const WORKERS_AI_TRANSLATION_MODEL = '@cf/meta/m2m100-1.2b';

export const NO_TRANSLATOR_MESSAGE = 'No translator is configured: bind Workers AI (`[ai] binding = "AI"` in wrangler.toml) to translate';

/**
 * Calls of the model in flight at once. Each text is one call (m2m100 takes one `text`): joining texts with a
 * separator would let the model translate, drop or merge the separator, and the texts could no longer be told
 * apart. The chunking of runs (services/translations/run.ts) bounds the calls per queue message.
 */
const CONCURRENT_CALLS = 6;

/** m2m100's codes for GitBook's languages where they differ (it has no regional or Cantonese variant). */
const M2M100_CODES: Record<string, string> = { 'pt-br': 'pt', 'zh-tw': 'zh', yue: 'zh' };
export const m2m100Code = (language: string) => M2M100_CODES[language] ?? language;

function isWorkersAI(ai: unknown): ai is WorkersAIBinding {
  return typeof ai === 'object' && ai !== null && typeof (ai as { run?: unknown }).run === 'function';
}

function translatedText(output: unknown, model: string): string {
  const text = output && typeof output === 'object' ? (output as { translated_text?: unknown }).translated_text : undefined;
  if (typeof text !== 'string') throw new Error(`Workers AI (${model}) answered without a translated_text`);
  return text;
}

/**
 * Workers AI's translation models take `{ text, source_lang, target_lang }` and answer `{ translated_text }`.
 * They take no instructions (m2m100 is a sequence-to-sequence model, not an instruction model): the
 * translation's instructions are stored and shown, and not sent to such a model.
 */
export function createWorkersAITranslator(ai: WorkersAIBinding, model = WORKERS_AI_TRANSLATION_MODEL): Translator {
  return {
    name: `workers-ai:${model}`,
    async translate(texts, options) {
      const out: string[] = new Array(texts.length);
      let next = 0;
      const worker = async () => {
        while (next < texts.length) {
          const i = next++;
          const answer = await ai.run(model, { text: texts[i], source_lang: m2m100Code(options.source), target_lang: m2m100Code(options.target) });
          out[i] = translatedText(answer, model).trim();
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENT_CALLS, texts.length) }, worker));
      return out;
    },
  };
}

/** The deployment's translator: Workers AI when `AI` is bound (anything with a `run` function), else none. */
export function translatorFor(env: Pick<Env, 'AI' | 'TRANSLATIONS_AI_MODEL'>): Translator | null {
  if (!isWorkersAI(env.AI)) return null;
  return createWorkersAITranslator(env.AI, env.TRANSLATIONS_AI_MODEL || WORKERS_AI_TRANSLATION_MODEL);
}
