/**
 * /api/dashboards: saved dashboards keyed by the client's dashboard_id, widgets over saved
 * queries (visible, and shared on a shared dashboard) or built-in metrics, personal privacy and
 * the owner/admin rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { withOwnDatabase } from '../src/db/client';
import { dashboards } from '../src/db/schema';
import { readConfig } from '../src/env';
import { addMember, type ApiResponse, call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { statementsOf } from './helpers/statements';

let admin: SignedUp;
let other: SignedUp;
let rep: { token: string };
let rep2: { token: string };
let sharedQuery: number;
let personalQuery: number;
let foreignQuery: number;

const key = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

async function addDashboard(token: string, body: Record<string, unknown>) {
  return call('POST', '/api/dashboards', { token, body: { dashboard_id: key('board'), ...body } });
}

async function addQuery(token: string, scope: string) {
  const response = await call('POST', '/api/queries', {
    token,
    body: { name: `${scope} query`, scope, definition: { module: 'leads', metric: { op: 'count' } } },
  });
  return response.body.data.id as number;
}

async function visibleIds(token: string, query: Record<string, string> = {}): Promise<number[]> {
  const page = await call('GET', '/api/dashboards', { token, query: { limit: 100, ...query } });
  expect(page.status).toBe(200);
  return page.body.data.map((dashboard: { id: number }) => dashboard.id);
}

const widget = (source: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  title: 'Widget',
  chart_type: 'bar',
  source,
  ...extra,
});

beforeAll(async () => {
  [admin, other] = await Promise.all([signupOrganization('Dashboards'), signupOrganization('Other')]);
  [rep, rep2] = await Promise.all([addMember(admin, { first_name: 'rep' }), addMember(admin, { first_name: 'rep2' })]);
  [sharedQuery, personalQuery, foreignQuery] = await Promise.all([
    addQuery(rep.token, 'team'),
    addQuery(rep.token, 'personal'),
    addQuery(other.token, 'team'),
  ]);
});

describe('POST /api/dashboards', () => {
  it('saves widgets over saved queries and built-in metrics, personal by default', async () => {
    const definition = [
      widget({ saved_query_id: sharedQuery }, { layout: { x: 0, y: 0, w: 6, h: 4 } }),
      widget({ saved_query_id: personalQuery }, { chart_type: 'table' }),
      widget({ metric: 'overview' }, { chart_type: 'number', title: 'Overview' }),
      // A figure of GET /api/dashboard/overview, named as that endpoint's field.
      widget({ metric: 'avg_days_to_convert' }, { chart_type: 'number', title: 'Days to convert' }),
    ];
    const response = await addDashboard(rep.token, { dashboard_id: 'my-board', name: 'Mine', definition });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ dashboard_id: 'my-board', name: 'Mine', scope: 'personal', definition });
  });

  it('refuses a reused dashboard_id with a 409 naming the existing dashboard; another organization may reuse it', async () => {
    const first = await addDashboard(rep.token, { dashboard_id: 'team-board', scope: 'team' });
    const again = await addDashboard(rep2.token, { dashboard_id: 'team-board' });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error).toMatchObject({
      code: 'dashboard_id_taken',
      details: { dashboard_id: 'team-board', id: first.body.data.id },
    });
    expect((await addDashboard(other.token, { dashboard_id: 'team-board' })).status).toBe(201);
  });

  it('scopes personal keys per owner: a key a colleague uses privately is free, and never revealed', async () => {
    const mine = await addDashboard(rep.token, { dashboard_id: 'hidden-board' });
    expect(mine.status, mine.text).toBe(201);
    const theirs = await addDashboard(rep2.token, { dashboard_id: 'hidden-board' });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    const shared = await addDashboard(rep2.token, { dashboard_id: 'hidden-board', scope: 'team' });
    expect(shared.status, shared.text).toBe(201);
    // Keys the caller can see still conflict: its own personal one, and a shared one.
    const own = await addDashboard(rep.token, { dashboard_id: 'hidden-board' });
    expectFailure(own, 409, 'conflict');
    expect(own.body.error.details).toEqual({ dashboard_id: 'hidden-board', id: mine.body.data.id });
    const opened = await call('PUT', `/api/dashboards/${mine.body.data.id}`, {
      token: rep.token,
      body: { scope: 'team' },
    });
    expectFailure(opened, 409, 'conflict');
    expect(opened.body.error.details).toEqual({ dashboard_id: 'hidden-board', id: shared.body.data.id });
  });

  it('refuses bad widgets with a 422 naming the widget', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ definition: [widget({ saved_query_id: foreignQuery })] }, 'definition.0.source.saved_query_id'],
      [
        { scope: 'team', definition: [widget({ metric: 'overview' }), widget({ saved_query_id: personalQuery })] },
        'definition.1.source.saved_query_id',
      ],
      [{ definition: [widget({ saved_query_id: 9_000_000_000 })] }, 'definition.0.source.saved_query_id'],
      [{ definition: [widget({ metric: 'revenue_of_mars' })] }, 'definition.0.source.metric'],
      [{ definition: [widget({ metric: 'overview', saved_query_id: sharedQuery })] }, 'definition.0.source'],
      [{ definition: [widget({})] }, 'definition.0.source'],
      [{ definition: [widget({ metric: 'overview' }, { chart_type: 'radar' })] }, 'definition.0.chart_type'],
      [{ definition: [widget({ metric: 'overview' }, { layout: { w: 0 } })] }, 'definition.0.layout.w'],
      [{ definition: [widget({ metric: 'overview' }, { sql: 'x' })] }, 'definition.0'],
      [{ definition: Array.from({ length: 25 }, () => widget({ metric: 'stats' })) }, 'definition'],
      [{ dashboard_id: 'Not A Key!' }, 'dashboard_id'],
      [{ scope: 'everyone' }, 'scope'],
    ];
    for (const [body, field] of cases) {
      const response = await addDashboard(rep.token, body);
      expectFailure(response, 422, 'validation_error');
      expect(
        response.body.error.details.map((issue: { field: string }) => issue.field),
        JSON.stringify(body).slice(0, 200),
      ).toContain(field);
    }
    // rep2 cannot see rep's personal query: the widget is refused even on rep2's personal dashboard.
    const invisible = await addDashboard(rep2.token, { definition: [widget({ saved_query_id: personalQuery })] });
    expect(invisible.body.error.code).toBe('definition.0.source.saved_query_id');
  });

  it('gives workspace scope to admins and managers only', async () => {
    const byRep = await addDashboard(rep.token, { scope: 'workspace' });
    expectFailure(byRep, 403, 'forbidden');
    expect(byRep.body.error.code).toBe('workspace_scope_forbidden');
    expect((await addDashboard(admin.token, { scope: 'workspace' })).status).toBe(201);
  });
});

describe('visibility and ownership', () => {
  it('shows a personal dashboard only to its owner; shared ones to the organization', async () => {
    const personal = (await addDashboard(rep.token, {})).body.data.id;
    const team = (await addDashboard(rep.token, { scope: 'team' })).body.data.id;
    const repSees = await visibleIds(rep.token);
    expect(repSees).toEqual(expect.arrayContaining([personal, team]));
    const rep2Sees = await visibleIds(rep2.token);
    expect(rep2Sees).toContain(team);
    expect(rep2Sees).not.toContain(personal);
    expect(await visibleIds(admin.token)).not.toContain(personal);
    expect(await visibleIds(rep.token, { scope: 'team' })).not.toContain(personal);
    const own = await call('GET', `/api/dashboards/${personal}`, { token: rep.token });
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id: personal, scope: 'personal' });
    const shared = await call('GET', `/api/dashboards/${team}`, { token: rep2.token });
    expect(shared.body.data).toMatchObject({ id: team, scope: 'team' });
    for (const token of [rep2.token, admin.token]) {
      expectFailure(await call('GET', `/api/dashboards/${personal}`, { token }), 404, 'not_found');
      expectFailure(await call('PUT', `/api/dashboards/${personal}`, { token, body: { name: 'x' } }), 404, 'not_found');
      expectFailure(await call('DELETE', `/api/dashboards/${personal}`, { token }), 404, 'not_found');
    }
    const notOwner = await call('PUT', `/api/dashboards/${team}`, { token: rep2.token, body: { name: 'Taken' } });
    expectFailure(notOwner, 403, 'forbidden');
    expect(notOwner.body.error.code).toBe('not_dashboard_owner');
    const deleteByRep2 = await call('DELETE', `/api/dashboards/${team}`, { token: rep2.token });
    expect(deleteByRep2.body.error.code).toBe('not_dashboard_owner');
    const byAdmin = await call('PUT', `/api/dashboards/${team}`, { token: admin.token, body: { name: 'Admin named' } });
    expect(byAdmin.body.data).toMatchObject({ name: 'Admin named', scope: 'team' });
    expect((await call('DELETE', `/api/dashboards/${team}`, { token: admin.token })).body.data).toEqual({ id: team });
    expect(await visibleIds(rep.token)).not.toContain(team);
  });

  it('checks kept widgets again when a dashboard becomes shared', async () => {
    const board = await addDashboard(rep.token, { definition: [widget({ saved_query_id: personalQuery })] });
    const id = board.body.data.id;
    const shared = await call('PUT', `/api/dashboards/${id}`, { token: rep.token, body: { scope: 'team' } });
    expectFailure(shared, 422, 'validation_error');
    expect(shared.body.error.code).toBe('definition.0.source.saved_query_id');
    const replaced = await call('PUT', `/api/dashboards/${id}`, {
      token: rep.token,
      body: { scope: 'team', definition: [widget({ saved_query_id: sharedQuery }, { title: 'Shared' })] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.definition).toEqual([widget({ saved_query_id: sharedQuery }, { title: 'Shared' })]);
    expectFailure(await call('PUT', `/api/dashboards/${id}`, { token: rep.token, body: {} }), 422, 'validation_error');
  });
});

describe('round trips', () => {
  it('saving a dashboard checks its widgets in one statement and inserts in one', async () => {
    const { response, statements } = await statementsOf(() =>
      addDashboard(rep.token, {
        definition: [widget({ saved_query_id: sharedQuery }), widget({ saved_query_id: personalQuery })],
      }),
    );
    expect(response.status).toBe(201);
    // Authentication (1), BEGIN/COMMIT and the idempotency bookkeeping are the route's; ours: 2.
    const ours = statements.filter((text) => /saved_queries|insert into "dashboards"/.test(text));
    expect(ours, statements.join('\n---\n')).toHaveLength(2);
  });
});

describe('a scope change racing an add of the key in the new scope', () => {
  // An add takes no key lock (its insert settles on the unique index). Here one has inserted a
  // shared dashboard with the key and not yet committed when the scope change checks: the check
  // cannot see it, the write waits for it, and once it commits the index refuses the change. On
  // PostgreSQL (TEST_DATABASE_URL) that was an anonymous 409 `duplicate` the contract does not
  // list; PGlite runs one transaction at a time, so there the change checks after the commit.
  it('answers the change with the declared 409 dashboard_id_taken naming the new holder', async () => {
    const mine = await addDashboard(admin.token, { dashboard_id: key('raced') });
    expect(mine.status, mine.text).toBe(201);
    let change: Promise<ApiResponse> | undefined;
    const holder = await withOwnDatabase(readConfig(env), (db) =>
      db.transaction(async (tx) => {
        const [row] = await tx
          .insert(dashboards)
          .values({
            organizationId: admin.orgId,
            dashboardKey: mine.body.data.dashboard_id,
            userId: admin.userId,
            scope: 'team',
          })
          .returning({ id: dashboards.id });
        change = call('PUT', `/api/dashboards/${mine.body.data.id}`, { token: admin.token, body: { scope: 'team' } });
        // The change checks meanwhile (on PostgreSQL), then waits on the index for this commit.
        await new Promise((resolve) => setTimeout(resolve, 500));
        return row.id;
      }),
    );
    const answer = await (change as Promise<ApiResponse>);
    expectFailure(answer, 409, 'conflict');
    expect(answer.body.error).toMatchObject({
      code: 'dashboard_id_taken',
      details: { dashboard_id: mine.body.data.dashboard_id, id: holder },
    });
  });
});
