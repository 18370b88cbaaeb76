/**
 * /api/queries: the default queries of a new organization, the definition grammar (422 naming
 * every bad name), execution shaped per widget against hand-computed numbers on small seeded
 * organizations, inert injection attempts, visibility and the statement budget.
 */
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { deals, leads, lookups, meetings } from '../src/db/schema';
import { addMember, call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';
import { inOrganization } from './helpers/leads';
import { statementsOf } from './helpers/statements';

let leadOrg: SignedUp;
let dealOrg: SignedUp;
let rep: { token: string; userId: number };
let rep2: { token: string; userId: number };
const sourceNames = new Map<number, string>();

async function defaults(owner: SignedUp): Promise<Map<string, number>> {
  const page = await call('GET', '/api/queries', {
    token: owner.token,
    query: { limit: 100, order_by: 'id', order_in: 'asc' },
  });
  expect(page.status).toBe(200);
  return new Map(
    (page.body.data as { name: string; id: number; is_default: boolean }[])
      .filter((query) => query.is_default)
      .map((query) => [query.name, query.id]),
  );
}

async function execute(token: string, id: number, body: Record<string, unknown> = {}) {
  return call('POST', `/api/queries/${id}/execute`, { token, body });
}

async function addQuery(token: string, body: Record<string, unknown>) {
  return call('POST', '/api/queries', { token, body: { name: 'Query', ...body } });
}

beforeAll(async () => {
  [leadOrg, dealOrg] = await Promise.all([signupOrganization('Queries'), signupOrganization('Deal queries')]);
  [rep, rep2] = await Promise.all([
    addMember(leadOrg, { first_name: 'rep' }),
    addMember(leadOrg, { first_name: 'rep2' }),
  ]);
  // Live leads: New (source 1, score 10, Jan, admin), New (source 2, score 20, Jan, admin),
  // Contacted (source 1, score 30, Feb, rep); a deleted Qualified lead counts nowhere.
  await inOrganization(leadOrg.orgId, async (tx) => {
    const row = (
      first: string,
      status: number,
      source: number | null,
      score: number,
      day: string,
      assignedTo: number | null,
    ) => ({
      organizationId: leadOrg.orgId,
      firstName: first,
      lastName: 'Seeded',
      status,
      leadSource: source,
      score,
      assignedTo,
      country: first === 'Cy' ? "Robert'); DROP TABLE leads; --" : 'France',
      createdAt: new Date(`${day}T12:00:00Z`),
    });
    await tx
      .insert(leads)
      .values([
        row('Ann', 1, 1, 10, '2026-01-10', leadOrg.userId),
        row('Bob', 1, 2, 20, '2026-01-20', leadOrg.userId),
        row('Cy', 2, 1, 30, '2026-02-05', rep.userId),
        { ...row('Del', 3, null, 40, '2026-02-15', null), deletedAt: new Date() },
      ]);
    const names = await tx
      .select({ value: lookups.value, name: lookups.name })
      .from(lookups)
      .where(sql`${lookups.type} = 'source' and ${lookups.organizationId} = ${leadOrg.orgId}`);
    for (const lookup of names) sourceNames.set(Number(lookup.value), lookup.name);
  });
  // Deals: open 100 + 250 in Prospecting and 400 in Proposal; won 1000 (closed 2026-01-15) and
  // 500 (closed 2026-03-02); lost 700.
  const pipeline = await defaultPipeline(dealOrg);
  const stage = (name: string) => pipeline.stages.find((s) => s.name === name)?.id as number;
  const added: { id: number }[] = [];
  for (const [value, name] of [
    [100, 'Prospecting'],
    [250, 'Prospecting'],
    [400, 'Proposal'],
    [1000, 'Won'],
    [500, 'Won'],
    [700, 'Lost'],
  ] as const)
    added.push(await addDeal(dealOrg, pipeline, { value, stage_id: stage(name) }));
  await inOrganization(dealOrg.orgId, async (tx) => {
    await tx
      .update(deals)
      .set({ closedAt: new Date('2026-01-15T10:00:00Z') })
      .where(eq(deals.id, added[3].id));
    await tx
      .update(deals)
      .set({ closedAt: new Date('2026-03-02T10:00:00Z') })
      .where(eq(deals.id, added[4].id));
  });
});

describe('default queries', () => {
  it('every organization starts with the five shared default queries, owned by nobody', async () => {
    const page = await call('GET', '/api/queries', { token: rep.token, query: { limit: 100 } });
    expect(page.status).toBe(200);
    const seeded = page.body.data.filter((query: { is_default: boolean }) => query.is_default);
    expect(seeded.map((query: { name: string }) => query.name).sort()).toEqual([
      'Average lead score by owner',
      'Deals won per month',
      'Leads by source per month',
      'Leads by status',
      'Open pipeline by stage',
    ]);
    for (const query of seeded) expect(query).toMatchObject({ scope: 'workspace', user_id: null });
  });

  it('leads by status, as every widget shape, counts live leads of the organization only', async () => {
    const id = (await defaults(leadOrg)).get('Leads by status') as number;
    const table = await execute(leadOrg.token, id, { widgetType: 'table' });
    expect(table.status).toBe(200);
    expect(table.body.data).toEqual({
      query_id: id,
      metric: 'count',
      widget_type: 'table',
      columns: ['status', 'count'],
      rows: [
        ['New', 2],
        ['Contacted', 1],
      ],
      truncated: false,
    });
    const bar = await execute(leadOrg.token, id, { widgetType: 'bar' });
    expect(bar.body.data.series).toEqual([
      {
        name: 'count',
        points: [
          { x: 'New', y: 2 },
          { x: 'Contacted', y: 1 },
        ],
      },
    ]);
    const number = await execute(leadOrg.token, id, { widgetType: 'number' });
    expect(number.body.data).toEqual({ query_id: id, metric: 'count', widget_type: 'number', value: 3 });
    const pie = await execute(leadOrg.token, id, { widgetType: 'pie' });
    expect(pie.body.data.widget_type).toBe('pie');
    expect(pie.body.data.series[0].points).toHaveLength(2);
  });

  it('leads by source per month gives one series per source with monthly points', async () => {
    const id = (await defaults(leadOrg)).get('Leads by source per month') as number;
    const line = await execute(leadOrg.token, id, { widgetType: 'line' });
    expect(line.status).toBe(200);
    const series = Object.fromEntries(
      line.body.data.series.map((s: { name: string; points: unknown[] }) => [s.name, s.points]),
    );
    expect(series).toEqual({
      [sourceNames.get(1) as string]: [
        { x: '2026-01-01', y: 1 },
        { x: '2026-02-01', y: 1 },
      ],
      [sourceNames.get(2) as string]: [{ x: '2026-01-01', y: 1 }],
    });
  });

  it('average lead score by owner labels each group with the user’s name', async () => {
    const id = (await defaults(leadOrg)).get('Average lead score by owner') as number;
    const table = await execute(leadOrg.token, id);
    expect(table.body.data.columns).toEqual(['assigned_to', 'avg_score']);
    expect(table.body.data.rows).toEqual([
      ['rep', 30],
      ['Ada Admin', 15],
    ]);
  });

  it('open pipeline by stage and deals won per month sum deal values', async () => {
    const ids = await defaults(dealOrg);
    const open = await execute(dealOrg.token, ids.get('Open pipeline by stage') as number, { widgetType: 'bar' });
    expect(open.body.data.series).toEqual([
      {
        name: 'sum_value',
        points: [
          { x: 'Proposal', y: 400 },
          { x: 'Prospecting', y: 350 },
        ],
      },
    ]);
    const wonId = ids.get('Deals won per month') as number;
    const won = await execute(dealOrg.token, wonId, { widgetType: 'line' });
    expect(won.body.data.series).toEqual([
      {
        name: 'sum_value',
        points: [
          { x: '2026-01-01', y: 1000 },
          { x: '2026-03-01', y: 500 },
        ],
      },
    ]);
    const total = await execute(dealOrg.token, wonId, { widgetType: 'number' });
    expect(total.body.data.value).toBe(1500);
    // start_date/end_date bound the bucketed date: closing in February or later.
    const later = await execute(dealOrg.token, wonId, {
      widgetType: 'number',
      parameters: { start_date: '2026-02-01', end_date: '2026-12-31' },
    });
    expect(later.body.data.value).toBe(500);
  });
});

describe('POST /api/queries', () => {
  it('saves a query and runs it, with filter overrides at execution', async () => {
    const created = await addQuery(leadOrg.token, {
      name: 'Scores by country',
      definition: {
        module: 'leads',
        metric: { op: 'sum', field: 'score' },
        group_by: 'country',
        filters: { state_id: '1,2' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      scope: 'personal',
      module: 'leads',
      user_id: leadOrg.userId,
      is_default: false,
      definition: {
        module: 'leads',
        filters: { state_id: '1,2' },
        metric: { op: 'sum', field: 'score' },
        group_by: 'country',
        bucket: null,
      },
    });
    const id = created.body.data.id;
    const all = await execute(leadOrg.token, id);
    // Equal values: labels in ascending order.
    expect(all.body.data.rows).toEqual([
      ['France', 30],
      ["Robert'); DROP TABLE leads; --", 30],
    ]);
    const narrowed = await execute(leadOrg.token, id, { parameters: { filters: { state_id: '1' } } });
    expect(narrowed.body.data.rows).toEqual([['France', 30]]);
    const bad = await execute(leadOrg.token, id, { parameters: { filters: { colour: 'red', score_min: 'x' } } });
    expectFailure(bad, 422, 'validation_error');
    expect(bad.body.error.details.map((issue: { field: string }) => issue.field).sort()).toEqual([
      'parameters.filters.colour',
      'parameters.filters.score_min',
    ]);
    const viewed = await call('GET', `/api/queries/${id}`, { token: leadOrg.token });
    expect(viewed.body.data.name).toBe('Scores by country');
    // A range that ends before it starts is refused, as on the analytics, not answered with no rows.
    const inverted = await execute(leadOrg.token, id, {
      parameters: { start_date: '2026-03-02', end_date: '2026-03-01' },
    });
    expectFailure(inverted, 422, 'validation_error');
    expect(inverted.body.error.code).toBe('parameters.start_date');
    const oneDay = await execute(leadOrg.token, id, {
      parameters: { start_date: '2026-03-01', end_date: '2026-03-01' },
    });
    expect(oneDay.status, oneDay.text).toBe(200);
  });

  it('refuses unknown modules, filters, group_by, metric fields and bucket fields with a 422 naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ module: 'spaceships', metric: { op: 'count' } }, 'definition.module'],
      [{ module: 'leads', metric: { op: 'count' }, filters: { colour: 'red' } }, 'definition.filters.colour'],
      [{ module: 'leads', metric: { op: 'count' }, group_by: 'password' }, 'definition.group_by'],
      [{ module: 'leads', metric: { op: 'count' }, group_by: 'stage' }, 'definition.group_by'],
      [{ module: 'leads', metric: { op: 'sum', field: 'value' } }, 'definition.metric.field'],
      [{ module: 'leads', metric: { op: 'avg' } }, 'definition.metric.field'],
      [{ module: 'leads', metric: { op: 'count', field: 'score' } }, 'definition.metric.field'],
      [{ module: 'leads', metric: { op: 'median', field: 'score' } }, 'definition.metric.op'],
      [
        { module: 'deals', metric: { op: 'count' }, bucket: { field: 'birthday', unit: 'month' } },
        'definition.bucket.field',
      ],
      [
        { module: 'deals', metric: { op: 'count' }, bucket: { field: 'closed_at', unit: 'decade' } },
        'definition.bucket.unit',
      ],
      [{ module: 'companies', metric: { op: 'sum', field: 'value' } }, 'definition.metric.field'],
      [{ module: 'leads', metric: { op: 'count' }, sql: 'select 1' }, 'definition'],
    ];
    for (const [definition, field] of cases) {
      const response = await addQuery(leadOrg.token, { definition });
      expectFailure(response, 422, 'validation_error');
      expect(
        response.body.error.details.map((issue: { field: string }) => issue.field),
        JSON.stringify(definition),
      ).toContain(field);
    }
  });

  it('keeps injection attempts inert: identifiers are refused, values are bound', async () => {
    const identifier = await addQuery(leadOrg.token, {
      definition: { module: 'leads', metric: { op: 'count' }, group_by: 'status; drop table leads; --' },
    });
    expectFailure(identifier, 422, 'validation_error');
    const valued = await addQuery(leadOrg.token, {
      definition: {
        module: 'leads',
        metric: { op: 'count' },
        filters: { company: "x' or '1'='1", search_value: "%' or 1=1 --" },
      },
    });
    expect(valued.status).toBe(201);
    const result = await execute(leadOrg.token, valued.body.data.id, { widgetType: 'number' });
    expect(result.body.data.value).toBe(0);
    const stillThere = await execute(leadOrg.token, (await defaults(leadOrg)).get('Leads by status') as number, {
      widgetType: 'number',
    });
    expect(stillThere.body.data.value).toBe(3);
  });
});

describe('PUT /api/queries/:id and the list filters', () => {
  it('checks a new definition as on create, replaces it whole, and lists by module and scope', async () => {
    const created = await addQuery(leadOrg.token, {
      name: 'To change',
      scope: 'team',
      definition: { module: 'leads', metric: { op: 'count' }, group_by: 'status' },
    });
    const id = created.body.data.id;
    const bad = await call('PUT', `/api/queries/${id}`, {
      token: leadOrg.token,
      body: { definition: { module: 'deals', metric: { op: 'count' }, group_by: 'status' } },
    });
    expectFailure(bad, 422, 'validation_error');
    expect(bad.body.error.code).toBe('definition.group_by');
    const changed = await call('PUT', `/api/queries/${id}`, {
      token: leadOrg.token,
      body: { definition: { module: 'deals', metric: { op: 'count' } }, description: 'Deals' },
    });
    expect(changed.body.data).toMatchObject({
      module: 'deals',
      description: 'Deals',
      definition: { module: 'deals', filters: {}, metric: { op: 'count' }, group_by: null, bucket: null },
    });
    const deals = await call('GET', '/api/queries', { token: leadOrg.token, query: { module: 'deals', limit: 100 } });
    const ids = deals.body.data.map((query: { id: number }) => query.id);
    expect(ids).toContain(id);
    expect(deals.body.data.every((query: { module: string }) => query.module === 'deals')).toBe(true);
    const personal = await call('GET', '/api/queries', {
      token: leadOrg.token,
      query: { scope: 'personal', limit: 100 },
    });
    expect(personal.body.data.map((query: { id: number }) => query.id)).not.toContain(id);
    expectFailure(
      await call('GET', '/api/queries', { token: leadOrg.token, query: { module: 'spaceships' } }),
      400,
      'bad_request',
    );
  });
});

describe('visibility', () => {
  it('a personal query is its owner’s alone; shared ones are changed by their owner or an admin', async () => {
    const definition = { module: 'leads', metric: { op: 'count' } };
    const personal = (await addQuery(rep.token, { name: 'Mine', definition })).body.data.id;
    const team = (await addQuery(rep.token, { name: 'Ours', scope: 'team', definition })).body.data.id;
    const seen = await call('GET', '/api/queries', { token: rep2.token, query: { limit: 100 } });
    const ids = seen.body.data.map((query: { id: number }) => query.id);
    expect(ids).toContain(team);
    expect(ids).not.toContain(personal);
    expectFailure(await call('GET', `/api/queries/${personal}`, { token: rep2.token }), 404, 'not_found');
    expectFailure(await execute(rep2.token, personal), 404, 'not_found');
    expectFailure(await call('DELETE', `/api/queries/${personal}`, { token: leadOrg.token }), 404, 'not_found');
    expect((await execute(rep2.token, team, { widgetType: 'number' })).body.data.value).toBe(3);
    const notOwner = await call('PUT', `/api/queries/${team}`, { token: rep2.token, body: { name: 'Taken' } });
    expectFailure(notOwner, 403, 'forbidden');
    expect(notOwner.body.error.code).toBe('not_query_owner');
    const defaultId = (await defaults(leadOrg)).get('Leads by status') as number;
    const seededByRep = await call('PUT', `/api/queries/${defaultId}`, {
      token: rep.token,
      body: { name: 'Mine now' },
    });
    expect(seededByRep.body.error.code).toBe('not_query_owner');
    const byAdmin = await call('PUT', `/api/queries/${team}`, { token: leadOrg.token, body: { name: 'Renamed' } });
    expect(byAdmin.body.data.name).toBe('Renamed');
    const workspace = await addQuery(rep.token, { scope: 'workspace', definition });
    expectFailure(workspace, 403, 'forbidden');
    expect(workspace.body.error.code).toBe('workspace_scope_forbidden');
    const deleted = await call('DELETE', `/api/queries/${team}`, { token: rep.token });
    expect(deleted.body.data).toEqual({ id: team });
    expectFailure(await call('GET', `/api/queries/${team}`, { token: rep.token }), 404, 'not_found');
  });

  it('refuses to delete a query a dashboard shows, or to make it personal under a shared dashboard', async () => {
    const query = (
      await addQuery(leadOrg.token, { scope: 'team', definition: { module: 'leads', metric: { op: 'count' } } })
    ).body.data.id;
    const dashboard = await call('POST', '/api/dashboards', {
      token: leadOrg.token,
      body: {
        dashboard_id: `uses-${query}`,
        scope: 'team',
        definition: [{ title: 'Count', chart_type: 'number', source: { saved_query_id: query } }],
      },
    });
    expect(dashboard.status).toBe(201);
    const removal = await call('DELETE', `/api/queries/${query}`, { token: leadOrg.token });
    expectFailure(removal, 409, 'conflict');
    expect(removal.body.error).toMatchObject({ code: 'query_in_use', details: { dashboards: 1 } });
    const hiding = await call('PUT', `/api/queries/${query}`, { token: leadOrg.token, body: { scope: 'personal' } });
    expect(hiding.body.error.code).toBe('query_in_use');
  });
});

describe('deal buckets and averages', () => {
  it('buckets a date column by quarter and averages deal values to two decimals', async () => {
    const query = await addQuery(dealOrg.token, {
      definition: {
        module: 'deals',
        metric: { op: 'avg', field: 'value' },
        group_by: 'outcome',
        bucket: { field: 'expected_close_date', unit: 'quarter' },
      },
    });
    expect(query.status).toBe(201);
    const table = await execute(dealOrg.token, query.body.data.id);
    // Every deal closes (expected) on 2026-12-31: Q4. open (100+250+400)/3, won (1000+500)/2, lost 700.
    expect(table.body.data).toMatchObject({
      columns: ['outcome', 'expected_close_date_quarter', 'avg_value'],
      rows: [
        ['won', '2026-10-01', 750],
        ['lost', '2026-10-01', 700],
        ['open', '2026-10-01', 250],
      ],
    });
    const all = await execute(dealOrg.token, query.body.data.id, { widgetType: 'number' });
    expect(all.body.data.value).toBe(491.67);
  });
});

describe('contacts and companies', () => {
  it('counts contacts per company (labelled by name) and averages their lead score', async () => {
    const org = await signupOrganization('Contact queries');
    const [acme, globex] = await Promise.all([
      createCompany(org, { company_name: 'Acme', industry_type: 'Software' }),
      createCompany(org, { company_name: 'Globex', industry_type: 'Software' }),
    ]);
    await createContact(org, { company_id: acme, lead_score: 10 });
    await createContact(org, { company_id: acme, lead_score: 30 });
    await createContact(org, { company_id: globex, lead_score: 50 });
    // No score: averages skip it.
    await createContact(org, { company_id: acme });
    const byCompany = await addQuery(org.token, {
      definition: { module: 'contacts', metric: { op: 'avg', field: 'lead_score' }, group_by: 'company' },
    });
    expect(byCompany.status).toBe(201);
    const table = await execute(org.token, byCompany.body.data.id);
    expect(table.body.data.rows).toEqual([
      ['Globex', 50],
      ['Acme', 20],
    ]);
    const industries = await addQuery(org.token, {
      definition: {
        module: 'companies',
        metric: { op: 'count' },
        group_by: 'industry',
        filters: { industry: 'software' },
      },
    });
    const counted = await execute(org.token, industries.body.data.id, { widgetType: 'pie' });
    expect(counted.body.data.series).toEqual([{ name: 'count', points: [{ x: 'Software', y: 2 }] }]);
  });
});

describe('meetings', () => {
  it('counts a rep’s meetings per status (labelled by name) by month, and averages their minutes', async () => {
    const org = await signupOrganization('Meeting queries');
    const other = await addMember(org, { first_name: 'otherrep' });
    const at = (day: string, hour: number, minutes: number) => ({
      startTime: new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`),
      endTime: new Date(Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`) + minutes * 60_000),
    });
    await inOrganization(org.orgId, (tx) =>
      tx.insert(meetings).values([
        { organizationId: org.orgId, userId: org.userId, title: 'Intro', status: 3, ...at('2026-03-02', 9, 30) },
        { organizationId: org.orgId, userId: org.userId, title: 'Demo', status: 3, ...at('2026-03-20', 9, 60) },
        { organizationId: org.orgId, userId: org.userId, title: 'Call', status: 4, ...at('2026-03-21', 9, 15) },
        { organizationId: org.orgId, userId: org.userId, title: 'Review', status: 3, ...at('2026-04-02', 9, 45) },
        // Another rep's meeting: left out by the user_id filter.
        { organizationId: org.orgId, userId: other.userId, title: 'Theirs', status: 3, ...at('2026-03-05', 9, 90) },
      ]),
    );
    const perStatus = await addQuery(org.token, {
      definition: {
        module: 'meetings',
        filters: { user_id: org.userId },
        metric: { op: 'count' },
        group_by: 'status',
        bucket: { field: 'start_time', unit: 'month' },
      },
    });
    expect(perStatus.status, perStatus.text).toBe(201);
    const table = await execute(org.token, perStatus.body.data.id);
    expect(table.body.data.rows).toEqual([
      ['Held', '2026-03-01', 2],
      ['Cancelled', '2026-03-01', 1],
      ['Held', '2026-04-01', 1],
    ]);
    const minutes = await addQuery(org.token, {
      definition: { module: 'meetings', filters: { status: '3' }, metric: { op: 'avg', field: 'duration_minutes' } },
    });
    const held = await execute(org.token, minutes.body.data.id, { widgetType: 'number' });
    // Held: 30, 60, 45 and the other rep's 90.
    expect(held.body.data.value).toBe(56.25);
    const bad = await addQuery(org.token, {
      definition: { module: 'meetings', metric: { op: 'sum', field: 'value' }, group_by: 'stage' },
    });
    expectFailure(bad, 422, 'validation_error');
    expect(bad.body.error.details.map((issue: { field: string }) => issue.field).sort()).toEqual([
      'definition.group_by',
      'definition.metric.field',
    ]);
  });
});

describe('seeding', () => {
  it('signup seeds the defaults in one statement, and seeding again inserts nothing twice', async () => {
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/auth/signup', {
        body: {
          organization_name: 'Seeded',
          first_name: 'Sam',
          last_name: 'Seed',
          email: uniqueEmail('seed'),
          password: 'correct horse battery',
        },
        headers: { 'cf-connecting-ip': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
      }),
    );
    expect(response.status).toBe(201);
    expect(statements.filter((text) => /saved_quer/.test(text))).toHaveLength(1);
    const orgId = Number(response.body.user.organization_id);
    const counted = await inOrganization(orgId, async (tx) => {
      await tx.execute(sql`select seed_default_saved_queries(${orgId}::bigint)`);
      return tx.execute<{ n: number }>(
        sql`select count(*)::int as n from saved_queries where organization_id = ${orgId}`,
      );
    });
    expect(counted.rows[0].n).toBe(5);
  });
});

describe('round trips', () => {
  it('executing a query reads it and aggregates in one statement each', async () => {
    const id = (await defaults(leadOrg)).get('Leads by source per month') as number;
    const { response, statements } = await statementsOf(() => execute(leadOrg.token, id, { widgetType: 'bar' }));
    expect(response.status).toBe(200);
    // Authentication (1), the query (1), the aggregate (1).
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    expect(statements.filter((text) => /group by 1, 2/.test(text))).toHaveLength(1);
  });
});
