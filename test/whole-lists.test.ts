/**
 * A list answered whole (a pipeline's stages, rankings, connections) takes the spec's standard list
 * parameters without declaring them. `page` and `limit` cut it as they cut a paged list: page 2 of
 * a list that fits on page 1 is empty, so a client that pages until an empty page stops (every page
 * answered every row until 2026-12-02, so such a client never stopped). A malformed value of any
 * of them is a 400 naming it, as on a paged list, never accepted in silence.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { defaultPipeline } from './helpers/deals';

describe('a list answered whole', () => {
  let owner: SignedUp;
  let stagesPath: string;
  const stages = (query: Record<string, string | number> = {}) =>
    call('GET', stagesPath, { token: owner.token, query });

  beforeAll(async () => {
    owner = await signupOrganization('Whole lists');
    stagesPath = `/api/pipelines/stages/${(await defaultPipeline(owner)).id}`;
  });

  it('answers every row on page 1 when no page or limit is sent', async () => {
    const whole = await stages();
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.data.map((stage: { name: string }) => stage.name)).toEqual([
      'Prospecting',
      'Qualification',
      'Proposal',
      'Negotiation',
      'Won',
      'Lost',
    ]);
    expect(whole.body).toMatchObject({ total: 6, page: 1, limit: 6, next_cursor: null });
  });

  it('answers page 2 empty, with the total of every row: a client paging until an empty page stops', async () => {
    const second = await stages({ page: 2 });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ data: [], total: 6, page: 2, limit: 6, next_cursor: null });
  });

  it('cuts pages of `limit` rows, in the list’s order', async () => {
    const names = async (page: number) =>
      (await stages({ page, limit: 4 })).body.data.map((stage: { name: string }) => stage.name);
    const first = await stages({ limit: 4 });
    expect(first.body).toMatchObject({ total: 6, page: 1, limit: 4 });
    expect(await names(1)).toEqual(['Prospecting', 'Qualification', 'Proposal', 'Negotiation']);
    expect(await names(2)).toEqual(['Won', 'Lost']);
    expect(await names(3)).toEqual([]);
  });

  it('refuses a malformed standard parameter with a 400 naming it', async () => {
    for (const [field, value] of [
      ['page', 'abc'],
      ['page', '0'],
      ['limit', '-1'],
      ['order_in', 'sideways'],
      ['start_date', '2026-13-45'],
      ['end_date', 'yesterday'],
      ['search_value', 'x'.repeat(201)],
    ] as const) {
      const refused = await stages({ [field]: value });
      expect(refused.status, `${field}=${value}: ${refused.text}`).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'bad_request', code: field });
      expect(refused.body.error.details[0].field).toBe(field);
    }
  });

  it('takes the other standard parameters as given, without narrowing the list', async () => {
    const given = await stages({ search_value: 'zzz', order_by: 'name', order_in: 'asc', start_date: '2026-01-01' });
    expect(given.status, given.text).toBe(200);
    expect(given.body.total).toBe(6);
  });

  it('a ranking that declares its own limit keeps it as its cap, and its page 2 is empty', async () => {
    const top = await call('GET', '/api/dashboard/top-accounts', { token: owner.token, query: { limit: 5 } });
    expect(top.status, top.text).toBe(200);
    expect(top.body).toMatchObject({ page: 1, limit: 5 });
    const next = await call('GET', '/api/dashboard/top-accounts', { token: owner.token, query: { limit: 5, page: 2 } });
    expect(next.status, next.text).toBe(200);
    expect(next.body).toMatchObject({ data: [], page: 2, limit: 5 });
  });
});
