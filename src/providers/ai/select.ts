/**
 * The AI provider of this deployment, from its configuration (one per Worker; the organization
 * pays in credits whichever it is):
 *   AI_PROVIDER   local (default) | openai | workers-ai
 *   AI_BASE_URL   openai: the chat-completions base URL (default https://api.openai.com/v1)
 *   AI_MODEL      the model (openai: required; workers-ai: default @cf/meta/llama-3.1-8b-instruct-fast)
 *   AI_API_KEY    openai: the key (a secret: `wrangler secret put AI_API_KEY`)
 *   AI            workers-ai: the Workers AI binding ([ai] binding = "AI" in wrangler.toml)
 * A provider configured incompletely answers 503 `ai_not_configured` on the AI routes only, and
 * the log says what is missing; no other route depends on it.
 */
import { ServiceUnavailable } from '../../core/errors';
import { log } from '../../core/log';
import type { AiProvider } from './interface';
import { localAi } from './local';
import { openAiCompatible } from './openai-compatible';
import { type AiBinding, workersAi } from './workers-ai';

export interface AiSettings {
  AI_PROVIDER?: string;
  AI_BASE_URL?: string;
  AI_MODEL?: string;
  AI_API_KEY?: string;
  AI?: AiBinding;
}

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_WORKERS_AI_MODEL = '@cf/meta/llama-3.1-8b-instruct-fast';

function notConfigured(fault: string): ServiceUnavailable {
  log.error('AI provider not configured', { fault });
  return new ServiceUnavailable(
    'The AI provider of this server is not configured; an operator must set it up',
    'ai_not_configured',
  );
}

export function aiProviderFor(env: AiSettings): AiProvider {
  const provider = (env.AI_PROVIDER ?? 'local').trim().toLowerCase();
  switch (provider) {
    case '':
    case 'local':
      return localAi();
    case 'openai': {
      if (!env.AI_API_KEY) throw notConfigured('AI_PROVIDER=openai needs AI_API_KEY');
      if (!env.AI_MODEL) throw notConfigured('AI_PROVIDER=openai needs AI_MODEL');
      return openAiCompatible({
        baseUrl: env.AI_BASE_URL || DEFAULT_OPENAI_BASE_URL,
        model: env.AI_MODEL,
        apiKey: env.AI_API_KEY,
      });
    }
    case 'workers-ai':
      if (!env.AI) throw notConfigured('AI_PROVIDER=workers-ai needs the AI binding ([ai] binding = "AI")');
      return workersAi(env.AI, env.AI_MODEL || DEFAULT_WORKERS_AI_MODEL);
    default:
      throw notConfigured(`AI_PROVIDER must be local, openai or workers-ai, not ${provider}`);
  }
}
