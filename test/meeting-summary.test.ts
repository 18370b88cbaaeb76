/**
 * Meeting summaries (POST /api/meeting/:id/generate-summary): the stored transcript summarised by
 * the AI provider, paid 3 credits (`meeting_summary`), recorded with its provider, model and prompt
 * version and kept on the meeting as `latest_summary`. On the local provider the text is built
 * from the transcript (speaker turns, key lines) and is deterministic; brief and detailed differ.
 * Refusals (no transcript, bad detail, no credits) generate and charge nothing; a provider that
 * fails is a 503 and the reservation is refunded.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../src/index';
import { reserveCredits, settleCredits, STARTING_GRANT } from '../src/modules/credits';
import { call, expectFailure, randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { asTenant } from './helpers/leads';
import { MAX_SUMMARY_INPUT_CHARS, transcriptParts } from '../src/modules/meetings/summaries';

const TRANSCRIPT = [
  'Ada: Thanks for joining, Grace.',
  'Ada: Shall we start with your goals?',
  'Grace: We need a CRM for 40 reps.',
  'Grace: Our budget is $40k for this quarter.',
  'Ada: We agreed to run a two-week pilot.',
  'Grace: I will send the security questionnaire by Friday.',
  'Ada: Great, talk soon.',
].join('\n');

const BRIEF =
  'Discovery call: 5 speaker turns by Ada (3 turns), Grace (2 turns). Ada: We agreed to run a two-week pilot. Grace: I will send the security questionnaire by Friday.';

const DETAILED = [
  'Discovery call: 5 speaker turns by Ada (3 turns), Grace (2 turns).',
  'Key lines:\n- Ada: Shall we start with your goals?\n- Grace: We need a CRM for 40 reps.\n- Grace: Our budget is $40k for this quarter.\n- Ada: We agreed to run a two-week pilot.\n- Grace: I will send the security questionnaire by Friday.',
  'Decisions:\n- Ada: We agreed to run a two-week pilot.',
  'Action items:\n- Grace: I will send the security questionnaire by Friday.',
].join('\n\n');

async function meetingOf(owner: SignedUp, transcript: string | null = TRANSCRIPT): Promise<number> {
  const meeting = await call('POST', '/api/meeting/add', {
    token: owner.token,
    body: { title: 'Discovery call', start_time: '2027-06-01T09:00:00Z', end_time: '2027-06-01T09:30:00Z' },
  });
  if (meeting.status !== 201) throw new Error(`meeting: ${meeting.status} ${meeting.text}`);
  const id = meeting.body.data.id as number;
  if (transcript !== null) {
    const form = new FormData();
    form.append('file', new File([transcript], 'call.txt', { type: 'text/plain' }));
    const uploaded = await call('POST', `/api/meeting/${id}/transcript`, { token: owner.token, rawBody: form });
    if (uploaded.status !== 201) throw new Error(`transcript: ${uploaded.status} ${uploaded.text}`);
  }
  return id;
}

const summarise = (owner: SignedUp, meetingId: number, body: unknown) =>
  call('POST', `/api/meeting/${meetingId}/generate-summary`, { token: owner.token, body });

async function credits(owner: SignedUp) {
  return (await call('GET', '/api/credits', { token: owner.token })).body.data;
}

async function latestSummary(owner: SignedUp, meetingId: number) {
  return (await call('GET', `/api/meeting/view/${meetingId}`, { token: owner.token })).body.data.latest_summary;
}

/** A long meeting: `lines` remarks of two speakers in turn (none a decision or commitment), then Grace's decision. */
function longTranscript(lines: number, words = 'about the general state of things'): string {
  return [
    ...Array.from({ length: lines }, (_, i) => `${i % 2 ? 'Ada' : 'Grace'}: Remark number ${i} ${words}.`),
    'Grace: We agreed to buy 120 seats.',
  ].join('\n');
}

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Meeting summaries');
});

afterEach(() => vi.restoreAllMocks());

describe('POST /api/meeting/:id/generate-summary (local provider)', () => {
  it('summarises the transcript, brief by default, charged 3 credits, and keeps it on the meeting', async () => {
    const owner = await signupOrganization('Summary brief');
    const meetingId = await meetingOf(owner);
    const response = await summarise(owner, meetingId, {});
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      meeting_id: meetingId,
      detail: 'brief',
      summary: BRIEF,
      provider: 'local',
      model: 'local-template',
      prompt_version: 'meeting-summary@v2',
      credits_charged: 3,
      balance: STARTING_GRANT - 3,
    });
    const { generated_at, transcript_at } = response.body.data;
    expect(await latestSummary(owner, meetingId)).toEqual({
      detail: 'brief',
      text: BRIEF,
      provider: 'local',
      model: 'local-template',
      prompt_version: 'meeting-summary@v2',
      generated_at,
      transcript_at,
    });
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 3, reserved: 0, used_this_month: 3 });
  });

  it('detailed differs from brief (key lines, decisions, action items), is deterministic, and replaces the latest', async () => {
    const meetingId = await meetingOf(org);
    const brief = await summarise(org, meetingId, { detail: 'brief' });
    expect(brief.body.data.summary).toBe(BRIEF);
    const detailed = await summarise(org, meetingId, { detail: 'detailed' });
    expect(detailed.status, detailed.text).toBe(200);
    expect(detailed.body.data).toMatchObject({ detail: 'detailed', summary: DETAILED });
    expect(detailed.body.data.summary).not.toBe(brief.body.data.summary);
    const again = await summarise(org, meetingId, { detail: 'detailed' });
    expect(again.body.data.summary).toBe(DETAILED);
    expect(await latestSummary(org, meetingId)).toMatchObject({ detail: 'detailed', text: DETAILED });
    const listed = await call('GET', '/api/meeting/list', { token: org.token, query: { limit: 100 } });
    const row = listed.body.data.find((meeting: { id: number }) => meeting.id === meetingId);
    expect(row.latest_summary).toMatchObject({ detail: 'detailed', text: DETAILED });
  });

  it('summarises a transcript longer than one request whole, for one charge: a decision past its first 100 000 characters is in the summary', async () => {
    const owner = await signupOrganization('Summary long');
    const transcript = longTranscript(2_400);
    expect(transcript.length).toBeGreaterThan(MAX_SUMMARY_INPUT_CHARS * 1.3);
    expect(transcript.indexOf('We agreed')).toBeGreaterThan(MAX_SUMMARY_INPUT_CHARS);
    const meetingId = await meetingOf(owner, transcript);
    const response = await summarise(owner, meetingId, { detail: 'detailed' });
    expect(response.status, response.text).toBe(200);
    const summary: string = response.body.data.summary;
    expect(summary.startsWith('Discovery call: 2401 speaker turns by Grace (1201 turns), Ada (1200 turns).')).toBe(
      true,
    );
    expect(summary).toContain('Decisions:\n- Grace: We agreed to buy 120 seats.');
    expect(response.body.data).toMatchObject({ prompt_version: 'meeting-summary@v2', credits_charged: 3 });
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 3, reserved: 0, used_this_month: 3 });
  });

  it('a meeting without a transcript is a 404 that says so, and charges nothing', async () => {
    const meetingId = await meetingOf(org, null);
    const before = await credits(org);
    const response = await summarise(org, meetingId, { detail: 'brief' });
    expectFailure(response, 404, 'not_found');
    expect(response.body.error.message).toBe(
      `Meeting ${meetingId} has no transcript to summarise: upload one first (POST /api/meeting/${meetingId}/transcript)`,
    );
    expect(await credits(org)).toMatchObject({ balance: before.balance, reserved: 0 });
    expect(await latestSummary(org, meetingId)).toBeNull();
  });

  it('a meeting of another organization is a 404, charged to nobody', async () => {
    const intruder = await signupOrganization('Summary intruder');
    const meetingId = await meetingOf(org);
    const response = await summarise(intruder, meetingId, { detail: 'brief' });
    expectFailure(response, 404, 'not_found');
    expect(response.body.error.message).toBe(`Meeting ${meetingId} not found`);
    expect((await credits(intruder)).balance).toBe(STARTING_GRANT);
    expect(await latestSummary(org, meetingId)).toBeNull();
  });

  it('a detail other than brief or detailed is a 422 naming it', async () => {
    const meetingId = await meetingOf(org);
    const before = await credits(org);
    for (const detail of ['short', 3, null]) {
      const response = await summarise(org, meetingId, { detail });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(detail)).toBe('detail');
    }
    expect((await credits(org)).balance).toBe(before.balance);
  });

  it('with a zero balance: 402 insufficient_credits, with the price and the balance, and nothing generated', async () => {
    const owner = await signupOrganization('Summary poor');
    const meetingId = await meetingOf(owner);
    const spend = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'all', quantity: STARTING_GRANT / 5 }),
    );
    await asTenant(owner, (ctx) => settleCredits(ctx, spend.id));
    const response = await summarise(owner, meetingId, { detail: 'detailed' });
    expectFailure(response, 402, 'payment_required');
    expect(response.body.error.code).toBe('insufficient_credits');
    expect(response.body.error.details).toEqual({ feature: 'meeting_summary', price: 3, balance: 0 });
    expect(await latestSummary(owner, meetingId)).toBeNull();
  });
});

describe('POST /api/meeting/:id/generate-summary on an OpenAI-compatible provider', () => {
  const openai = {
    AI_PROVIDER: 'openai',
    AI_API_KEY: 'sk-summary',
    AI_MODEL: 'gpt-4o-mini',
    AI_BASE_URL: 'https://ai.example.test/v1',
  };

  /** Answers the chat-completions endpoint with `answer` (given the request's body); every other fetch goes through. */
  function mockModel(answer: (body: Record<string, any>) => Response) {
    const real = globalThis.fetch;
    const sent: Record<string, any>[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (!request.url.startsWith('https://ai.example.test/')) return real(input, init);
      const body = JSON.parse(await request.text());
      sent.push(body);
      return answer(body);
    });
    return sent;
  }

  /** A chat completion answering `content`, as the API sends it. */
  const completion = (content: string) =>
    json(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [
        { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 90, completion_tokens: 5, total_tokens: 95 },
    });

  /** Notes for a part request (`Part N of M`), the summary for the final one; the requests split into both kinds. */
  function answerPartsThenWhole() {
    return mockModel((body) => {
      const part = /^Meeting: Discovery call\nPart (\d+) of (\d+)\n\nTranscript part:\n/.exec(body.messages[1].content);
      return completion(part ? `Notes on part ${part[1]}` : 'The whole meeting: 120 seats agreed.');
    });
  }

  function partRequests(sent: Record<string, any>[]) {
    return sent
      .map((body) => ({
        body,
        match: /^Meeting: Discovery call\nPart (\d+) of (\d+)\n\nTranscript part:\n([\s\S]*)$/.exec(
          body.messages[1].content,
        ),
      }))
      .filter((request) => request.match !== null)
      .map(({ body, match }) => ({
        body,
        part: Number(match?.[1]),
        of: Number(match?.[2]),
        text: match?.[3] as string,
      }))
      .sort((a, b) => a.part - b.part);
  }

  async function summaryOnOpenAi(token: string, meetingId: number) {
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request(`http://lead.test/api/meeting/${meetingId}/generate-summary`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'cf-connecting-ip': randomIp(),
        },
        body: JSON.stringify({ detail: 'detailed' }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...openai },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  it('sends the transcript with the prompt and records the model’s provenance', async () => {
    const owner = await signupOrganization('Summary openai');
    const meetingId = await meetingOf(owner);
    const sent = mockModel(() => completion('A pilot was agreed.'));
    const response = await summaryOnOpenAi(owner.token, meetingId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({
      summary: 'A pilot was agreed.',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      prompt_version: 'meeting-summary@v2',
      credits_charged: 3,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].model).toBe('gpt-4o-mini');
    expect(sent[0].messages[1].content).toBe(`Detail: detailed\nMeeting: Discovery call\n\nTranscript:\n${TRANSCRIPT}`);
  });

  it('a transcript longer than one request goes as parts split at line ends, then the whole from their notes in order, for one charge', async () => {
    const owner = await signupOrganization('Summary openai long');
    const transcript = longTranscript(2_400);
    const meetingId = await meetingOf(owner, transcript);
    const sent = answerPartsThenWhole();
    const response = await summaryOnOpenAi(owner.token, meetingId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({
      summary: 'The whole meeting: 120 seats agreed.',
      provider: 'openai',
      prompt_version: 'meeting-summary@v2',
      credits_charged: 3,
    });
    const parts = partRequests(sent);
    expect(parts.map(({ part, of }) => [part, of])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    for (const { body, text } of parts) {
      expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_INPUT_CHARS);
      expect(body.messages[0].content).toMatch(/^You take notes on one part of a long sales meeting transcript/);
    }
    // Split at line ends, nothing lost or repeated.
    expect(parts.map(({ text }) => text).join('\n')).toBe(transcript);
    expect(sent).toHaveLength(3);
    // The whole is asked last, from the notes in order.
    expect(sent[2].messages[1].content).toBe(
      'Detail: detailed\nMeeting: Discovery call\n\nThe transcript was too long to send whole. These are notes on its 2 parts, in order:\n\nPart 1:\nNotes on part 1\n\nPart 2:\nNotes on part 2',
    );
    vi.restoreAllMocks();
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT - 3, reserved: 0, used_this_month: 3 });
  });

  it('beyond 12 parts the rest is cut and the last part sent says so', async () => {
    const owner = await signupOrganization('Summary openai cut');
    // About 1 300 000 characters in 6 500 lines.
    const transcript = longTranscript(6_500, 'x'.repeat(170));
    expect(transcript.length).toBeGreaterThan(12 * MAX_SUMMARY_INPUT_CHARS);
    const meetingId = await meetingOf(owner, transcript);
    const sent = answerPartsThenWhole();
    const response = await summaryOnOpenAi(owner.token, meetingId);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const parts = partRequests(sent);
    expect(parts).toHaveLength(12);
    expect(parts.every(({ of }) => of === 12)).toBe(true);
    expect(parts[11].text.endsWith('\n[the rest of the transcript was cut]')).toBe(true);
    const kept = parts.map(({ text }) => text).join('\n');
    expect(transcript.startsWith(kept.slice(0, -'\n[the rest of the transcript was cut]'.length))).toBe(true);
    expect(sent).toHaveLength(13);
    expect(sent[12].messages[1].content).toContain('These are notes on its 12 parts, in order:');
  });

  it('a part that fails fails the whole: 503, refunded, no summary kept', async () => {
    const owner = await signupOrganization('Summary part down');
    const meetingId = await meetingOf(owner, longTranscript(2_400));
    mockModel((body) =>
      /\nPart 2 of 2\n/.test(body.messages[1].content)
        ? json(500, { error: { message: 'boom' } }, { 'retry-after': '7' })
        : completion('Notes'),
    );
    const response = await summaryOnOpenAi(owner.token, meetingId);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
    vi.restoreAllMocks();
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT, reserved: 0, used_this_month: 0 });
    expect(await latestSummary(owner, meetingId)).toBeNull();
  });

  it('a failing provider is a 503 with Retry-After; the credits are refunded and no summary is kept', async () => {
    const owner = await signupOrganization('Summary provider down');
    const meetingId = await meetingOf(owner);
    mockModel(() => json(500, { error: { message: 'boom' } }, { 'retry-after': '9' }));
    const response = await summaryOnOpenAi(owner.token, meetingId);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('9');
    expect(response.body.error).toMatchObject({ type: 'service_unavailable', code: 'provider_unavailable' });
    vi.restoreAllMocks();
    expect(await credits(owner)).toMatchObject({ balance: STARTING_GRANT, reserved: 0, used_this_month: 0 });
    expect(await latestSummary(owner, meetingId)).toBeNull();
  });
});

describe('transcriptParts', () => {
  it('packs whole lines into parts of at most the size, in order; a longer line is split inside; beyond the count it cuts', () => {
    expect(transcriptParts('a\nbb\nccc', 4, 10)).toEqual({ parts: ['a\nbb', 'ccc'], cut: false });
    expect(transcriptParts('a\nbbbbbbbbbb\nc', 4, 10)).toEqual({ parts: ['a', 'bbbb', 'bbbb', 'bb\nc'], cut: false });
    expect(transcriptParts('short', 100, 1)).toEqual({ parts: ['short'], cut: false });
    expect(transcriptParts('aaaa\nbbbb\ncccc', 4, 2)).toEqual({ parts: ['aaaa', 'bbbb'], cut: true });
    const text = Array.from({ length: 500 }, (_, i) => `Line ${i}`).join('\n');
    const { parts } = transcriptParts(text, 97, 1000);
    expect(parts.every((part) => part.length <= 97)).toBe(true);
    expect(parts.join('\n')).toBe(text);
  });
});
