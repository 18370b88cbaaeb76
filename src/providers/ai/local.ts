/**
 * The local AI provider: no network and no model. It answers each prompt with the prompt's own
 * template filled from the record's data, deterministically, and says so (`provider: local`,
 * model `local-template`). The default under `npm start` and in the tests, so every AI route works
 * offline; it costs credits like a real provider, so the charging flow is exercised too.
 */
import { type AiProvider, type Generation, type Prompt, promptVersion } from './interface';

export const LOCAL_MODEL = 'local-template';

export function localAi(): AiProvider {
  return {
    name: 'local',
    model: LOCAL_MODEL,
    async generate<Vars>(prompt: Prompt<Vars>, vars: Vars): Promise<Generation> {
      return { text: prompt.local(vars), provider: 'local', model: LOCAL_MODEL, prompt_version: promptVersion(prompt) };
    },
  };
}
