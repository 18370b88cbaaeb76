/**
 * /api/custom-view/*: saved list views, private to their creator or shared with the
 * organization, with filters checked against the module's list filters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';

let admin: SignedUp;
let other: SignedUp;
let rep: { token: string };
let rep2: { token: string };

async function addView(token: string, body: Record<string, unknown>) {
  return call('POST', '/api/custom-view/add', { token, body: { module_name: 'lead', ...body } });
}

async function visibleIds(token: string, query: Record<string, string> = {}): Promise<number[]> {
  return (await call('GET', '/api/custom-view/list', { token, query: { limit: 100, ...query } })).body.data.map(
    (view: { id: number }) => view.id,
  );
}

beforeAll(async () => {
  [admin, other] = await Promise.all([signupOrganization('Views'), signupOrganization('Other')]);
  [rep, rep2] = await Promise.all([addMember(admin, { first_name: 'rep' }), addMember(admin, { first_name: 'rep2' })]);
});

describe('POST /api/custom-view/add', () => {
  it('saves filters, columns and sorting as given', async () => {
    const response = await addView(rep.token, {
      visibility: 'private',
      view_name: 'My hot leads',
      filters: { state_id: '1,2', assigned_to: 'true', created_from: '2025-01-01' },
      columns: ['first_name', 'email', 'status_text', 'custom_fields.budget'],
      sorting: { order_by: 'created_at', order_in: 'asc' },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      module_name: 'lead',
      view_name: 'My hot leads',
      visibility: 'private',
      filters: { state_id: '1,2', assigned_to: 'true', created_from: '2025-01-01' },
      columns: ['first_name', 'email', 'status_text', 'custom_fields.budget'],
      sorting: { order_by: 'created_at', order_in: 'ASC' },
    });
  });

  it('refuses filters the lead list does not have, bad filter values, unknown columns and modules with 422', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ visibility: 'team', filters: { colour: 'red' } }, 'filters.colour'],
      [{ visibility: 'team', filters: { created_from: '2025-13-01' } }, 'filters.created_from'],
      [{ visibility: 'team', filters: { state_id: 'open' } }, 'filters.state_id'],
      [
        { visibility: 'team', filters: { created_from: '2025-02-01', created_to: '2025-01-31' } },
        'filters.created_from',
      ],
      [{ visibility: 'team', filters: { start_date: '2025-02-01', end_date: '2025-01-31' } }, 'filters.start_date'],
      [{ visibility: 'team', columns: ['password'] }, 'columns.0'],
      [{ visibility: 'team', sorting: { order_by: 'password' } }, 'sorting.order_by'],
      [{ visibility: 'everyone' }, 'visibility'],
      [{ visibility: 'team', module_name: 'spaceships' }, 'module_name'],
    ];
    for (const [body, field] of cases) {
      const response = await addView(admin.token, body);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });

  it('refuses module names that every object has (constructor, __proto__) with 422, never a 500 or a stored view', async () => {
    for (const module_name of ['constructor', '__proto__', 'hasOwnProperty'])
      for (const extra of [
        {},
        { filters: { state_id: '1' } },
        { columns: ['email'] },
        { sorting: { order_by: 'id' } },
      ]) {
        const response = await addView(admin.token, { visibility: 'private', module_name, ...extra });
        expectFailure(response, 422, 'validation_error');
        expect(response.body.error.code, `${module_name} ${JSON.stringify(extra)}`).toBe('module_name');
      }
    const id = (await addView(admin.token, { visibility: 'private' })).body.data.id;
    const moved = await call('POST', `/api/custom-view/update/${id}`, {
      token: admin.token,
      body: { module_name: 'constructor' },
    });
    expectFailure(moved, 422, 'validation_error');
    expect(moved.body.error.code).toBe('module_name');
  });
});

describe('visibility', () => {
  it('shows a private view only to its creator, team and public views to the whole organization', async () => {
    const mine = (await addView(rep.token, { visibility: 'private', view_name: 'Secret' })).body.data.id;
    const team = (await addView(rep.token, { visibility: 'team', view_name: 'Team' })).body.data.id;
    const shared = (await addView(rep.token, { visibility: 'public', view_name: 'Everyone' })).body.data.id;
    expect(await visibleIds(rep.token)).toEqual(expect.arrayContaining([mine, team, shared]));
    const seenByColleague = await visibleIds(rep2.token);
    expect(seenByColleague).toEqual(expect.arrayContaining([team, shared]));
    expect(seenByColleague).not.toContain(mine);
    expect(await visibleIds(admin.token)).not.toContain(mine);
    expect(await visibleIds(other.token)).toEqual([]);
  });

  it('lists by module_name and searches view names', async () => {
    const id = (await addView(rep2.token, { visibility: 'private', view_name: 'Quarter close' })).body.data.id;
    expect(await visibleIds(rep2.token, { search_value: 'quarter' })).toEqual([id]);
    expect(await visibleIds(rep2.token, { module_name: 'deal' })).toEqual([]);
  });
});

describe('update and delete', () => {
  it('lets the creator change any field, re-checking filters', async () => {
    const id = (await addView(rep.token, { visibility: 'private', view_name: 'Draft' })).body.data.id;
    const updated = await call('POST', `/api/custom-view/update/${id}`, {
      token: rep.token,
      body: { view_name: 'Final', visibility: 'team', filters: { priority: '3,4' } },
    });
    expect(updated.body.data).toMatchObject({ view_name: 'Final', visibility: 'team', filters: { priority: '3,4' } });
    expectFailure(
      await call('POST', `/api/custom-view/update/${id}`, { token: rep.token, body: { filters: { nope: 1 } } }),
      422,
      'validation_error',
    );
  });

  it('answers 404 for another user’s private view and 403 for a colleague’s shared view; admins may change shared views', async () => {
    const secret = (await addView(rep.token, { visibility: 'private' })).body.data.id;
    const team = (await addView(rep.token, { visibility: 'team', view_name: 'Team view' })).body.data.id;
    expectFailure(
      await call('POST', `/api/custom-view/update/${secret}`, { token: rep2.token, body: { view_name: 'x' } }),
      404,
      'not_found',
    );
    expectFailure(await call('DELETE', `/api/custom-view/delete/${secret}`, { token: admin.token }), 404, 'not_found');
    expectFailure(
      await call('POST', `/api/custom-view/update/${team}`, { token: rep2.token, body: { view_name: 'x' } }),
      403,
      'forbidden',
    );
    expect(
      (
        await call('POST', `/api/custom-view/update/${team}`, {
          token: admin.token,
          body: { view_name: 'Renamed by admin' },
        })
      ).status,
    ).toBe(200);
  });

  it('deletes a view for good', async () => {
    const id = (await addView(rep.token, { visibility: 'public' })).body.data.id;
    expect((await call('DELETE', `/api/custom-view/delete/${id}`, { token: rep.token })).body.data).toEqual({ id });
    expect(await visibleIds(rep.token)).not.toContain(id);
    expectFailure(await call('DELETE', `/api/custom-view/delete/${id}`, { token: rep.token }), 404, 'not_found');
  });
});
