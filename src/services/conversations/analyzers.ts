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
 * weights with embeddings. `CONVERSATIONS_AI_MODEL` names another instruction model (it must support JSON
 * mode); the embedding model stays one, as stored clusters' centroids are its vectors.
 */
export function analyzerFor(env: Pick<Env, 'AI' | 'CONVERSATIONS_AI_MODEL'>): ConversationAnalyzer {
  if (!isWorkersAI(env.AI)) return lexical;
  return createWorkersAIAnalyzer(env.AI, env.CONVERSATIONS_AI_MODEL ? { instructionModel: env.CONVERSATIONS_AI_MODEL } : {});
}
