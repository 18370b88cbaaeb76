/**
 * The operator routes honour Idempotency-Key as the tenant routes do (core/idempotency.ts): a grant
 * or a top-up retried with its key after a lost answer is made once and answers the first response
 * again; another request under the key is a 422; the keys are the operator's under the
 * organization acted on, so the same key for two organizations is two independent requests.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditLedger, voiceLedger } from '../src/db/schema';
import { STARTING_GRANT } from '../src/modules/credits';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { operatorHeaders } from './helpers/operator';

function asOperator(path: string, key: string | undefined, body: Record<string, unknown>) {
  return call('POST', path, {
    headers: { ...operatorHeaders(), ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body,
  });
}

const grant = (key: string | undefined, body: Record<string, unknown>) => asOperator('/api/credits/grant', key, body);
const topUp = (key: string | undefined, body: Record<string, unknown>) =>
  asOperator('/api/voice/wallet/top-up', key, body);

async function grantRows(owner: SignedUp) {
  return inOrganization(owner.orgId, (tx) =>
    tx
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.organizationId, owner.orgId), eq(creditLedger.note, 'retried grant'))),
  );
}

async function balance(owner: SignedUp): Promise<number> {
  const response = await call('GET', '/api/credits', { token: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data.balance;
}

describe('Idempotency-Key on the operator routes', () => {
  it('a grant retried with its key grants once and answers the first grant again', async () => {
    const owner = await signupOrganization('Operator retry');
    const key = crypto.randomUUID();
    const body = { organization_id: owner.orgId, amount: 250, note: 'retried grant' };
    const first = await grant(key, body);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    expect(first.body.data).toMatchObject({ organization_id: owner.orgId, amount: 250, balance: STARTING_GRANT + 250 });

    const retried = await grant(key, body);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    expect(await grantRows(owner)).toHaveLength(1);
    expect(await balance(owner)).toBe(STARTING_GRANT + 250);

    // Without a key, a second grant is a second grant (as documented).
    expect((await grant(undefined, body)).status).toBe(201);
    expect(await grantRows(owner)).toHaveLength(2);
  });

  it('another request under the key is a 422 naming Idempotency-Key, and grants nothing', async () => {
    const owner = await signupOrganization('Operator reuse');
    const key = crypto.randomUUID();
    expect((await grant(key, { organization_id: owner.orgId, amount: 5, note: 'retried grant' })).status).toBe(201);
    const other = await grant(key, { organization_id: owner.orgId, amount: 500, note: 'retried grant' });
    expectFailure(other, 422, 'validation_error');
    expect(other.body.error.code).toBe('Idempotency-Key');
    // Another operator route under the same key is another request too.
    const elsewhere = await topUp(key, { organization_id: owner.orgId, amount: 5 });
    expectFailure(elsewhere, 422, 'validation_error');
    expect(elsewhere.body.error.code).toBe('Idempotency-Key');
    expect(await grantRows(owner)).toHaveLength(1);
    expect(await balance(owner)).toBe(STARTING_GRANT + 5);
    // A malformed key is a 400 naming the header, before anything is granted.
    const malformed = await grant('', { organization_id: owner.orgId, amount: 5, note: 'retried grant' });
    expectFailure(malformed, 400, 'bad_request');
    expect(malformed.body.error.code).toBe('Idempotency-Key');
    expect(await grantRows(owner)).toHaveLength(1);
  });

  it('the same key for two organizations is two grants, each replayed to its own organization only', async () => {
    const [one, two] = await Promise.all([signupOrganization('Operator one'), signupOrganization('Operator two')]);
    const key = crypto.randomUUID();
    const first = await grant(key, { organization_id: one.orgId, amount: 10, note: 'retried grant' });
    expect(first.status, first.text).toBe(201);
    const second = await grant(key, { organization_id: two.orgId, amount: 20, note: 'retried grant' });
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('Idempotent-Replayed')).toBeNull();
    expect(second.body.data).toMatchObject({ organization_id: two.orgId, amount: 20, balance: STARTING_GRANT + 20 });

    const again = await grant(key, { organization_id: one.orgId, amount: 10, note: 'retried grant' });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balance(one)).toBe(STARTING_GRANT + 10);
    expect(await balance(two)).toBe(STARTING_GRANT + 20);
    // The key is not the organization's: its own users' keys are another space.
    const tenantKeyRows = await inOrganization(one.orgId, (tx) =>
      tx.execute<{ scope: string }>(sql`select scope from idempotency_keys where key = ${key}`),
    );
    expect(tenantKeyRows.rows.map((row) => row.scope)).toEqual(['operator']);
  });

  it('parallel retries of one grant grant once: each answers the grant, its replay, or 409 idempotency_key_in_use', async () => {
    const owner = await signupOrganization('Operator parallel');
    const key = crypto.randomUUID();
    const body = { organization_id: owner.orgId, amount: 7, note: 'retried grant' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => grant(key, body)));
    for (const answer of answers) {
      if (answer.status === 409) expect(answer.body.error.code).toBe('idempotency_key_in_use');
      else expect(answer.status, answer.text).toBe(201);
    }
    const granted = answers.filter((answer) => answer.status === 201);
    expect(granted.length).toBeGreaterThan(0);
    for (const answer of granted) expect(answer.body.data.id).toBe(granted[0].body.data.id);
    expect(await grantRows(owner)).toHaveLength(1);
    expect(await balance(owner)).toBe(STARTING_GRANT + 7);
  });

  it('a wallet top-up retried with its key counts once', async () => {
    const owner = await signupOrganization('Operator top-up');
    const key = crypto.randomUUID();
    const body = { organization_id: owner.orgId, amount: 12.5, note: 'retried top-up' };
    const first = await topUp(key, body);
    expect(first.status, first.text).toBe(200);
    const retried = await topUp(key, body);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx
        .select()
        .from(voiceLedger)
        .where(and(eq(voiceLedger.organizationId, owner.orgId), eq(voiceLedger.kind, 'top_up'))),
    );
    expect(rows).toHaveLength(1);
    const wallet = await call('GET', '/api/voice/wallet', { token: owner.token });
    expect(wallet.body.data.balance).toBe(12.5);
  });
});
