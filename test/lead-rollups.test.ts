/**
 * The lead rollups kept by triggers on leads (drizzle/0023_lead_rollups_sql.sql): live leads by
 * UTC creation day, status and source, and live leads per company. They must equal a count of
 * the live leads through every write path, stay folded, stay inside their organization, and
 * answer saved lead counts with the same numbers a scan of the leads gives.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { leadAging } from '../src/modules/analytics/lead-aging';
import { AGING_BUCKETS } from '../src/modules/analytics/period';
import { csvOf, importAndWait, leadRows } from './cross-tenant/fixtures/jobs';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { settleLeadScoring } from './helpers/scoring';
import { createCompany } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';
import { asTenant, createLead, inOrganization } from './helpers/leads';
import { statementsOf } from './helpers/statements';

type Counted = Record<string, number>;

const asMap = (list: { k: string; n: number }[]): Counted => Object.fromEntries(list.map((r) => [r.k, r.n]));

/** key → count, both from the rollup (summed deltas) and from the leads themselves. */
async function dayCounts(owner: SignedUp) {
  return inOrganization(owner.orgId, async (tx) => {
    const rolled = await tx.execute<{ k: string; n: number }>(sql`
      select day::text || '|' || status || '|' || coalesce(lead_source::text, '-') || '|' || won_deal as k, sum(delta)::int as n
      from lead_day_counts group by 1 having sum(delta) <> 0`);
    const counted = await tx.execute<{ k: string; n: number }>(sql`
      select (created_at at time zone 'UTC')::date::text || '|' || status || '|' || coalesce(lead_source::text, '-')
          || '|' || exists (select 1 from deals d where d.lead_id = leads.id and d.outcome = 'won') as k,
        count(*)::int as n
      from leads where deleted_at is null group by 1`);
    const rows = await tx.execute<{ n: number }>(sql`select count(*)::int as n from lead_day_counts`);
    return { rolled: asMap(rolled.rows), counted: asMap(counted.rows), rows: rows.rows[0].n };
  });
}

async function companyCounts(owner: SignedUp) {
  return inOrganization(owner.orgId, async (tx) => {
    const rolled = await tx.execute<{ k: string; n: number }>(sql`
      select company_id::text as k, sum(delta)::int as n from company_lead_counts group by 1 having sum(delta) <> 0`);
    const counted = await tx.execute<{ k: string; n: number }>(sql`
      select company_id::text as k, count(*)::int as n from leads
      where deleted_at is null and company_id is not null group by 1`);
    return { rolled: asMap(rolled.rows), counted: asMap(counted.rows) };
  });
}

/** (owner|status|source) → "count|score sum", from lead_owner_counts and from the leads. */
async function ownerCounts(org: SignedUp) {
  return inOrganization(org.orgId, async (tx) => {
    const key = sql`coalesce(assigned_to::text, '-') || '|' || status || '|' || coalesce(lead_source::text, '-')`;
    const rolled = await tx.execute<{ k: string; v: string }>(sql`
      select ${key} as k, sum(delta) || '|' || sum(score_sum) as v from lead_owner_counts group by 1
      having sum(delta) <> 0 or sum(score_sum) <> 0`);
    const counted = await tx.execute<{ k: string; v: string }>(sql`
      select ${key} as k, count(*) || '|' || sum(score) as v from leads where deleted_at is null group by 1`);
    const map = (rows: { k: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.k, row.v]));
    return { rolled: map(rolled.rows), counted: map(counted.rows) };
  });
}

/** (day|event) → "count|value|days to convert", from deal_day_counts and from the deals and their leads. */
async function dealDayCounts(org: SignedUp) {
  return inOrganization(org.orgId, async (tx) => {
    const rolled = await tx.execute<{ k: string; v: string }>(sql`
      select day::text || '|' || event as k, sum(delta) || '|' || round(sum(value_sum), 2) || '|' || round(sum(convert_days_sum), 6) as v
      from deal_day_counts group by 1 having sum(delta) <> 0 or sum(value_sum) <> 0 or sum(convert_days_sum) <> 0`);
    const counted = await tx.execute<{ k: string; v: string }>(sql`
      select k, count(*) || '|' || round(sum(v), 2) || '|' || round(sum(c), 6) as v from (
        select (created_at at time zone 'UTC')::date::text || '|created' as k, value::numeric as v, 0::numeric as c from deals
        union all
        select (d.closed_at at time zone 'UTC')::date::text || '|' || d.outcome, d.value,
          case when d.outcome = 'won' then extract(epoch from d.closed_at - l.created_at) / 86400 else 0 end
        from deals d join leads l on l.id = d.lead_id where d.closed_at is not null) e
      group by k`);
    const map = (rows: { k: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.k, row.v]));
    return { rolled: map(rolled.rows), counted: map(counted.rows) };
  });
}

let owner: SignedUp;
let other: SignedUp;
let acme: number;
let globex: number;

beforeAll(async () => {
  [owner, other] = await Promise.all([signupOrganization('Rollups'), signupOrganization('Rollups other')]);
  [acme, globex] = [
    await createCompany(owner, { company_name: 'Acme' }),
    await createCompany(owner, { company_name: 'Globex' }),
  ];
  await createLead(other, 'Elsewhere', 'Lead');
});

describe('the lead rollups', () => {
  it('equal a count of the live leads through API writes, an import and raw statements', async () => {
    for (const name of ['Ada', 'Grace', 'Edsger', 'Barbara']) await createLead(owner, name, 'Rolled');
    // Their scoring first: a scoring job landing between the reads below would move the score sums.
    await settleLeadScoring(owner);
    await importAndWait(owner, csvOf(leadRows(5, `rollup-${crypto.randomUUID().slice(0, 8)}`)));
    const ids = await inOrganization(owner.orgId, async (tx) => {
      const rows = await tx.execute<{ id: number }>(sql`select id from leads order by id`);
      return rows.rows.map((row) => Number(row.id));
    });
    expect(ids).toHaveLength(9);
    const deleted = await call('DELETE', '/api/lead/delete', { token: owner.token, body: { ids: [ids[0]] } });
    expect(deleted.status, deleted.text).toBe(200);
    await inOrganization(owner.orgId, async (tx) => {
      // Moved between every key: days (one across a month end), status, source, company.
      await tx.execute(sql`update leads set created_at = '2026-01-31T23:30:00Z' where id = ${ids[1]}`);
      await tx.execute(
        sql`update leads set created_at = '2026-02-01T00:30:00Z', lead_source = null where id = ${ids[2]}`,
      );
      await tx.execute(sql`update leads set status = status + 1 where id in (${ids[3]}, ${ids[4]})`);
      await tx.execute(sql`update leads set company_id = ${acme} where id in (${ids[3]}, ${ids[4]}, ${ids[5]})`);
      await tx.execute(sql`update leads set company_id = ${globex} where id = ${ids[6]}`);
      // Soft delete, restore, a move of a deleted lead (counts nowhere), a hard delete.
      await tx.execute(sql`update leads set deleted_at = now() where id in (${ids[5]}, ${ids[6]})`);
      await tx.execute(sql`update leads set deleted_at = null where id = ${ids[6]}`);
      await tx.execute(sql`update leads set status = status + 1, company_id = ${globex} where id = ${ids[5]}`);
      await tx.execute(sql`delete from leads where id = ${ids[7]}`);
      await tx.execute(sql`update leads set company_id = ${globex} where id = ${ids[4]}`);
      // Owner and score moves (the owner rollup's keys and sums).
      await tx.execute(
        sql`update leads set assigned_to = ${owner.userId}, score = 30 where id in (${ids[2]}, ${ids[3]})`,
      );
      await tx.execute(sql`update leads set score = score + 5 where id = ${ids[3]}`);
      await tx.execute(sql`update leads set assigned_to = null where id = ${ids[2]}`);
    });
    const days = await dayCounts(owner);
    expect(days.rolled).toEqual(days.counted);
    expect(Object.values(days.counted).reduce((sum, n) => sum + n, 0)).toBe(6);
    const keys = Object.keys(days.counted);
    expect(keys.some((key) => key.startsWith('2026-01-31|'))).toBe(true);
    expect(keys.some((key) => key.startsWith('2026-02-01|') && key.includes('|-|'))).toBe(true);
    // Folded as it goes: one row per key once the writers are done.
    expect(days.rows).toBe(Object.keys(days.counted).length);
    const companies = await companyCounts(owner);
    expect(companies.rolled).toEqual(companies.counted);
    expect(companies.counted).toMatchObject({ [acme]: 1, [globex]: 2 });
    const owners = await ownerCounts(owner);
    expect(owners.rolled).toEqual(owners.counted);
    expect(Object.keys(owners.counted).some((key) => key.startsWith(`${owner.userId}|`))).toBe(true);
  }, 180_000);

  it('count a lead with a won deal as won, through deal writes of every kind', async () => {
    const pipeline = await defaultPipeline(owner);
    const stage = (name: string) => pipeline.stages.find((row) => row.name === name)?.id as number;
    const leadId = await createLead(owner, 'Winner', 'Rolled');
    const wonFlag = async (id = leadId) =>
      inOrganization(owner.orgId, async (tx) => {
        // The lead's counts equal its deals', and the flag the rollup keys on follows them.
        const rows = await tx.execute<{ won: boolean; counts_match: boolean }>(sql`select l.won_deals > 0 as won,
            (l.open_deals, l.won_deals) = (select count(*) filter (where d.outcome = 'open'), count(*) filter (where d.outcome = 'won')
              from deals d where d.lead_id = l.id) as counts_match
          from leads l where l.id = ${id}`);
        expect(rows.rows[0].counts_match).toBe(true);
        return rows.rows[0].won;
      });
    const won = await addDeal(owner, pipeline, { lead_id: leadId, stage_id: stage('Won') });
    expect(await wonFlag()).toBe(true);
    const second = await addDeal(owner, pipeline, { lead_id: leadId, stage_id: stage('Won') });
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`update deals set outcome = 'open' where id = ${won.id}`));
    expect(await wonFlag()).toBe(true);
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`delete from deals where id = ${second.id}`));
    expect(await wonFlag()).toBe(false);
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`update deals set outcome = 'won' where id = ${won.id}`));
    expect(await wonFlag()).toBe(true);
    // A deal moved to another lead moves its count with it.
    const other = await createLead(owner, 'Receiver', 'Rolled');
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update deals set lead_id = ${other} where id = ${won.id}`),
    );
    expect(await wonFlag()).toBe(false);
    expect(await wonFlag(other)).toBe(true);
    const days = await dayCounts(owner);
    expect(days.rolled).toEqual(days.counted);
    expect(Object.keys(days.counted).some((key) => key.endsWith('|true'))).toBe(true);

    // The deal rollup through the same writes, then a value change, a lost deal, a reopened one,
    // and a change of the lead's creation time (days to convert follow it).
    const lost = await addDeal(owner, pipeline, { lead_id: leadId, stage_id: stage('Lost'), value: 300 });
    const reopened = await addDeal(owner, pipeline, { lead_id: other, stage_id: stage('Won'), value: 700 });
    const moved = await call('POST', `/api/lead/deal/update/${reopened.id}`, {
      token: owner.token,
      body: { stage_id: pipeline.stages[0].id, value: 750 },
    });
    expect(moved.status, moved.text).toBe(200);
    await inOrganization(owner.orgId, async (tx) => {
      await tx.execute(sql`update deals set value = value + 1 where id = ${lost.id}`);
      await tx.execute(sql`update deals set closed_at = closed_at + interval '3 days' where id = ${won.id}`);
      await tx.execute(sql`update leads set created_at = created_at - interval '10 days 5 hours' where id = ${other}`);
    });
    const deals = await dealDayCounts(owner);
    expect(deals.rolled).toEqual(deals.counted);
    const keys = Object.keys(deals.counted);
    expect(keys.some((key) => key.endsWith('|won'))).toBe(true);
    expect(keys.some((key) => key.endsWith('|lost'))).toBe(true);
    // Days to convert of the won deal: 3 days after creation + the lead made 10 days 5 hours older.
    const won3 = Object.entries(deals.counted).find(([key]) => key.endsWith('|won'))?.[1] ?? '';
    expect(Number(won3.split('|')[2])).toBeGreaterThan(13.2);
  });

  it('write nothing for an update that moves no lead between keys', async () => {
    const before = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ ids: string }>(sql`select string_agg(id::text, ',' order by id) as ids from lead_day_counts`),
    );
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update leads set city = 'Nowhere', score = score + 1, last_activity_at = now()`),
    );
    const after = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ ids: string }>(sql`select string_agg(id::text, ',' order by id) as ids from lead_day_counts`),
    );
    expect(before.rows[0].ids).toMatch(/^\d+(,\d+)*$/);
    expect(after.rows[0].ids).toBe(before.rows[0].ids);
  });

  it('are visible only to their own organization (row-level security)', async () => {
    for (const table of ['lead_day_counts', 'company_lead_counts']) {
      const seen = await inOrganization(other.orgId, (tx) =>
        tx.execute<{ orgs: number; rows: number }>(
          sql`select count(distinct organization_id)::int as orgs, count(*)::int as rows from ${sql.identifier(table)}`,
        ),
      );
      expect(seen.rows[0].orgs, table).toBeLessThanOrEqual(1);
      const foreign = await inOrganization(other.orgId, (tx) =>
        tx.execute<{ n: number }>(
          sql`select count(*)::int as n from ${sql.identifier(table)} where organization_id = ${owner.orgId}`,
        ),
      );
      expect(foreign.rows[0].n, table).toBe(0);
      // …while the owner sees its own rows, so the zero above is the policy, not an empty table.
      const own = await inOrganization(owner.orgId, (tx) =>
        tx.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)}`),
      );
      expect(own.rows[0].n, table).toBeGreaterThan(0);
    }
  });
});

describe('saved lead counts', () => {
  let counts: SignedUp;
  beforeAll(async () => {
    counts = await signupOrganization('Rollup queries');
    await inOrganization(counts.orgId, async (tx) => {
      await tx.execute(sql`insert into leads (organization_id, first_name, last_name, status, lead_source, country, created_at, deleted_at)
        select ${counts.orgId}, 'L' || g, 'Rolled', 1 + g % 3, case when g % 4 = 0 then null else 1 + g % 2 end,
          case when g % 5 = 0 then 'France' else 'Peru' end,
          '2026-01-01T00:00:00Z'::timestamptz + (g * interval '37 hours'),
          case when g % 11 = 0 then now() end
        from generate_series(1, 120) g`);
    });
  });

  /** What a scan of the leads says: count per (group, month), live leads of the filters. */
  async function scanned(group: 'lead_source' | 'status', where = sql`true`) {
    const result = await inOrganization(counts.orgId, (tx) =>
      tx.execute<{ k: string | null; bucket: string; n: number }>(sql`
        select ${sql.identifier(group)}::text as k, to_char(date_trunc('month', created_at at time zone 'UTC'), 'YYYY-MM-DD') as bucket,
          count(*)::int as n
        from leads where deleted_at is null and ${where} group by 1, 2`),
    );
    return Object.fromEntries(result.rows.map((row) => [`${row.k ?? '-'}|${row.bucket}`, row.n]));
  }

  async function run(definition: Record<string, unknown>, body: Record<string, unknown> = {}) {
    const added = await call('POST', '/api/queries', { token: counts.token, body: { name: 'Rolled', definition } });
    expect(added.status, added.text).toBe(201);
    const { response, statements } = await statementsOf(() =>
      call('POST', `/api/queries/${added.body.data.id}/execute`, {
        token: counts.token,
        body: { widgetType: 'table', ...body },
      }),
    );
    expect(response.status, response.text).toBe(200);
    return { data: response.body.data, sql: statements.join('\n') };
  }

  /** The table rows keyed like `scanned`; labels are looked up, so map them back through the group's lookups. */
  async function keyed(rows: (string | number | null)[][], group: 'lead_source' | 'status') {
    const names = await inOrganization(counts.orgId, (tx) =>
      tx.execute<{ name: string; value: number }>(
        sql`select name, value from lookups where module_name = 'lead' and type = ${group === 'status' ? 'status' : 'source'}`,
      ),
    );
    const valueByName = new Map(names.rows.map((row) => [row.name, String(row.value)]));
    return Object.fromEntries(
      rows.map(([label, bucket, n]) => [
        `${label === null ? '-' : (valueByName.get(String(label)) ?? label)}|${bucket}`,
        n,
      ]),
    );
  }

  const bySourcePerMonth = {
    module: 'leads',
    metric: { op: 'count' },
    group_by: 'lead_source',
    bucket: { field: 'created_at', unit: 'month' },
  };

  it('by source per month come from the rollup and equal the scan', async () => {
    const { data, sql: text } = await run(bySourcePerMonth);
    expect(text).toContain('lead_day_counts');
    expect(text).not.toMatch(/from "leads"/);
    expect(data.columns).toEqual(['lead_source', 'created_at_month', 'count']);
    const expected = await scanned('lead_source');
    expect(Object.keys(expected).length).toBeGreaterThan(4);
    expect(await keyed(data.rows, 'lead_source')).toEqual(expected);
  });

  it('with status and source filters and a date range, from the rollup, equal the scan', async () => {
    const { data, sql: text } = await run(
      {
        module: 'leads',
        metric: { op: 'count' },
        group_by: 'status',
        bucket: { field: 'created_at', unit: 'month' },
        filters: { state_id: '1,2', lead_source: [1] },
      },
      { parameters: { start_date: '2026-01-15', end_date: '2026-03-10' } },
    );
    expect(text).toContain('lead_day_counts');
    const expected = await scanned(
      'status',
      sql`status in (1, 2) and lead_source = 1 and created_at >= '2026-01-15T00:00:00Z' and created_at < '2026-03-11T00:00:00Z'`,
    );
    expect(await keyed(data.rows, 'status')).toEqual(expected);
  });

  it('with a filter the rollup does not hold read the leads, with the same answer shape', async () => {
    const { data, sql: text } = await run({ ...bySourcePerMonth, filters: { country: 'France' } });
    expect(text).not.toContain('lead_day_counts');
    expect(await keyed(data.rows, 'lead_source')).toEqual(await scanned('lead_source', sql`country = 'France'`));
  });

  it('as a number, from the rollup, equal the count of live leads in the range', async () => {
    const added = await call('POST', '/api/queries', {
      token: counts.token,
      body: { name: 'Total', definition: { module: 'leads', metric: { op: 'count' }, group_by: 'country' } },
    });
    const { response, statements } = await statementsOf(() =>
      call('POST', `/api/queries/${added.body.data.id}/execute`, {
        token: counts.token,
        body: { widgetType: 'number', parameters: { start_date: '2026-02-01', end_date: '2026-02-28' } },
      }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.join('\n')).toContain('lead_day_counts');
    const expected = await inOrganization(counts.orgId, (tx) =>
      tx.execute<{ n: number }>(sql`select count(*)::int as n from leads where deleted_at is null
        and created_at >= '2026-02-01T00:00:00Z' and created_at < '2026-03-01T00:00:00Z'`),
    );
    expect(expected.rows[0].n).toBeGreaterThan(0);
    expect(response.body.data.value).toBe(expected.rows[0].n);
  });
  it('average and sum of the score by owner come from the owner rollup and equal the scan', async () => {
    await inOrganization(counts.orgId, async (tx) => {
      await tx.execute(sql`update leads set assigned_to = case when id % 3 = 0 then ${counts.userId}::bigint end,
        score = (id * 7) % 100`);
      await tx.execute(sql`update leads set score = score + 1 where id % 4 = 0`);
    });
    const scan = await inOrganization(counts.orgId, (tx) =>
      tx.execute<{ owner: number | null; avg: number; sum: number }>(sql`
        select assigned_to as owner, round(avg(score)::numeric, 2)::float8 as avg, sum(score)::float8 as sum
        from leads where deleted_at is null group by 1`),
    );
    expect(scan.rows).toHaveLength(2);
    const byOwner = (rows: (string | number | null)[][]) =>
      Object.fromEntries(rows.map((row) => [row[0] === null ? '-' : 'owner', row[row.length - 1]]));
    const expected = (pick: 'avg' | 'sum') =>
      Object.fromEntries(scan.rows.map((row) => [row.owner === null ? '-' : 'owner', Number(row[pick])]));
    for (const op of ['avg', 'sum'] as const) {
      const { data, sql: text } = await run({
        module: 'leads',
        metric: { op, field: 'score' },
        group_by: 'assigned_to',
      });
      expect(text).toContain('lead_owner_counts');
      expect(text).not.toMatch(/from "leads"/);
      expect(byOwner(data.rows)).toEqual(expected(op));
    }
    // Filtered by owner: still the rollup; with a creation range it holds no date, so the leads are read.
    const mine = await run(
      { module: 'leads', metric: { op: 'avg', field: 'score' }, filters: { assigned_to: 'true' } },
      {
        widgetType: 'number',
      },
    );
    expect(mine.sql).toContain('lead_owner_counts');
    expect(mine.data.value).toBe(expected('avg').owner);
    const ranged = await run(
      { module: 'leads', metric: { op: 'avg', field: 'score' }, group_by: 'assigned_to' },
      { parameters: { start_date: '2026-01-01', end_date: '2026-12-31' } },
    );
    expect(ranged.sql).not.toContain('lead_owner_counts');
    expect(byOwner(ranged.data.rows)).toEqual(expected('avg'));
  });
});

describe('lead aging from the rollups', () => {
  // A clock in the past, off any whole hour, so leads land on both sides of each bound instant.
  const NOW = new Date('2026-07-01T09:17:23Z');
  const DAY = 86_400_000;
  let aging: SignedUp;

  /** Lead aging by a plain reading of every lead, bucketed by whole days in JavaScript. */
  async function scanned() {
    const { leadRows, closed } = await inOrganization(aging.orgId, async (tx) => {
      const rows = await tx.execute<{ created_at: string; last_activity_at: string | null; status: number }>(sql`
        select created_at, last_activity_at, status from leads where deleted_at is null`);
      const statuses = await tx.execute<{ value: number }>(sql`
        select value from lookups where module_name = 'lead' and type = 'status' and lower(name) in ('converted', 'lost')`);
      return { leadRows: rows.rows, closed: new Set(statuses.rows.map((row) => Number(row.value))) };
    });
    const open = leadRows.filter(
      (row) => !closed.has(Number(row.status)) && Date.parse(row.created_at) <= NOW.getTime(),
    );
    const daysOf = (at: string) => Math.max(0, Math.floor((NOW.getTime() - Date.parse(at)) / DAY));
    const bucketOf = (days: number) =>
      AGING_BUCKETS.findIndex((b) => days >= b.min && (b.max === null || days <= b.max));
    const count = (values: number[]) => AGING_BUCKETS.map((_, index) => values.filter((v) => v === index).length);
    return {
      open_leads: open.length,
      created: count(open.map((row) => bucketOf(daysOf(row.created_at)))),
      activity: [
        ...count(
          open.filter((row) => row.last_activity_at).map((row) => bucketOf(daysOf(row.last_activity_at as string))),
        ),
        open.filter((row) => !row.last_activity_at).length,
      ],
    };
  }

  async function expectAgingEqualsScan() {
    const [rolled, scan] = [await asTenant(aging, (ctx) => leadAging(ctx, NOW)), await scanned()];
    expect({
      open_leads: rolled.open_leads,
      created: rolled.by_created.map((b) => b.count),
      activity: rolled.by_last_activity.map((b) => b.count),
    }).toEqual(scan);
    return scan;
  }

  beforeAll(async () => {
    aging = await signupOrganization('Rollup aging');
    // Leads within 20 hours either side of each bound (now, now − 8, 31 and 91 days), spread over
    // 200 days, and after now; statuses among all six (Converted and Lost are closed); activity
    // none, before, on the bounds, or after now.
    await inOrganization(aging.orgId, (tx) =>
      tx.execute(sql`insert into leads (organization_id, first_name, last_name, status, created_at, last_activity_at, deleted_at)
        select ${aging.orgId}, 'A' || g, 'Aging', 1 + g % 6,
          case when g % 3 = 0 then ${NOW.toISOString()}::timestamptz - (g % 200) * interval '1 day' - (g * 7 % 24) * interval '1 hour'
            else ${NOW.toISOString()}::timestamptz - (array[0, 8, 31, 91])[1 + g % 4] * interval '1 day'
              + ((g * 37 % 2400) - 1200) * interval '1 minute' end,
          case g % 5 when 0 then null
            when 1 then ${NOW.toISOString()}::timestamptz - (array[8, 31, 91])[1 + g % 3] * interval '1 day' + ((g * 53 % 2400) - 1200) * interval '1 minute'
            when 2 then ${NOW.toISOString()}::timestamptz + (g % 3) * interval '1 day' + interval '2 hours'
            else ${NOW.toISOString()}::timestamptz - (g % 150) * interval '1 day' - (g * 11 % 24) * interval '1 hour' end,
          case when g % 17 = 0 then now() end
        from generate_series(1, 600) g`),
    );
  });

  it('equal a plain bucketing of every open lead, around each bound and across writes', async () => {
    const scan = await expectAgingEqualsScan();
    // The seed reaches every bucket, and leads created after now on both sides.
    expect(scan.created.every((n) => n > 0)).toBe(true);
    expect(scan.activity.every((n) => n > 0)).toBe(true);
    const unborn = await inOrganization(aging.orgId, (tx) =>
      tx.execute<{ n: number }>(
        sql`select count(*)::int as n from leads where created_at > ${NOW.toISOString()}::timestamptz`,
      ),
    );
    expect(unborn.rows[0].n).toBeGreaterThan(10);

    // Activity moves (into another day, on the same day), status changes, deletion and restore.
    await inOrganization(aging.orgId, async (tx) => {
      await tx.execute(sql`update leads set last_activity_at = ${NOW.toISOString()}::timestamptz - interval '30 days 23 hours'
        where id in (select id from leads order by id limit 40)`);
      await tx.execute(sql`update leads set last_activity_at = last_activity_at + interval '1 minute'
        where last_activity_at is not null and id in (select id from leads order by id desc limit 40)`);
      await tx.execute(sql`update leads set status = 1 + (status + 2) % 6 where id % 7 = 0`);
      await tx.execute(sql`update leads set deleted_at = now() where id % 13 = 0`);
      await tx.execute(sql`update leads set deleted_at = null where id % 17 = 0`);
      await tx.execute(sql`delete from leads where id % 19 = 0`);
    });
    await expectAgingEqualsScan();
  });

  it('reads the rollups, in one statement after the tenant scope', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', '/api/dashboard/lead-aging', { token: aging.token }),
    );
    expect(response.status, response.text).toBe(200);
    const aggregate = statements.filter((text) => text.includes('closed_status'));
    expect(aggregate).toHaveLength(1);
    expect(aggregate[0]).toContain('lead_day_counts');
    expect(aggregate[0]).toContain('lead_activity_day_counts');
  });
});
