/**
 * The AI providers against their documented wire formats: the OpenAI-compatible adapter (official
 * `openai` SDK) with the network mocked at fetch, asserting the chat-completions request (URL,
 * method, bearer key, model, messages, max_tokens, response_format) and replaying documented
 * answers and errors; the Workers AI adapter with a fake binding at the binding boundary; the
 * local provider's determinism. Then a route on a real provider: a failing model is a 503 with
 * Retry-After and the reservation is refunded.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../src/index';
import { ProviderFailure } from '../src/providers/failures';
import { aiProviderFor } from '../src/providers/ai/select';
import { localAi } from '../src/providers/ai/local';
import { maxTokensFor } from '../src/providers/ai/interface';
import { openAiCompatible } from '../src/providers/ai/openai-compatible';
import { workersAi } from '../src/providers/ai/workers-ai';
import { structuredOutput } from '../src/providers/ai/structured';
import { STARTING_GRANT } from '../src/modules/credits';
import { emailDraftPrompt } from '../src/modules/intelligence/prompts/email-draft.v1';
import { magicpenPrompt } from '../src/modules/intelligence/prompts/magicpen.v1';
import { EmailAnswer } from '../src/modules/intelligence/tool-schemas';
import { call, randomIp, signupOrganization } from './helpers/api';
import { json, mockFetch } from './helpers/fetch-mock';

/** A chat.completion object as documented (https://platform.openai.com/docs/api-reference/chat/object). */
function completion(content: string, model = 'gpt-4o-mini-2024-07-18', finishReason = 'stop') {
  return json(200, {
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
  });
}

const lead = {
  id: 7,
  first_name: 'Grace',
  last_name: 'Hopper',
  email: 'grace@example.com',
  company: 'Navy Labs',
  job_title: 'CTO',
  industry: 'Defense',
  city: 'Arlington',
  country: 'US',
};

afterEach(() => vi.restoreAllMocks());

describe('OpenAI-compatible chat completions (openai SDK)', () => {
  const settings = { baseUrl: 'https://ai.example.test/v1', model: 'gpt-4o-mini', apiKey: 'sk-test-key' };

  it('POSTs {baseURL}/chat/completions with the bearer key, model, system and user messages', async () => {
    const seen = mockFetch([completion('Call with Grace. She wants pricing by Friday.')]);
    const generation = await openAiCompatible(settings).generate(magicpenPrompt, {
      note: 'call w/ grace',
      context: '',
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      url: 'https://ai.example.test/v1/chat/completions',
      method: 'POST',
      authorization: 'Bearer sk-test-key',
    });
    expect(seen[0].json).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: maxTokensFor(magicpenPrompt, { note: 'call w/ grace', context: '' }),
      messages: [
        { role: 'system', content: magicpenPrompt.system },
        { role: 'user', content: 'Note:\ncall w/ grace' },
      ],
    });
    expect(seen[0].json.response_format).toBeUndefined();
    expect(generation).toEqual({
      text: 'Call with Grace. She wants pricing by Friday.',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      prompt_version: 'magicpen@v1',
    });
  });

  it('asks for a JSON object when the prompt is structured, and the answer is validated with zod', async () => {
    const seen = mockFetch([completion('```json\n{"subject": "Hello Grace", "body": "Hi Grace, …"}\n```')]);
    const generation = await openAiCompatible(settings).generate(emailDraftPrompt, { lead, persona: '' });
    expect(seen[0].json.response_format).toEqual({ type: 'json_object' });
    expect(seen[0].json.messages[1].content).toContain('Company: Navy Labs');
    expect(structuredOutput(generation, EmailAnswer)).toEqual({ subject: 'Hello Grace', body: 'Hi Grace, …' });
  });

  it('refuses an answer that does not fit the shape, without echoing it', async () => {
    mockFetch([completion('DROP TABLE leads; {"subject": 42}')]);
    const generation = await openAiCompatible(settings).generate(emailDraftPrompt, { lead, persona: '' });
    const failure = (() => {
      try {
        structuredOutput(generation, EmailAnswer);
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect((failure as ProviderFailure).kind).toBe('rejected');
    expect((failure as ProviderFailure).reason).not.toContain('DROP');
  });

  it('maps 429 with Retry-After, 500, 401 and 400 to provider failures without retrying or keeping the body', async () => {
    const error = (status: number, headers: Record<string, string> = {}) =>
      json(status, { error: { message: 'secret detail sk-test-key', type: 'x', code: null } }, headers);
    const cases: [Response, string, number | null][] = [
      [error(429, { 'retry-after': '12' }), 'unavailable', 12],
      [error(500), 'unavailable', 30],
      [error(401), 'auth', null],
      [error(400), 'rejected', null],
    ];
    for (const [answer, kind, retryAfter] of cases) {
      vi.restoreAllMocks();
      const seen = mockFetch([answer]);
      const failure = await openAiCompatible(settings)
        .generate(magicpenPrompt, { note: 'x', context: '' })
        .catch((caught: unknown) => caught);
      expect(seen).toHaveLength(1);
      expect(failure).toBeInstanceOf(ProviderFailure);
      expect(failure).toMatchObject({ kind, retryAfterSeconds: retryAfter });
      expect((failure as ProviderFailure).reason).not.toContain('secret');
    }
  });

  it('turns a 200 that is no chat completion (an error object, a page, no choices) into a temporary provider failure, not a crash', async () => {
    const answers = [
      json(200, { error: { message: 'upstream model overloaded sk-test-key', type: 'server_error' } }),
      new Response('<html>gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      json(200, { id: 'chatcmpl-1', object: 'chat.completion', model: 'm', choices: null }),
    ];
    for (const answer of answers) {
      vi.restoreAllMocks();
      mockFetch([answer]);
      const failure = await openAiCompatible(settings)
        .generate(magicpenPrompt, { note: 'x', context: '' })
        .catch((caught: unknown) => caught);
      expect(failure).toBeInstanceOf(ProviderFailure);
      expect(failure).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 30 });
      expect((failure as ProviderFailure).reason).not.toContain('sk-test-key');
    }
  });

  it('serves Workers AI’s OpenAI-compatible endpoint through the same adapter', async () => {
    const seen = mockFetch([completion('ok', '@cf/meta/llama-3.1-8b-instruct')]);
    const base = 'https://api.cloudflare.com/client/v4/accounts/abc123/ai/v1';
    await openAiCompatible({ baseUrl: base, model: '@cf/meta/llama-3.1-8b-instruct', apiKey: 'cf-token' }).generate(
      magicpenPrompt,
      {
        note: 'x',
        context: '',
      },
    );
    expect(seen[0].url).toBe(`${base}/chat/completions`);
    expect(seen[0].authorization).toBe('Bearer cf-token');
  });
});

describe('Workers AI binding', () => {
  it('runs the model with the prompt’s messages and reads `response`', async () => {
    const runs: [string, Record<string, unknown>][] = [];
    const binding = {
      run: async (model: string, inputs: Record<string, unknown>) => {
        runs.push([model, inputs]);
        return { response: 'Call with Grace.' };
      },
    };
    const generation = await workersAi(binding, '@cf/meta/llama-3.1-8b-instruct-fast').generate(magicpenPrompt, {
      note: 'call w/ grace',
      context: '',
    });
    expect(runs).toEqual([
      [
        '@cf/meta/llama-3.1-8b-instruct-fast',
        {
          messages: [
            { role: 'system', content: magicpenPrompt.system },
            { role: 'user', content: 'Note:\ncall w/ grace' },
          ],
          max_tokens: maxTokensFor(magicpenPrompt, { note: 'call w/ grace', context: '' }),
        },
      ],
    ]);
    expect(generation).toMatchObject({
      text: 'Call with Grace.',
      provider: 'workers-ai',
      prompt_version: 'magicpen@v1',
    });
  });

  it('asks JSON mode for structured prompts and accepts an object answer', async () => {
    const binding = {
      run: async (_model: string, _inputs: Record<string, unknown>): Promise<unknown> => ({
        response: { subject: 'Hi', body: 'Hello' },
      }),
    };
    const spy = vi.spyOn(binding, 'run');
    const generation = await workersAi(binding, 'm').generate(emailDraftPrompt, { lead, persona: '' });
    expect(spy.mock.calls[0][1]).toMatchObject({ response_format: { type: 'json_object' } });
    expect(structuredOutput(generation, EmailAnswer)).toEqual({ subject: 'Hi', body: 'Hello' });
  });

  it('refuses an answer cut off at max_tokens (usage.completion_tokens reached the limit): nothing is kept', async () => {
    const vars = { note: 'call w/ grace', context: '' };
    const limit = maxTokensFor(magicpenPrompt, vars);
    const cutOff = {
      run: async () => ({ response: 'Call with Gr', usage: { prompt_tokens: 40, completion_tokens: limit } }),
    };
    await expect(workersAi(cutOff, 'm').generate(magicpenPrompt, vars)).rejects.toMatchObject({
      kind: 'rejected',
      provider: 'workers-ai',
      message: expect.stringContaining('cut off'),
    });
    const whole = {
      run: async () => ({ response: 'Call with Grace.', usage: { prompt_tokens: 40, completion_tokens: limit - 1 } }),
    };
    expect((await workersAi(whole, 'm').generate(magicpenPrompt, vars)).text).toBe('Call with Grace.');
  });

  it('reads an OpenAI-shaped answer: its text from the first choice, finish_reason length as cut off', async () => {
    const vars = { note: 'x', context: '' };
    const answer = (finish: string) => ({
      run: async () => ({ choices: [{ message: { content: 'Call Grace.' }, finish_reason: finish }] }),
    });
    expect((await workersAi(answer('stop'), 'm').generate(magicpenPrompt, vars)).text).toBe('Call Grace.');
    await expect(workersAi(answer('length'), 'm').generate(magicpenPrompt, vars)).rejects.toMatchObject({
      kind: 'rejected',
      provider: 'workers-ai',
    });
  });

  it('turns a binding error into a temporary provider failure', async () => {
    const binding = { run: async () => Promise.reject(new Error('3040: capacity')) };
    await expect(workersAi(binding, 'm').generate(magicpenPrompt, { note: 'x', context: '' })).rejects.toMatchObject({
      kind: 'unavailable',
      provider: 'workers-ai',
    });
  });
});

describe('the local provider and the configuration', () => {
  it('composes the same text from the same record, marked local', async () => {
    const first = await localAi().generate(emailDraftPrompt, { lead, persona: 'Ada' });
    const second = await localAi().generate(emailDraftPrompt, { lead, persona: 'Ada' });
    expect(first).toEqual(second);
    expect(first).toMatchObject({ provider: 'local', model: 'local-template', prompt_version: 'email-draft@v1' });
    expect(JSON.parse(first.text).subject).toBe('An idea for Navy Labs');
  });

  it('picks the provider from AI_PROVIDER and refuses an incomplete one with 503 ai_not_configured', () => {
    expect(aiProviderFor({}).name).toBe('local');
    expect(aiProviderFor({ AI_PROVIDER: 'openai', AI_API_KEY: 'k', AI_MODEL: 'm' })).toMatchObject({
      name: 'openai',
      model: 'm',
    });
    expect(aiProviderFor({ AI_PROVIDER: 'workers-ai', AI: { run: async () => ({}) } }).name).toBe('workers-ai');
    expect(() => aiProviderFor({ AI_PROVIDER: 'openai', AI_MODEL: 'm' })).toThrow(
      expect.objectContaining({ status: 503, code: 'ai_not_configured' }),
    );
    expect(() => aiProviderFor({ AI_PROVIDER: 'workers-ai' })).toThrow(
      expect.objectContaining({ code: 'ai_not_configured' }),
    );
  });
});

describe('a paid route on a real provider', () => {
  async function magicpenWith(
    token: string,
    overrides: Record<string, unknown>,
    body: Record<string, unknown> = { noteText: 'call w/ grace, wants pricing by fri' },
  ) {
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request('http://lead.test/api/ai-tools/magicpen', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'cf-connecting-ip': randomIp(),
        },
        body: JSON.stringify(body),
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...overrides },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }
  const openai = {
    AI_PROVIDER: 'openai',
    AI_API_KEY: 'sk-route',
    AI_MODEL: 'gpt-4o-mini',
    AI_BASE_URL: 'https://ai.example.test/v1',
  };

  it('answers with the model’s text and its provenance, charging 1 credit', async () => {
    const org = await signupOrganization('AI route openai');
    const seen = mockFetch([completion('Call with Grace. She wants pricing by Friday.')]);
    const response = await magicpenWith(org.token, openai);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      enhanced_text: 'Call with Grace. She wants pricing by Friday.',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      prompt_version: 'magicpen@v1',
      credits_charged: 1,
      balance: STARTING_GRANT - 1,
    });
    expect(seen.filter((request) => request.url.startsWith('https://ai.example.test/'))).toHaveLength(1);
  });

  it('gives a long note room for its whole rewrite, and refunds an answer the model cut off', async () => {
    const org = await signupOrganization('AI route long note');
    // A rep's long call notes: 6 000 characters, about 1 500 tokens to rewrite, well past 800.
    const noteText = 'spoke w/ grace about the rollout, needs sso + audit logs, budget ok q3, '.repeat(84).trim();
    expect(noteText.length).toBeGreaterThan(5_900);
    const seen = mockFetch([completion('Call with Grace. She wants', 'gpt-4o-mini-2024-07-18', 'length')]);
    const response = await magicpenWith(org.token, openai, { noteText });
    const asked = seen.find((request) => request.url.startsWith('https://ai.example.test/'));
    // Room for a rewrite as long as the note (a token is about 4 characters of English).
    expect(asked?.json.max_tokens).toBeGreaterThanOrEqual(Math.ceil(noteText.length / 3));
    // The model stopped at its length limit: half a note is not a rewrite of it.
    expect(response.status).toBe(503);
    expect(response.body.error).toMatchObject({ type: 'service_unavailable', code: 'provider_unavailable' });
    expect(response.body.error.message).toContain('cut off');
    vi.restoreAllMocks();
    const credits = await call('GET', '/api/credits', { token: org.token });
    expect(credits.body.data).toMatchObject({ balance: STARTING_GRANT, reserved: 0, used_this_month: 0 });
  });

  it('a throttled provider is a 503 with Retry-After, and the credits are refunded', async () => {
    const org = await signupOrganization('AI route throttled');
    mockFetch([json(429, { error: { message: 'slow down' } }, { 'retry-after': '7' })]);
    const response = await magicpenWith(org.token, openai);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.body.error).toMatchObject({ type: 'service_unavailable', code: 'provider_unavailable' });
    vi.restoreAllMocks();
    const credits = await call('GET', '/api/credits', { token: org.token });
    expect(credits.body.data).toMatchObject({ balance: STARTING_GRANT, reserved: 0, used_this_month: 0 });
  });
});
