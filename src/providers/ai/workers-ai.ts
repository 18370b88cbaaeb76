/**
 * Workers AI through the Worker's `AI` binding (`env.AI.run(model, { messages })`): no key and no
 * HTTP of ours, the platform routes the call. Text-generation models answer `{ response }`; with
 * `response_format: { type: 'json_object' }` some answer the object itself, which is serialised
 * back to text so every caller validates the same way.
 */
import { ProviderFailure } from '../failures';
import { type AiProvider, chatMessages, type Generation, maxTokensFor, type Prompt, promptVersion } from './interface';

/** The part of the binding this adapter uses (the Worker's `Ai` binding satisfies it). */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

const PROVIDER = 'workers-ai';

export function workersAi(binding: AiBinding, model: string): AiProvider {
  return {
    name: 'workers-ai',
    model,
    async generate<Vars>(prompt: Prompt<Vars>, vars: Vars): Promise<Generation> {
      let answer: unknown;
      try {
        answer = await binding.run(model, {
          messages: chatMessages(prompt, vars),
          max_tokens: maxTokensFor(prompt, vars),
          ...(prompt.json ? { response_format: { type: 'json_object' } } : {}),
        });
      } catch {
        // The binding's errors carry no status we could act on; its message is not ours to show.
        throw new ProviderFailure('unavailable', PROVIDER, null, 'Workers AI failed; try again later', 30);
      }
      const response = (answer as { response?: unknown } | null)?.response;
      const text =
        typeof response === 'string'
          ? response
          : response && typeof response === 'object'
            ? JSON.stringify(response)
            : null;
      if (!text || text.trim() === '') {
        throw new ProviderFailure('unavailable', PROVIDER, 200, 'Workers AI answered no text; try again later', 30);
      }
      return { text, provider: 'workers-ai', model, prompt_version: promptVersion(prompt) };
    },
  };
}
