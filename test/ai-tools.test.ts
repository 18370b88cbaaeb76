/**
 * The AI writing tools and AI dashboards on the local provider: answers with provenance, charged
 * in credits, refused with 402 when the balance is short (nothing generated), bad input named.
 * The dashboard definition uses only the saved-query grammar and is saved when asked.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { magicpen } from '../src/modules/intelligence/tools';
import { onPglite } from './helpers/lock-races';
import { STARTING_GRANT } from '../src/modules/credits';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { heldAnswer, paidCallMeanwhile } from './helpers/held-answer';
import { asTenant } from './helpers/leads';
import { reserveCredits, settleCredits } from '../src/modules/credits';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('AI tools');
});

async function balance(owner: SignedUp): Promise<number> {
  return (await call('GET', '/api/credits', { token: owner.token })).body.data.balance;
}

describe('POST /api/ai-tools/magicpen', () => {
  it('rewrites the note in sentences, marked local, and charges 1 credit', async () => {
    const response = await call('POST', '/api/ai-tools/magicpen', {
      token: org.token,
      body: { noteText: 'call w/ grace\nwants pricing by fri', leadContext: { company: 'Navy Labs' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      enhanced_text: 'Call w/ grace. Wants pricing by fri.\n\nContext: company: Navy Labs',
      provider: 'local',
      model: 'local-template',
      prompt_version: 'magicpen@v1',
      credits_charged: 1,
      balance: STARTING_GRANT - 1,
    });
  });

  it('needs noteText (422 naming it) and charges nothing', async () => {
    const owner = await signupOrganization('AI tools bad');
    const response = await call('POST', '/api/ai-tools/magicpen', { token: owner.token, body: { leadContext: 'x' } });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('noteText');
    expect(await balance(owner)).toBe(STARTING_GRANT);
  });

  it('answers 402 insufficient_credits when the balance is spent', async () => {
    const owner = await signupOrganization('AI tools poor');
    const spend = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'all', quantity: STARTING_GRANT / 5 }),
    );
    await asTenant(owner, (ctx) => settleCredits(ctx, spend.id));
    const response = await call('POST', '/api/ai-tools/magicpen', { token: owner.token, body: { noteText: 'hello' } });
    expectFailure(response, 402, 'payment_required');
    expect(response.body.error.details).toEqual({ feature: 'ai_tools', price: 1, balance: 0 });
  });
});

describe('a retried AI tool call', () => {
  it('with the same Idempotency-Key is charged once and answered the first text again (magicpen, email-generator)', async () => {
    const owner = await signupOrganization('AI tools retry');
    const calls: [string, Record<string, unknown>][] = [
      ['/api/ai-tools/magicpen', { noteText: 'call w/ grace, wants pricing by fri' }],
      ['/api/ai-tools/email-generator', { prompt: 'Follow up on the pricing question' }],
    ];
    for (const [path, body] of calls) {
      const key = crypto.randomUUID();
      // The client timed out and sends the same request again with its key.
      const first = await call('POST', path, { token: owner.token, body, headers: { 'idempotency-key': key } });
      const retry = await call('POST', path, { token: owner.token, body, headers: { 'idempotency-key': key } });
      expect(first.status, first.text).toBe(200);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.headers.get('idempotent-replayed'), path).toBe('true');
      expect(retry.body).toEqual(first.body);
    }
    expect(await balance(owner)).toBe(STARTING_GRANT - 2);
    // Another key is another call, charged again.
    const again = await call('POST', '/api/ai-tools/magicpen', {
      token: owner.token,
      body: { noteText: 'call w/ grace, wants pricing by fri' },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(again.body.data.credits_charged).toBe(1);
    expect(await balance(owner)).toBe(STARTING_GRANT - 3);
  });

  it('with an Idempotency-Key (one transaction) asks the model with no lock on the credits: another paid call meanwhile is answered', async (context) => {
    const owner = await signupOrganization('AI tools key lock');
    // PGlite runs one transaction at a time: the other call waits there whatever the locks.
    if (await onPglite(owner.orgId)) context.skip();
    const gate = heldAnswer();
    const slowModel = {
      run: async () => {
        await gate.hold();
        return { response: 'Call Grace back about pricing.' };
      },
    };
    // What a request with an Idempotency-Key runs: the paid call on the request's transaction.
    const keyed = asTenant(owner, (ctx) =>
      magicpen({ ctx, env: { ...env, AI_PROVIDER: 'workers-ai', AI: slowModel } }, { noteText: 'call grace back' }),
    );
    await gate.asked;
    const meanwhile = await paidCallMeanwhile(owner, 'held up by the keyed call');
    gate.release();
    const result = await keyed;
    expect(meanwhile).toBe(200);
    expect(result).toMatchObject({ enhanced_text: 'Call Grace back about pricing.', credits_charged: 1 });
    expect(await balance(owner)).toBe(STARTING_GRANT - 2);
  });

  it('with an Idempotency-Key, a balance that cannot pay is a 402 before the model is asked, and a failed model charges nothing', async () => {
    const owner = await signupOrganization('AI tools key poor');
    const spend = await asTenant(owner, (ctx) =>
      reserveCredits(ctx, { feature: 'dashboard_generate', idempotencyKey: 'all', quantity: STARTING_GRANT / 5 }),
    );
    await asTenant(owner, (ctx) => settleCredits(ctx, spend.id));
    const poor = await call('POST', '/api/ai-tools/magicpen', {
      token: owner.token,
      body: { noteText: 'hello' },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expectFailure(poor, 402, 'payment_required');
    expect(poor.body.error.details).toEqual({ feature: 'ai_tools', price: 1, balance: 0 });
    const rich = await signupOrganization('AI tools key model down');
    const failing = { run: async () => Promise.reject(new Error('model down')) };
    await expect(
      asTenant(rich, (ctx) =>
        magicpen({ ctx, env: { ...env, AI_PROVIDER: 'workers-ai', AI: failing } }, { noteText: 'call grace back' }),
      ),
    ).rejects.toMatchObject({ status: 503, code: 'provider_unavailable' });
    expect(await balance(rich)).toBe(STARTING_GRANT);
  });
});

describe('POST /api/ai-tools/email-generator', () => {
  it('writes a subject and a body from the instruction and draft, charged 1 credit', async () => {
    const before = await balance(org);
    const response = await call('POST', '/api/ai-tools/email-generator', {
      token: org.token,
      body: { prompt: 'follow up on pricing', emailSubject: 'Pricing', leadContext: 'Grace at Navy Labs' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      subject: 'Pricing',
      provider: 'local',
      prompt_version: 'email-generator@v1',
      credits_charged: 1,
    });
    expect(response.body.data.body).toContain('Follow up on pricing.');
    expect(await balance(org)).toBe(before - 1);
  });

  it('needs a prompt or a draft body to improve: neither is a 422 naming prompt, charging nothing', async () => {
    const before = await balance(org);
    const response = await call('POST', '/api/ai-tools/email-generator', {
      token: org.token,
      body: { emailSubject: 'Pricing', leadContext: 'Grace Hopper' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('prompt');
    expect(await balance(org)).toBe(before);
  });

  it('improves a draft sent without a prompt (the spec marks none of its fields required)', async () => {
    const before = await balance(org);
    const response = await call('POST', '/api/ai-tools/email-generator', {
      token: org.token,
      body: { emailSubject: 'Pricing', emailBody: 'hi grace, pricing attached, lmk' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ subject: 'Pricing', credits_charged: 1 });
    expect(response.body.data.body).toContain('hi grace, pricing attached, lmk');
    expect(await balance(org)).toBe(before - 1);
  });
});

describe('POST /api/ai-dashboards/generate', () => {
  it('builds a definition only from the saved-query grammar, charged 5 credits, saving nothing', async () => {
    const before = await balance(org);
    const response = await call('POST', '/api/ai-dashboards/generate', {
      token: org.token,
      body: { prompt: 'Deals: total value by stage, per month' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      name: 'Deals dashboard',
      provider: 'local',
      prompt_version: 'dashboard@v1',
      credits_charged: 5,
      saved: null,
    });
    expect(response.body.data.widgets).toEqual([
      { title: 'Total value', chart_type: 'number', query: { module: 'deals', metric: { op: 'sum', field: 'value' } } },
      {
        title: 'Total value by stage',
        chart_type: 'bar',
        query: { module: 'deals', metric: { op: 'sum', field: 'value' }, group_by: 'stage' },
      },
      {
        title: 'Total value per month',
        chart_type: 'line',
        query: {
          module: 'deals',
          metric: { op: 'sum', field: 'value' },
          bucket: { field: 'created_at', unit: 'month' },
        },
      },
    ]);
    expect(await balance(org)).toBe(before - 5);
  });

  it('saves the queries and the dashboard when asked (201), and they execute', async () => {
    const response = await call('POST', '/api/ai-dashboards/generate', {
      token: org.token,
      body: { prompt: 'leads by status', save: true, dashboard_id: 'ai-leads' },
    });
    expect(response.status, response.text).toBe(201);
    const saved = response.body.data.saved;
    expect(saved).toMatchObject({ dashboard_key: 'ai-leads' });
    expect(saved.saved_query_ids).toHaveLength(2);
    const dashboards = await call('GET', '/api/dashboards', { token: org.token });
    const dashboard = dashboards.body.data.find((row: { id: number }) => row.id === saved.dashboard_id);
    expect(dashboard.definition.map((widget: { source: unknown }) => widget.source)).toEqual(
      saved.saved_query_ids.map((id: number) => ({ saved_query_id: id })),
    );
    const executed = await call('POST', `/api/queries/${saved.saved_query_ids[1]}/execute`, {
      token: org.token,
      body: {},
    });
    expect(executed.status, executed.text).toBe(200);
    // The same key again: 409, and the call is refunded.
    const before = await balance(org);
    const again = await call('POST', '/api/ai-dashboards/generate', {
      token: org.token,
      body: { prompt: 'leads by status', save: true, dashboard_id: 'ai-leads' },
    });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error.code).toBe('dashboard_id_taken');
    expect(await balance(org)).toBe(before);
  });

  it('needs a prompt', async () => {
    const response = await call('POST', '/api/ai-dashboards/generate', { token: org.token, body: { save: true } });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('prompt');
  });
});
