/**
 * Workers AI through the Worker's `AI` binding (`env.AI.run(model, { messages })`): no key and no
 * HTTP of ours, the platform routes the call. Text-generation models answer `{ response }`; with
 * `response_format: { type: 'json_object' }` some answer the object itself, which is serialised
 * back to text so every caller validates the same way.
 *
 * A cut-off answer (stopped at `max_tokens`) is refused like the OpenAI-compatible adapter refuses
 * `finish_reason: 'length'`, so nothing is kept or charged. Workers AI's documented text-generation
 * output (`AiTextGenerationOutput` in @cloudflare/workers-types: `{ response, tool_calls, usage }`)
 * carries no finish reason, but its `usage.completion_tokens` does: an answer that used every token
 * it was allowed was stopped by the limit (it may have ended exactly there; a rerun costs less than
 * keeping half a note). Models served in the OpenAI chat-completion shape (`choices[].finish_reason`,
 * e.g. @cf/openai/gpt-oss-*) are read by their finish reason, and their text from the first choice.
 * A model that reports neither cannot be told apart from a whole answer (docs/providers.md).
 */
import { ProviderFailure } from '../failures';
import { type AiProvider, chatMessages, type Generation, maxTokensFor, type Prompt, promptVersion } from './interface';

/** The part of the binding this adapter uses (the Worker's `Ai` binding satisfies it). */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

const PROVIDER = 'workers-ai';

/** What the adapter reads of an answer: the classic `{ response, usage }`, or an OpenAI-shaped one. */
interface WorkersAiAnswer {
  response?: unknown;
  usage?: { completion_tokens?: unknown };
  choices?: { finish_reason?: unknown; message?: { content?: unknown } }[];
}

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
      const maxTokens = maxTokensFor(prompt, vars);
      const shaped = (answer ?? {}) as WorkersAiAnswer;
      const choice = Array.isArray(shaped.choices) ? shaped.choices[0] : undefined;
      const completionTokens = shaped.usage?.completion_tokens;
      if (
        choice?.finish_reason === 'length' ||
        (typeof completionTokens === 'number' && completionTokens >= maxTokens)
      ) {
        throw new ProviderFailure(
          'rejected',
          PROVIDER,
          200,
          "the AI provider's answer was cut off at its length limit; try a shorter text",
        );
      }
      const response = shaped.response ?? choice?.message?.content;
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
