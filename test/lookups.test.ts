/**
 * /api/custom-lookups/*: per-organization lookup values, the defaults seeded at signup, next
 * values, and what changing a value or deactivating a lookup does to leads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createContact } from './helpers/accounts';
import { addMember, call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let org: SignedUp;
let other: SignedUp;

async function lookups(who: SignedUp, query: Record<string, string | number>) {
  const response = await call('GET', '/api/custom-lookups/list', {
    token: who.token,
    query: { limit: 100, order_by: 'value', order_in: 'ASC', ...query },
  });
  expect(response.status).toBe(200);
  return response.body.data as {
    id: number;
    name: string;
    value: number | null;
    is_active: boolean;
    color_code: string | null;
  }[];
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Lookups'), signupOrganization('Other')]);
});

describe('signup defaults', () => {
  it('seeds lead statuses 1..6, sources 1..5 as the spec names them, priorities 1..4 and tags', async () => {
    const names = async (type: string) =>
      (await lookups(org, { module_name: 'lead', type })).map((lookup) => [lookup.value, lookup.name]);
    expect(await names('status')).toEqual([
      [1, 'New'],
      [2, 'Contacted'],
      [3, 'Qualified'],
      [4, 'Unqualified'],
      [5, 'Converted'],
      [6, 'Lost'],
    ]);
    expect(await names('source')).toEqual([
      [1, 'Website'],
      [2, 'Referral'],
      [3, 'Social profile'],
      [4, 'Email'],
      [5, 'Direct'],
    ]);
    expect(await names('priority')).toEqual([
      [1, 'Low'],
      [2, 'Medium'],
      [3, 'High'],
      [4, 'Urgent'],
    ]);
    expect((await lookups(org, { type: 'tags', order_by: 'id' })).map((tag) => tag.name).sort()).toEqual([
      'Cold',
      'Hot',
      'Partner',
      'VIP',
    ]);
  });

  it('keeps each organization’s lookups to itself', async () => {
    const mine = (await lookups(org, {})).map((lookup) => lookup.id);
    const theirs = (await lookups(other, {})).map((lookup) => lookup.id);
    expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
  });
});

describe('POST /api/custom-lookups/add', () => {
  it('gives a status without a value the next value, and a tag none', async () => {
    const status = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'status', name: 'Nurturing', color_code: '#112233' },
    });
    expect(status.status).toBe(201);
    expect(status.body.data).toMatchObject({
      module_name: 'lead',
      type: 'status',
      name: 'Nurturing',
      value: 7,
      color_code: '#112233',
      is_active: true,
      parent_id: null,
    });
    const tag = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'tags', name: 'Enterprise' },
    });
    expect(tag.body.data.value).toBeNull();
    const lead = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'New', last_name: 'Status', status: 7, tags: [tag.body.data.id] },
    });
    expect(lead.body.data).toMatchObject({ status_text: 'Nurturing', tags: [{ name: 'Enterprise' }] });
  });

  it('answers 409 for a value or a name already taken in the same type', async () => {
    const value = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'priority', name: 'Critical', value: 4 },
    });
    expectFailure(value, 409, 'conflict');
    expect(value.body.error.code).toBe('duplicate_value');
    const name = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'tags', name: 'hot' },
    });
    expectFailure(name, 409, 'conflict');
  });

  it('refuses an unknown lead lookup type, a foreign parent and a bad color with 422', async () => {
    const parent = (await lookups(other, { type: 'tags' }))[0].id;
    for (const [body, field] of [
      [{ module_name: 'lead', type: 'colour', name: 'Red' }, 'type'],
      [{ module_name: 'lead', type: 'tags', name: 'Child', parent_id: parent }, 'parent_id'],
      [{ module_name: 'lead', type: 'tags', name: 'Bad color', color_code: 'red' }, 'color_code'],
      [{ module_name: 'lead', type: 'tags', name: '' }, 'name'],
    ] as const) {
      const response = await call('POST', '/api/custom-lookups/add', { token: org.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
  });

  it('is for admins and managers only', async () => {
    const rep = (await addMember(org, { first_name: 'Rep' })).token;
    expectFailure(
      await call('POST', '/api/custom-lookups/add', {
        token: rep,
        body: { module_name: 'lead', type: 'tags', name: 'Mine' },
      }),
      403,
      'forbidden',
    );
    expect((await call('GET', '/api/custom-lookups/list', { token: rep })).status).toBe(200);
  });
});

describe('POST /api/custom-lookups/update/{id}', () => {
  it('renames and recolors; a deactivated status stays readable on old leads but cannot be given to new ones', async () => {
    const status = (
      await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'status', name: 'Parked' },
      })
    ).body.data;
    const lead = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Old', last_name: 'Lead', status: status.value },
      })
    ).body.data;
    const updated = await call('POST', `/api/custom-lookups/update/${status.id}`, {
      token: org.token,
      body: { name: 'On hold', color_code: '#abcdef', is_active: false },
    });
    expect(updated.body.data).toMatchObject({ name: 'On hold', color_code: '#abcdef', is_active: false });
    expect((await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data.status_text).toBe(
      'On hold',
    );
    const refused = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'New', last_name: 'Lead', status: status.value },
    });
    expectFailure(refused, 422, 'validation_error');
    expect((await lookups(org, { type: 'status', is_active: 'false' })).map((lookup) => lookup.id)).toContain(
      status.id,
    );
  });

  it('labels come from the lead’s own organization: a status renamed in one organization leaves another’s of the same value as it was', async () => {
    const [renamer, bystander] = await Promise.all([
      signupOrganization('Labels renamer'),
      signupOrganization('Labels bystander'),
    ]);
    const [status] = await lookups(renamer, { type: 'status' });
    const [theirs] = await lookups(bystander, { type: 'status' });
    expect(theirs.value).toBe(status.value);
    const renamed = await call('POST', `/api/custom-lookups/update/${status.id}`, {
      token: renamer.token,
      body: { name: `Renamed ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const add = (owner: SignedUp) =>
      call('POST', '/api/lead/add', {
        token: owner.token,
        body: { first_name: 'Label', last_name: 'Owner', status: status.value },
      });
    const [mine, other] = [(await add(renamer)).body.data, (await add(bystander)).body.data];
    expect(mine.status_text).toBe(renamed.body.data.name);
    expect(other.status_text).toBe(theirs.name);
    for (const [owner, id, label] of [
      [renamer, mine.id, renamed.body.data.name],
      [bystander, other.id, theirs.name],
    ] as const) {
      const listed = await call('GET', '/api/lead/list', { token: owner.token, query: { limit: 100 } });
      expect(listed.body.data.find((lead: { id: number }) => lead.id === id).status_text).toBe(label);
      const viewed = await call('GET', `/api/lead/view/${id}`, { token: owner.token });
      expect(viewed.body.data.status_text).toBe(label);
    }
  });

  it('moves leads along when a status value changes', async () => {
    const status = (
      await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'status', name: 'Renumbered' },
      })
    ).body.data;
    const lead = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Moved', last_name: 'Lead', status: status.value },
      })
    ).body.data;
    await call('POST', `/api/custom-lookups/update/${status.id}`, { token: org.token, body: { value: 50 } });
    expect((await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data).toMatchObject({
      status: 50,
      status_text: 'Renumbered',
    });
  });

  it('moves leads along when a source or priority value changes', async () => {
    for (const [type, field, value] of [
      ['source', 'lead_source', 51],
      ['priority', 'priority', 52],
    ] as const) {
      const lookup = (
        await call('POST', '/api/custom-lookups/add', {
          token: org.token,
          body: { module_name: 'lead', type, name: `Renumbered ${type}` },
        })
      ).body.data;
      const lead = (
        await call('POST', '/api/lead/add', {
          token: org.token,
          body: { first_name: 'Moved', last_name: 'Lead', [field]: lookup.value },
        })
      ).body.data;
      const moved = await call('POST', `/api/custom-lookups/update/${lookup.id}`, {
        token: org.token,
        body: { value },
      });
      expect(moved.status, moved.text).toBe(200);
      expect((await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data).toMatchObject({
        [field]: value,
        [`${field}_text`]: `Renumbered ${type}`,
      });
    }
  });

  it('moves contacts along with the leads when a status value changes, so a new status taking the old value leaves them as they were', async () => {
    const status = (
      await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'status', name: 'Contact renumbered' },
      })
    ).body.data;
    const company = await createCompany(org);
    const contact = await createContact(org, { company_id: company, status: status.value });
    const lead = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Moved', last_name: 'Too', status: status.value },
      })
    ).body.data;
    const moved = await call('POST', `/api/custom-lookups/update/${status.id}`, {
      token: org.token,
      body: { value: 70 },
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await call('GET', `/api/contact/view/${contact}`, { token: org.token })).body.data.status).toBe(70);
    expect((await call('GET', `/api/lead/view/${lead.id}`, { token: org.token })).body.data.status).toBe(70);
    // The old value is free: another status takes it, and the contact keeps the status it had.
    const reused = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'status', name: 'Took the old value', value: status.value },
    });
    expect(reused.status, reused.text).toBe(201);
    expect((await call('GET', `/api/contact/view/${contact}`, { token: org.token })).body.data.status).toBe(70);
  });

  it('refuses to deactivate the last active status and to clear a status value', async () => {
    const fresh = await signupOrganization('Last status');
    const statuses = await lookups(fresh, { type: 'status' });
    for (const status of statuses.slice(1))
      await call('POST', `/api/custom-lookups/update/${status.id}`, { token: fresh.token, body: { is_active: false } });
    expectFailure(
      await call('POST', `/api/custom-lookups/update/${statuses[0].id}`, {
        token: fresh.token,
        body: { is_active: false },
      }),
      422,
      'validation_error',
    );
    expectFailure(
      await call('POST', `/api/custom-lookups/update/${statuses[0].id}`, { token: fresh.token, body: { value: null } }),
      422,
      'validation_error',
    );
  });

  it('answers 409 duplicate_lookup naming the active tag when a tag made active again has its name (ingestion created it meanwhile)', async () => {
    const who = await signupOrganization('Tag reactivation');
    const name = `Back ${crypto.randomUUID().slice(0, 6)}`;
    const old = await call('POST', '/api/custom-lookups/add', {
      token: who.token,
      body: { module_name: 'lead', type: 'tags', name },
    });
    expect(old.status, old.text).toBe(201);
    const off = await call('POST', `/api/custom-lookups/update/${old.body.data.id}`, {
      token: who.token,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    // Ingestion creates a new tag when only an inactive one has the name.
    const key = await call('POST', '/api/api-keys/add', { token: who.token, body: { name: 'site' } });
    const ingested = await call('POST', '/api/v1/lead', {
      apiKey: key.body.data.key,
      body: { email: uniqueEmail('reactivate'), tags: [name.toLowerCase()] },
    });
    expect(ingested.status, ingested.text).toBe(201);
    const view = await call('GET', `/api/lead/view/${ingested.body.data.id}`, { token: who.token });
    const fresh = view.body.data.tags[0].id as number;
    expect(fresh).not.toBe(old.body.data.id);
    for (const body of [{ is_active: true }, { is_active: true, name: name.toUpperCase() }]) {
      const back = await call('POST', `/api/custom-lookups/update/${old.body.data.id}`, { token: who.token, body });
      expectFailure(back, 409, 'conflict');
      expect(back.body.error).toMatchObject({ code: 'duplicate_lookup', details: { lookup_id: fresh, field: 'name' } });
    }
    const active = (await lookups(who, { type: 'tags', is_active: 'true' })).filter(
      (tag) => tag.name.toLowerCase() === name.toLowerCase(),
    );
    expect(active.map((tag) => tag.id)).toEqual([fresh]);
    // Renamed away from it, the old tag may come back.
    const renamed = await call('POST', `/api/custom-lookups/update/${old.body.data.id}`, {
      token: who.token,
      body: { is_active: true, name: `${name} (old)` },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({ is_active: true, name: `${name} (old)` });
  });

  it('answers 404 for another organization’s lookup', async () => {
    const theirs = (await lookups(other, { type: 'tags' }))[0];
    expectFailure(
      await call('POST', `/api/custom-lookups/update/${theirs.id}`, { token: org.token, body: { name: 'Mine now' } }),
      404,
      'not_found',
    );
  });
});

describe('concurrent lookup updates', () => {
  // On PostgreSQL (TEST_DATABASE_URL), without the per-type lock, every rename passed the name
  // check before any committed (ten tags of one name), and both deactivations counted the other
  // as still active (no active status left). PGlite runs one transaction at a time.
  it('let exactly one of ten tags take a name at once; the others get 409 duplicate_lookup naming it', async () => {
    const who = await signupOrganization('Lookup races');
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const response = await call('POST', '/api/custom-lookups/add', {
          token: who.token,
          body: { module_name: 'lead', type: 'tags', name: `Tag ${i}` },
        });
        return response.body.data.id as number;
      }),
    );
    const name = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
    const answers = await Promise.all(
      ids.map((id, i) =>
        call('POST', `/api/custom-lookups/update/${id}`, {
          token: who.token,
          body: { name: i % 2 ? name.toUpperCase() : name },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const winner = answers.find((answer) => answer.status === 200)?.body.data.id;
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.error).toMatchObject({ code: 'duplicate_lookup', details: { lookup_id: winner } });
    }
    const named = (await lookups(who, { type: 'tags' })).filter((tag) => tag.name.toLowerCase() === name.toLowerCase());
    expect(named).toHaveLength(1);
  });

  it('keeps one active lead status when every status is deactivated at once, round after round', async () => {
    const who = await signupOrganization('Status races');
    const statuses = await lookups(who, { type: 'status', is_active: 'true' });
    expect(statuses.length).toBeGreaterThan(2);
    for (let round = 0; round < 3; round++) {
      for (const status of statuses) {
        const response = await call('POST', `/api/custom-lookups/update/${status.id}`, {
          token: who.token,
          body: { is_active: true },
        });
        expect(response.status).toBe(200);
      }
      const answers = await Promise.all(
        statuses.map((status) =>
          call('POST', `/api/custom-lookups/update/${status.id}`, { token: who.token, body: { is_active: false } }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(statuses.length - 1).fill(200), 422]);
      expect(await lookups(who, { type: 'status', is_active: 'true' })).toHaveLength(1);
    }
  });
});

describe('GET /api/custom-lookups/list', () => {
  it('filters by module_name, type, is_active and parent_id, and searches names', async () => {
    const parent = (
      await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'tags', name: 'Region' },
      })
    ).body.data;
    const child = (
      await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'tags', name: 'EMEA', parent_id: parent.id },
      })
    ).body.data;
    expect((await lookups(org, { parent_id: parent.id })).map((lookup) => lookup.id)).toEqual([child.id]);
    expect((await lookups(org, { search_value: 'emea' })).map((lookup) => lookup.id)).toEqual([child.id]);
    expect((await lookups(org, { module_name: 'deal' })).length).toBe(0);
    expectFailure(
      await call('GET', '/api/custom-lookups/list', { token: org.token, query: { parent_id: 'x' } }),
      400,
      'bad_request',
    );
  });
});

describe('the spec’s spelling: module_name status, source or priority', () => {
  it('lists what module_name=lead&type=<that> lists', async () => {
    for (const alias of ['status', 'source', 'priority']) {
      const spelled = await lookups(org, { module_name: alias });
      const stored = await lookups(org, { module_name: 'lead', type: alias });
      expect(spelled.length, alias).toBeGreaterThan(0);
      expect(spelled, alias).toEqual(stored);
      expect(await lookups(org, { module_name: alias, type: alias }), alias).toEqual(stored);
    }
  });

  it('refuses a type that contradicts the alias with 400 naming type', async () => {
    const response = await call('GET', '/api/custom-lookups/list', {
      token: org.token,
      query: { module_name: 'status', type: 'source' },
    });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe('type');
  });

  it('adds under the alias (type may be omitted) as module lead of that type, with the next value', async () => {
    const before = await lookups(org, { module_name: 'lead', type: 'source' });
    const added = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'source', name: 'Podcast' },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({
      module_name: 'lead',
      type: 'source',
      name: 'Podcast',
      value: Math.max(...before.map((lookup) => lookup.value ?? 0)) + 1,
    });
    const listed = await lookups(org, { module_name: 'source' });
    expect(listed.map((lookup) => lookup.id)).toContain(added.body.data.id);

    for (const [body, field] of [
      [{ module_name: 'status', type: 'tags', name: 'Mixed' }, 'type'],
      [{ module_name: 'lead', name: 'No type' }, 'type'],
    ] as const) {
      const response = await call('POST', '/api/custom-lookups/add', { token: org.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });
});

describe('saved filters follow a renumbered lookup', () => {
  type Filters = Record<string, unknown>;
  let owner: SignedUp;
  let bystander: SignedUp;
  let rep: { token: string };
  /** One value shared by a status, a source and a priority of `owner`, so each renumber must leave the other two types' filters alone. */
  let shared: number;
  const ids: Record<'status' | 'source' | 'priority', number> = { status: 0, source: 0, priority: 0 };
  const leadIds: Record<'all' | 'statusOnly' | 'sourceOnly' | 'neither', number> = {
    all: 0,
    statusOnly: 0,
    sourceOnly: 0,
    neither: 0,
  };

  async function add(who: { token: string }, path: string, body: Record<string, unknown>) {
    const response = await call('POST', path, { token: who.token, body });
    expect(response.status, response.text).toBe(201);
    return response.body.data;
  }

  async function renumber(type: keyof typeof ids, value: number) {
    const response = await call('POST', `/api/custom-lookups/update/${ids[type]}`, {
      token: owner.token,
      body: { value },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.value).toBe(value);
  }

  async function viewFilters(who: { token: string }, id: number): Promise<Filters> {
    const listed = await call('GET', '/api/custom-view/list', { token: who.token, query: { limit: 100 } });
    expect(listed.status).toBe(200);
    return listed.body.data.find((view: { id: number }) => view.id === id).filters;
  }

  /** The leads a view's filters select on the lead list, as a client sends them (lists joined by commas). */
  async function leadsOf(who: { token: string }, filters: Filters): Promise<number[]> {
    const query = Object.fromEntries(
      Object.entries(filters).map(([key, value]) => [key, Array.isArray(value) ? value.join(',') : String(value)]),
    );
    const listed = await call('GET', '/api/lead/list', {
      token: who.token,
      query: { limit: 100, order_by: 'id', order_in: 'ASC', ...query },
    });
    expect(listed.status, listed.text).toBe(200);
    return listed.body.data.map((lead: { id: number }) => lead.id);
  }

  async function queryFilters(who: { token: string }, id: number): Promise<Filters> {
    const viewed = await call('GET', `/api/queries/${id}`, { token: who.token });
    expect(viewed.status).toBe(200);
    return viewed.body.data.definition.filters;
  }

  async function queryRows(who: { token: string }, id: number) {
    const executed = await call('POST', `/api/queries/${id}/execute`, { token: who.token, body: {} });
    expect(executed.status, executed.text).toBe(200);
    return executed.body.data.rows;
  }

  beforeAll(async () => {
    [owner, bystander] = await Promise.all([signupOrganization('Renumbered filters'), signupOrganization('Bystander')]);
    rep = await addMember(owner, { first_name: 'Rep' });
    shared = 40;
    for (const type of ['status', 'source', 'priority'] as const)
      ids[type] = (
        await add(owner, '/api/custom-lookups/add', {
          module_name: 'lead',
          type,
          name: `Shared ${type}`,
          value: shared,
        })
      ).id;
    const lead = async (first: string, fields: Record<string, number>) =>
      (await add(owner, '/api/lead/add', { first_name: first, last_name: 'Filtered', ...fields })).id as number;
    leadIds.all = await lead('All', { status: shared, lead_source: shared, priority: shared });
    leadIds.statusOnly = await lead('Status', { status: shared, lead_source: 1, priority: 1 });
    leadIds.sourceOnly = await lead('Source', { status: 1, lead_source: shared, priority: 2 });
    leadIds.neither = await lead('Neither', { status: 4, lead_source: 2, priority: 2 });
  });

  it('moves status, source and priority values in views and lead queries of the organization, whatever their shape, and nothing else', async () => {
    const s = String(shared);
    // Views: a comma list with spaces and a value of another lookup; a private view of a rep with
    // every shape; one on the other types only; and another organization's view of the same value.
    const byList = await add(owner, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'team',
      filters: { state_id: `2, ${s}` },
    });
    const mixed = await add(rep, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'private',
      filters: { state_id: [shared, '3'], lead_source: shared, priority: [s] },
    });
    const otherTypes = await add(owner, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'public',
      filters: { lead_source: s, priority: shared },
    });
    const foreignView = await add(bystander, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'team',
      filters: { state_id: s, lead_source: s, priority: s },
    });
    // Saved queries: leads by status on the status; a rep's personal one on the other types; a
    // deal query whose `status` (a stage id) happens to be the same number; another organization's.
    const byStatus = await add(owner, '/api/queries', {
      name: 'Shared status',
      scope: 'team',
      definition: { module: 'leads', filters: { state_id: [shared] }, metric: { op: 'count' }, group_by: 'status' },
    });
    const bySource = await add(rep, '/api/queries', {
      name: 'Shared source and priority',
      definition: {
        module: 'leads',
        filters: { lead_source: s, priority: shared },
        metric: { op: 'count' },
        group_by: 'lead_source',
      },
    });
    const dealQuery = await add(owner, '/api/queries', {
      name: 'Deals in a stage',
      definition: { module: 'deals', filters: { status: shared }, metric: { op: 'count' } },
    });
    const foreignQuery = await add(bystander, '/api/queries', {
      name: 'Their status',
      definition: { module: 'leads', filters: { state_id: s, lead_source: s, priority: s }, metric: { op: 'count' } },
    });

    const selected = {
      byList: [leadIds.all, leadIds.statusOnly],
      mixed: [leadIds.all],
      otherTypes: [leadIds.all],
    };
    expect(await leadsOf(owner, await viewFilters(owner, byList.id))).toEqual(selected.byList);
    expect(await leadsOf(rep, await viewFilters(rep, mixed.id))).toEqual(selected.mixed);
    expect(await leadsOf(owner, await viewFilters(owner, otherTypes.id))).toEqual(selected.otherTypes);
    expect(await queryRows(owner, byStatus.id)).toEqual([['Shared status', 2]]);
    expect(await queryRows(rep, bySource.id)).toEqual([['Shared source', 1]]);

    // The status: only state_id moves.
    await renumber('status', 71);
    expect(await viewFilters(owner, byList.id)).toEqual({ state_id: '2, 71' });
    expect(await viewFilters(rep, mixed.id)).toEqual({ state_id: [71, '3'], lead_source: shared, priority: [s] });
    expect(await viewFilters(owner, otherTypes.id)).toEqual({ lead_source: s, priority: shared });
    expect(await queryFilters(owner, byStatus.id)).toEqual({ state_id: [71] });
    expect(await queryFilters(rep, bySource.id)).toEqual({ lead_source: s, priority: shared });
    expect(await queryFilters(owner, dealQuery.id)).toEqual({ status: shared });

    // The source: only lead_source moves.
    await renumber('source', 72);
    expect(await viewFilters(rep, mixed.id)).toEqual({ state_id: [71, '3'], lead_source: 72, priority: [s] });
    expect(await viewFilters(owner, otherTypes.id)).toEqual({ lead_source: '72', priority: shared });
    expect(await queryFilters(rep, bySource.id)).toEqual({ lead_source: '72', priority: shared });

    // The priority: only priority moves.
    await renumber('priority', 73);
    expect(await viewFilters(rep, mixed.id)).toEqual({ state_id: [71, '3'], lead_source: 72, priority: ['73'] });
    expect(await viewFilters(owner, otherTypes.id)).toEqual({ lead_source: '72', priority: 73 });
    expect(await queryFilters(rep, bySource.id)).toEqual({ lead_source: '72', priority: 73 });
    expect(await viewFilters(owner, byList.id)).toEqual({ state_id: '2, 71' });
    expect(await queryFilters(owner, byStatus.id)).toEqual({ state_id: [71] });
    expect(await queryFilters(owner, dealQuery.id)).toEqual({ status: shared });

    // New lookups take the old value, with a lead each: the views and queries still select what they did.
    for (const type of ['status', 'source', 'priority'] as const)
      await add(owner, '/api/custom-lookups/add', { module_name: 'lead', type, name: `New ${type}`, value: shared });
    await add(owner, '/api/lead/add', {
      first_name: 'Newcomer',
      last_name: 'Filtered',
      status: shared,
      lead_source: shared,
      priority: shared,
    });
    expect(await leadsOf(owner, await viewFilters(owner, byList.id))).toEqual(selected.byList);
    expect(await leadsOf(rep, await viewFilters(rep, mixed.id))).toEqual(selected.mixed);
    expect(await leadsOf(owner, await viewFilters(owner, otherTypes.id))).toEqual(selected.otherTypes);
    expect(await queryRows(owner, byStatus.id)).toEqual([['Shared status', 2]]);
    expect(await queryRows(rep, bySource.id)).toEqual([['Shared source', 1]]);

    // Another organization's views and queries keep their values.
    expect(await viewFilters(bystander, foreignView.id)).toEqual({ state_id: s, lead_source: s, priority: s });
    expect(await queryFilters(bystander, foreignQuery.id)).toEqual({ state_id: s, lead_source: s, priority: s });
  });

  it('bumps updated_at of the views and queries it rewrites only', async () => {
    const status = await add(owner, '/api/custom-lookups/add', {
      module_name: 'lead',
      type: 'status',
      name: 'Touched',
      value: 90,
    });
    const moved = await add(owner, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'team',
      filters: { state_id: '90' },
    });
    const untouched = await add(owner, '/api/custom-view/add', {
      module_name: 'lead',
      visibility: 'team',
      filters: { state_id: '91', priority: 90 },
    });
    const query = await add(owner, '/api/queries', {
      name: 'Touched status',
      definition: { module: 'leads', filters: { state_id: 90 }, metric: { op: 'count' } },
    });
    const response = await call('POST', `/api/custom-lookups/update/${status.id}`, {
      token: owner.token,
      body: { value: 95 },
    });
    expect(response.status, response.text).toBe(200);
    const views = (await call('GET', '/api/custom-view/list', { token: owner.token, query: { limit: 100 } })).body
      .data as { id: number; filters: Filters; updated_at: string }[];
    const listedView = (id: number) => views.find((view) => view.id === id) as (typeof views)[number];
    expect(listedView(moved.id).filters).toEqual({ state_id: '95' });
    expect(Date.parse(listedView(moved.id).updated_at)).toBeGreaterThan(Date.parse(moved.updated_at));
    expect(listedView(untouched.id)).toMatchObject({ filters: untouched.filters, updated_at: untouched.updated_at });
    const viewed = (await call('GET', `/api/queries/${query.id}`, { token: owner.token })).body.data;
    expect(viewed.definition.filters).toEqual({ state_id: 95 });
    expect(Date.parse(viewed.updated_at)).toBeGreaterThan(Date.parse(query.updated_at));
  });
});
