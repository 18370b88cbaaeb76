/**
 * An OpenAI-compatible chat-completions endpoint through the official `openai` SDK (which runs on
 * Workers: it only needs fetch). The base URL, model and key come from configuration, so the one
 * adapter serves OpenAI (`https://api.openai.com/v1`), Workers AI's OpenAI-compatible endpoint
 * (`https://api.cloudflare.com/client/v4/accounts/<account>/ai/v1`) or any compatible server.
 * The SDK's own retries are off: a queued job retries through the queue, a waiting route answers
 * 503 with Retry-After (providers/failures.ts).
 */
import OpenAI from 'openai';
import { ProviderFailure } from '../failures';
import { type AiProvider, chatMessages, type Generation, maxTokensFor, type Prompt, promptVersion } from './interface';

export interface OpenAiSettings {
  baseUrl: string;
  model: string;
  apiKey: string;
  /** Per request, milliseconds. */
  timeoutMs?: number;
}

const PROVIDER = 'openai';

export function openAiCompatible(settings: OpenAiSettings): AiProvider {
  const client = new OpenAI({
    apiKey: settings.apiKey,
    baseURL: settings.baseUrl,
    maxRetries: 0,
    timeout: settings.timeoutMs ?? 60_000,
    // The global fetch at call time (Workers' own, or a test's mock), not one captured at start-up.
    fetch: (input, init) => fetch(input, init),
  });
  return {
    name: 'openai',
    model: settings.model,
    async generate<Vars>(prompt: Prompt<Vars>, vars: Vars): Promise<Generation> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create({
          model: settings.model,
          messages: chatMessages(prompt, vars),
          max_tokens: maxTokensFor(prompt, vars),
          temperature: 0.4,
          ...(prompt.json ? { response_format: { type: 'json_object' as const } } : {}),
        });
      } catch (error) {
        throw failureOf(error);
      }
      // A compatible server (a proxy, a gateway) may answer 200 with something else: an error
      // object, a page, no choices. That is no answer (a temporary failure below), never a crash.
      const choices = (completion as { choices?: unknown } | null)?.choices;
      const choice = Array.isArray(choices)
        ? (choices[0] as (typeof completion.choices)[number] | undefined)
        : undefined;
      // Stopped at max_tokens: the rest of the answer is missing (half a rewritten note, a JSON
      // object without its end). Nothing is kept or charged.
      if (choice?.finish_reason === 'length') {
        throw new ProviderFailure(
          'rejected',
          PROVIDER,
          200,
          "the AI provider's answer was cut off at its length limit; try a shorter text",
        );
      }
      const text = choice?.message?.content;
      if (typeof text !== 'string' || text.trim() === '') {
        throw new ProviderFailure(
          'unavailable',
          PROVIDER,
          200,
          'the AI provider answered no text; try again later',
          30,
        );
      }
      return {
        text,
        provider: 'openai',
        model: (typeof completion.model === 'string' && completion.model) || settings.model,
        prompt_version: promptVersion(prompt),
      };
    },
  };
}

/** The SDK's errors as our ProviderFailure: never the provider's body or our key. */
function failureOf(error: unknown): ProviderFailure {
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    if (status === 429 || status >= 500) {
      const retryAfter = Number(error.headers?.get?.('retry-after'));
      return new ProviderFailure(
        'unavailable',
        PROVIDER,
        status,
        `the AI provider is unavailable (${status}); try again later`,
        Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(3600, Math.ceil(retryAfter)) : 30,
      );
    }
    if (status === 401 || status === 403) {
      return new ProviderFailure('auth', PROVIDER, status, `the AI provider refused the configured key (${status})`);
    }
    return new ProviderFailure('rejected', PROVIDER, status, `the AI provider refused the request (${status})`);
  }
  return new ProviderFailure(
    'unavailable',
    PROVIDER,
    null,
    'the AI provider could not be reached; try again later',
    30,
  );
}
