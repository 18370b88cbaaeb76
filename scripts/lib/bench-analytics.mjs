// `--only analytics`: whether the dashboard aggregates stay fast at scale. One organization gets
// `leads` leads (bench-seed-leads.mjs), then, by SQL under the app's role and row-level security,
// a year of history in proportion: creation times spread over 365 days, statuses, sources and
// last activity mixed, one company per 100 leads, one deal per 10 leads (60 % open, 25 % won,
// 15 % lost), one meeting per 20 leads and one intent signal per 2 leads (over 90 days); then
// ANALYZE. Each aggregate is timed sequentially (one client, `samples` requests) against health,
// and its p99 is compared with health's p99 (target: under 5x, issue 10).
import pg from 'pg';
import { expectOk, median, round } from './bench-measure.mjs';
import { assertKeptLeads, benchOrganization, seedLeads } from './bench-seed-leads.mjs';

const TARGET_RATIO = 5;

/** Adds the history the aggregates read to `orgId`, whose `count` leads are already loaded. */
export async function seedHistory(client, { orgId, userId, count }) {
  await client.query('begin');
  try {
    await client.query(`select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, [
      String(orgId),
    ]);
    await client.query(
      `update leads set created_at = now() - (id % 365) * interval '1 day' - (id % 86400) * interval '1 second',
         status = 1 + id % 6, lead_source = 1 + id % 5,
         last_activity_at = case when id % 3 = 0 then null else now() - (id % 200) * interval '1 day' end
       where organization_id = $1`,
      [orgId],
    );
    await client.query(
      `insert into companies (organization_id, company_name, created_by)
       select $1, 'Bench company ' || g, $2 from generate_series(1, greatest($3::int / 100, 1)) g`,
      [orgId, userId, count],
    );
    await client.query(
      `with c as (select array_agg(id order by id) as ids from companies where organization_id = $1)
       update leads set company_id = c.ids[1 + leads.id % array_length(c.ids, 1)] from c where leads.organization_id = $1`,
      [orgId],
    );
    await client.query(
      `with p as (select id from pipelines where organization_id = $1 and is_default),
         st as (select
           (select s.id from stages s, p where s.pipeline_id = p.id and not s.is_won and not s.is_lost order by s.position limit 1) as open_id,
           (select s.id from stages s, p where s.pipeline_id = p.id and s.is_won) as won_id,
           (select s.id from stages s, p where s.pipeline_id = p.id and s.is_lost) as lost_id)
       insert into deals (organization_id, lead_id, pipeline_id, stage_id, title, value, expected_close_date, outcome,
         closed_at, stage_entered_at, created_at, owner_id)
       select $1, l.id, p.id, case o.outcome when 'won' then st.won_id when 'lost' then st.lost_id else st.open_id end,
         'Deal ' || l.id, 1000 + (l.id % 50) * 500, (l.created_at + interval '60 days')::date, o.outcome,
         case when o.outcome = 'open' then null else l.created_at + (l.id % 60) * interval '1 day' end,
         l.created_at, l.created_at, $2
       from leads l cross join p cross join st
         cross join lateral (select case when l.id / 10 % 20 < 12 then 'open' when l.id / 10 % 20 < 17 then 'won' else 'lost' end as outcome) o
       where l.organization_id = $1 and l.id % 10 = 0`,
      [orgId, userId],
    );
    await client.query(
      `insert into meetings (organization_id, user_id, lead_id, company_id, title, start_time, end_time, status)
       select $1, $2, l.id, case when l.id % 40 = 0 then l.company_id end, 'Meeting ' || l.id,
         now() - (l.id % 365) * interval '1 day', now() - (l.id % 365) * interval '1 day' + interval '30 minutes', 1 + l.id % 5
       from leads l where l.organization_id = $1 and l.id % 20 = 0`,
      [orgId, userId],
    );
    await client.query(
      `insert into intent_signals (organization_id, lead_id, signal_type, occurred_at)
       select $1, l.id, 'pricing_page_visit', now() - (l.id % 90) * interval '1 day' - (l.id % 3600) * interval '1 second'
       from leads l where l.organization_id = $1 and l.id % 2 = 0`,
      [orgId],
    );
    // Every fifth company is a target account: the ABM list and reports compute each one's health.
    await client.query(
      `insert into target_accounts (organization_id, company_id, owner_id, tier, icp_fit_score, created_by)
       select $1, c.id, $2, 1 + c.id % 3, c.id % 101, $2 from companies c where c.organization_id = $1 and c.id % 5 = 0`,
      [orgId, userId],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
  // As autovacuum would after a bulk load: the visibility map lets the aggregates read their indexes only.
  await client.query('vacuum analyze leads, companies, deals, meetings, intent_signals, target_accounts');
}

/** The `q`-th quantile (0..1) of `values`, nearest rank. */
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export async function measureAnalytics(stack, { leads, samples, keepSeed = false, cases: only = null, log, deadline }) {
  const { api } = stack;
  const org = await benchOrganization(stack, {
    name: `Bench analytics ${leads} ${Date.now()}`,
    key: `analytics-${leads}`,
    keepSeed,
  });
  if (org.existing) {
    await assertKeptLeads(stack, org, leads);
    log(`reusing the kept organization ${org.orgId} (${leads} leads and their history)`);
  } else await seedLeads(stack, [{ org, count: leads }], { log });
  const started = Date.now();
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  let seeded;
  try {
    if (!org.existing) await seedHistory(client, { orgId: org.orgId, userId: org.userId, count: leads });
    const counts = await client.query(
      `select (select count(*) from deals where organization_id = $1)::int as deals,
         (select count(*) from meetings where organization_id = $1)::int as meetings,
         (select count(*) from intent_signals where organization_id = $1)::int as intent_signals,
         (select count(*) from companies where organization_id = $1)::int as companies,
         (select count(*) from target_accounts where organization_id = $1)::int as target_accounts`,
      [org.orgId],
    );
    seeded = counts.rows[0];
    if (org.existing && seeded.intent_signals === 0) {
      throw new Error(
        `--keep-seed: organization ${org.orgId} has no history (an interrupted seeding?); use a fresh database`,
      );
    }
  } finally {
    await client.end();
  }
  if (!org.existing)
    log(`seeded the history (${JSON.stringify(seeded)}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const get = (path) => () => api('GET', path, { token: org.token });
  // The default saved queries signup gives every organization, found by name.
  const savedQueries = JSON.parse(await expectOk('saved queries', get('/api/queries?limit=100'))).data;
  const savedQuery = (name) => {
    const query = savedQueries.find((row) => row.name === name);
    if (!query) throw new Error(`no default saved query named ${name}`);
    return query.id;
  };
  const execute = (name, widgetType) => {
    const id = savedQuery(name);
    return () => api('POST', `/api/queries/${id}/execute`, { token: org.token, json: { widgetType } });
  };
  const cases = {
    health: { what: 'GET /api/health', request: () => api('GET', '/api/health') },
    overview: { what: 'GET /api/dashboard/overview (last 30 days)', request: get('/api/dashboard/overview') },
    overview_year: {
      what: 'GET /api/dashboard/overview (a 366-day period)',
      request: get(`/api/dashboard/overview?start_date=${dayBefore(365)}&end_date=${dayBefore(0)}`),
    },
    stats: { what: 'GET /api/dashboard/stats (last 30 days)', request: get('/api/dashboard/stats') },
    lead_aging: { what: 'GET /api/dashboard/lead-aging', request: get('/api/dashboard/lead-aging') },
    top_accounts: { what: 'GET /api/dashboard/top-accounts', request: get('/api/dashboard/top-accounts') },
    top_accounts_engagement: {
      what: 'GET /api/dashboard/top-accounts?rank_by=engagement',
      request: get('/api/dashboard/top-accounts?rank_by=engagement'),
    },
    company_stats: { what: 'GET /api/company/stats', request: get('/api/company/stats') },
    forecast_pipeline: { what: 'GET /api/forecast/pipeline', request: get('/api/forecast/pipeline') },
    target_accounts_list: {
      what: 'GET /api/target-accounts?limit=100 (each row’s health)',
      request: get('/api/target-accounts?limit=100'),
    },
    abm_funnel: { what: 'GET /api/reports/abm/funnel', request: get('/api/reports/abm/funnel') },
    abm_top_engaged: { what: 'GET /api/reports/abm/top-engaged', request: get('/api/reports/abm/top-engaged') },
    saved_query_leads_by_source_month: {
      what: 'POST /api/queries/:id/execute (Leads by source per month, line)',
      request: execute('Leads by source per month', 'line'),
    },
    saved_query_open_pipeline_by_stage: {
      what: 'POST /api/queries/:id/execute (Open pipeline by stage, bar)',
      request: execute('Open pipeline by stage', 'bar'),
    },
    saved_query_average_score_by_owner: {
      what: 'POST /api/queries/:id/execute (Average lead score by owner, table)',
      request: execute('Average lead score by owner', 'table'),
    },
  };
  const unknown = (only ?? []).filter((key) => !(key in cases));
  if (unknown.length) throw new Error(`--analytics-cases: no case ${unknown.join(', ')}; cases: ${Object.keys(cases)}`);
  // Health always: every ratio is against it, in the same run.
  const selected = Object.entries(cases).filter(([key]) => !only || key === 'health' || only.includes(key));
  const measured = {};
  for (const [key, { what, request }] of selected) {
    deadline(`measuring ${what}`);
    for (let i = 0; i < 3; i++) await expectOk(what, request);
    const times = [];
    for (let i = 0; i < samples; i++) {
      const at = performance.now();
      await expectOk(what, request);
      times.push(performance.now() - at);
    }
    measured[key] = {
      request: what,
      samples,
      median_ms: round(median(times), 1),
      p99_ms: round(quantile(times, 0.99), 1),
      max_ms: round(Math.max(...times), 1),
    };
    log(`${what}: p99 ${measured[key].p99_ms} ms, median ${measured[key].median_ms} ms`);
  }
  const healthP99 = measured.health.p99_ms;
  const ratios = {};
  for (const key of selected.map(([name]) => name).filter((name) => name !== 'health')) {
    const value = healthP99 > 0 ? round(measured[key].p99_ms / healthP99, 2) : null;
    ratios[`${key}_p99_vs_health_p99`] = {
      value,
      target: `< ${TARGET_RATIO}`,
      holds: value != null && value < TARGET_RATIO,
    };
  }
  return { leads, seeded, samples_each: samples, measured, ratios };
}

/** The UTC day `days` days before today, YYYY-MM-DD. */
function dayBefore(days) {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
