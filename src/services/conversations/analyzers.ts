import type { Env } from '../../env';
import { createLexicalAnalyzer } from './lexical';
import type { ConversationAnalyzer } from './types';
import { createWorkersAIAnalyzer, type WorkersAIBinding } from './workers-ai';

const lexical = createLexicalAnalyzer();

function isWorkersAI(ai: unknown): ai is WorkersAIBinding {
  return typeof ai === 'object' && ai !== null && typeof (ai as { run?: unknown }).run === 'function';
}

/**
 * The deployment's analyzer: Workers AI when the optional `AI` binding is configured (wrangler.toml `[ai]`;
 * anything with a `run` function), else the lexical analyzer, which needs nothing. Clusters remember the
 * analyzer that made them, so binding or unbinding `AI` starts new clusters instead of comparing term
 * weights with embeddings.
 */
export function analyzerFor(env: Pick<Env, 'AI'>): ConversationAnalyzer {
  return isWorkersAI(env.AI) ? createWorkersAIAnalyzer(env.AI) : lexical;
}
