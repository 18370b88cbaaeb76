/**
 * Spec "Authentication and users": /api/role/list and /api/role/add. Each test signs up the
 * organizations it needs.
 */
import { describe, expect, it } from 'vitest';
import { addMember, call, expectFailure, memberToken, signupOrganization, uniqueEmail } from './helpers/api';

function names(response: { body: { data: { name: string }[] } }): string[] {
  return response.body.data.map((role) => role.name);
}

describe('GET /api/role/list', () => {
  it('returns admin, manager and sales_rep for a new organization', async () => {
    const org = await signupOrganization();
    const response = await call('GET', '/api/role/list', {
      token: org.token,
      query: { order_by: 'name', order_in: 'asc' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, total: 3, page: 1, limit: 10 });
    expect(names(response)).toEqual(['admin', 'manager', 'sales_rep']);
    for (const role of response.body.data) {
      expect(role).toEqual({
        id: expect.any(Number),
        name: role.name,
        description: role.description,
        state_id: 1,
        created_at: expect.any(String),
      });
    }
  });

  it('never returns another organization’s roles', async () => {
    const [a, b] = await Promise.all([signupOrganization(), signupOrganization()]);
    const added = await call('POST', '/api/role/add', { token: b.token, body: { name: 'Only In B' } });
    expect(added.status).toBe(201);
    const listA = await call('GET', '/api/role/list', { token: a.token, query: { limit: 100 } });
    const listB = await call('GET', '/api/role/list', { token: b.token, query: { limit: 100 } });
    expect(names(listA).sort()).toEqual(['admin', 'manager', 'sales_rep']);
    expect(names(listB)).toContain('Only In B');
    const idsA = new Set(listA.body.data.map((role: { id: number }) => role.id));
    expect(listB.body.data.some((role: { id: number }) => idsA.has(role.id))).toBe(false);
  });

  it('filters by state_id and searches by name', async () => {
    const org = await signupOrganization();
    const active = await call('GET', '/api/role/list', { token: org.token, query: { state_id: '1' } });
    expect(active.body.total).toBe(3);
    const inactive = await call('GET', '/api/role/list', { token: org.token, query: { state_id: '0' } });
    expect(inactive.body.total).toBe(0);
    const search = await call('GET', '/api/role/list', { token: org.token, query: { search_value: 'MANA' } });
    expect(names(search)).toEqual(['manager']);
  });

  it('is readable by a non-admin', async () => {
    const org = await signupOrganization();
    const repToken = (await addMember(org)).token;
    const response = await call('GET', '/api/role/list', { token: repToken });
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(3);
  });

  it('answers 400 naming state_id when a member of the id list is not written in digits', async () => {
    const org = await signupOrganization();
    // Number() would read these as 1; the one id-list parser takes digits only.
    for (const state_id of ['0x1', '1e0', '+1', '1,two']) {
      const response = await call('GET', '/api/role/list', { token: org.token, query: { state_id } });
      expectFailure(response, 400, 'bad_request');
      expect(response.body.error.code, state_id).toBe('state_id');
    }
  });

  it('answers 400 naming order_by for an unknown order_by', async () => {
    const org = await signupOrganization();
    const response = await call('GET', '/api/role/list', { token: org.token, query: { order_by: 'organization_id' } });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('order_by');
  });

  it('answers 401 without a token', async () => {
    expectFailure(await call('GET', '/api/role/list'), 401, 'unauthorized');
  });
});

describe('POST /api/role/add', () => {
  it('answers 201 with the new role, which then appears in the list and can be given to users', async () => {
    const org = await signupOrganization();
    const response = await call('POST', '/api/role/add', {
      token: org.token,
      body: { name: 'Team Lead', description: 'Leads a pod' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      success: true,
      data: { name: 'Team Lead', description: 'Leads a pod', state_id: 1 },
    });
    const roleId = response.body.data.id;
    const list = await call('GET', '/api/role/list', { token: org.token });
    expect(list.body.total).toBe(4);
    expect(names(list)).toContain('Team Lead');
    const user = await call('POST', '/api/user/add', {
      token: org.token,
      body: {
        first_name: 'Lead',
        email: uniqueEmail(),
        phone_no: '+15550100',
        password: 'password123',
        role_id: roleId,
      },
    });
    expect(user.status).toBe(201);
    expect(user.body.data).toMatchObject({ role_id: roleId, role_name: 'Team Lead' });
  });

  it('answers 409 for a name the organization already has, in any letter case', async () => {
    const org = await signupOrganization();
    expect((await call('POST', '/api/role/add', { token: org.token, body: { name: 'Team Lead' } })).status).toBe(201);
    expectFailure(
      await call('POST', '/api/role/add', { token: org.token, body: { name: 'team lead' } }),
      409,
      'conflict',
    );
    expectFailure(
      await call('POST', '/api/role/add', { token: org.token, body: { name: 'Manager' } }),
      409,
      'conflict',
    );
  });

  it('allows the same name in another organization', async () => {
    const [a, b] = await Promise.all([signupOrganization(), signupOrganization()]);
    expect((await call('POST', '/api/role/add', { token: a.token, body: { name: 'Closer' } })).status).toBe(201);
    expect((await call('POST', '/api/role/add', { token: b.token, body: { name: 'Closer' } })).status).toBe(201);
  });

  it('answers 403 to a non-admin and adds nothing', async () => {
    const org = await signupOrganization();
    for (const token of [(await addMember(org)).token, await memberToken(org, 'manager')]) {
      expectFailure(await call('POST', '/api/role/add', { token, body: { name: 'Sneaky' } }), 403, 'forbidden');
    }
    expect((await call('GET', '/api/role/list', { token: org.token })).body.total).toBe(3);
  });

  it('answers 422 naming name when the name is too short or missing', async () => {
    const org = await signupOrganization();
    for (const body of [{ name: 'x' }, { name: '  x  ' }, {}, { description: 'no name' }]) {
      const response = await call('POST', '/api/role/add', { token: org.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('name');
    }
  });
});
