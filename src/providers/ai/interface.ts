/**
 * What the rest of the code may ask of an AI provider: one generation from a versioned prompt.
 * A prompt (modules/intelligence/prompts/) says what to ask a model (`system`, `user`) and how
 * the local provider composes the same answer from the record's data without a model (`local`).
 * Every generation records the provider, the model and the prompt's version, so a stored output
 * always says where it came from. Failures are ProviderFailure (providers/failures.ts).
 */

export const AI_PROVIDERS = ['local', 'openai', 'workers-ai'] as const;
export type AiProviderName = (typeof AI_PROVIDERS)[number];

export interface Prompt<Vars> {
  /** Stable name, e.g. `email-draft`. */
  id: string;
  /** Bumped whenever the wording changes; recorded with every output as `<id>@v<version>`. */
  version: number;
  system: string;
  user(vars: Vars): string;
  /** The local provider's deterministic answer, composed from templates and the record's data. */
  local(vars: Vars): string;
  /** The answer must be a JSON object (validated by the caller with zod, never run as code or SQL). */
  json?: boolean;
  /**
   * The most tokens the answer may take: a number, or one computed from the call's values for a
   * prompt whose answer grows with its input (a rewrite is as long as what it rewrites). A remote
   * answer cut off at this limit is a failure (refunded), never kept as if it were whole.
   */
  maxTokens: number | ((vars: Vars) => number);
}

export interface Generation {
  text: string;
  provider: AiProviderName;
  model: string;
  /** `<prompt id>@v<version>`. */
  prompt_version: string;
}

export interface AiProvider {
  readonly name: AiProviderName;
  readonly model: string;
  generate<Vars>(prompt: Prompt<Vars>, vars: Vars): Promise<Generation>;
}

export function promptVersion(prompt: { id: string; version: number }): string {
  return `${prompt.id}@v${prompt.version}`;
}

/** The answer's token limit for this call (`Prompt.maxTokens`). */
export function maxTokensFor<Vars>(prompt: Prompt<Vars>, vars: Vars): number {
  return typeof prompt.maxTokens === 'function' ? prompt.maxTokens(vars) : prompt.maxTokens;
}

/** The chat messages a remote provider is sent for a prompt. */
export function chatMessages<Vars>(prompt: Prompt<Vars>, vars: Vars) {
  return [
    { role: 'system' as const, content: prompt.system },
    { role: 'user' as const, content: prompt.user(vars) },
  ];
}
