/**
 * One round trip per list page: the page and its total are one SQL statement, whichever way the
 * total is computed (the live-row counter, a bounded count, the total a cursor carries). Counted
 * on the request's own connection: the scoping statement, then the page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { observeStatements } from '../src/db/client';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Statements');
  for (const name of ['Ann', 'Bob', 'Cid']) await createLead(owner, name, 'Counted');
});

async function listed(query: Record<string, string | number>) {
  const sent: string[] = [];
  const stop = observeStatements((text) => sent.push(text));
  try {
    const response = await call('GET', '/api/lead/list', { token: owner.token, query });
    expect(response.status).toBe(200);
    return { body: response.body, page: sent.slice(1), sent };
  } finally {
    stop();
  }
}

describe('a lead list page', () => {
  it('is one statement after the scope: unfiltered (counter), filtered (bounded count) and on a cursor page (carried total)', async () => {
    const unfiltered = await listed({ limit: 2 });
    expect(unfiltered.body).toMatchObject({ total: 3, total_is_estimate: false });
    expect(unfiltered.sent).toHaveLength(2);
    expect(unfiltered.page[0]).toContain('live_row_counts');

    const filtered = await listed({ limit: 2, search_value: 'Counted' });
    expect(filtered.body).toMatchObject({ total: 3, total_is_estimate: false });
    expect(filtered.sent).toHaveLength(2);
    expect(filtered.page[0]).toContain('count(*)');

    const next = await listed({ limit: 2, cursor: unfiltered.body.next_cursor });
    expect(next.body).toMatchObject({ total: 3, data: [expect.anything()] });
    expect(next.sent).toHaveLength(2);
    expect(next.page[0]).not.toContain('live_row_counts');
    expect(next.page[0]).not.toContain('count(*)');
  });
});
