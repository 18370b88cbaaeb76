/**
 * One round trip per list page: the page and its total are one SQL statement, whichever way
 * the total is computed (counter, bounded count, carried by the cursor). Statements are counted
 * with drizzle's query logger over the app's own pool, scoped exactly as the Worker scopes them.
 */
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/neon-serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, scopeTransaction } from '../src/db/client';
import * as schema from '../src/db/schema';
import type { TenantContext } from '../src/db/tenant';
import { readConfig } from '../src/env';
import { leadList } from '../src/modules/leads/listing';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';

const handle = openDatabase(readConfig(env));
const statements: string[] = [];
const logged = drizzle({ client: handle.db.$client, schema, casing: 'snake_case', logger: { logQuery: (query) => statements.push(query) } });
let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Statements');
  for (const name of ['Ann', 'Bob', 'Cid']) await createLead(owner, name, 'Counted');
});

afterAll(() => handle.close());

async function statementsFor(query: Record<string, string | number>) {
  return logged.transaction(async (tx) => {
    await scopeTransaction(tx, owner.orgId);
    const ctx: TenantContext = { db: tx, orgId: owner.orgId, userId: owner.userId, roleName: 'admin' };
    statements.length = 0;
    const page = await leadList.run(ctx, leadList.query.parse(query));
    return { page, sent: [...statements] };
  });
}

describe('a lead list page', () => {
  it('is one statement unfiltered (counter), filtered (bounded count) and on a cursor page (carried total)', async () => {
    const unfiltered = await statementsFor({ limit: 2 });
    expect(unfiltered.page).toMatchObject({ total: 3, totalIsEstimate: false });
    expect(unfiltered.sent).toHaveLength(1);
    expect(unfiltered.sent[0]).toContain('live_row_counts');

    const filtered = await statementsFor({ limit: 2, search_value: 'Counted' });
    expect(filtered.page).toMatchObject({ total: 3, totalIsEstimate: false });
    expect(filtered.sent).toHaveLength(1);
    expect(filtered.sent[0]).toContain('count(*)');

    const next = await statementsFor({ limit: 2, cursor: unfiltered.page.nextCursor as string });
    expect(next.page).toMatchObject({ total: 3, rows: [expect.anything()] });
    expect(next.sent).toHaveLength(1);
    expect(next.sent[0]).not.toContain('live_row_counts');
    expect(next.sent[0]).not.toContain('count(*)');
  });

  it('answers the same over HTTP', async () => {
    const listed = await call('GET', '/api/lead/list', { token: owner.token, query: { limit: 2 } });
    expect(listed.body).toMatchObject({ total: 3, total_is_estimate: false });
  });
});
