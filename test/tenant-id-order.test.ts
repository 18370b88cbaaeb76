/**
 * Lists in id order read the organization's own ids (issue 17). Every tenant shares one id
 * sequence per table, so an organization whose rows are older than another's has all of the
 * other's ids above its own. Left to costs, the planner may walk the primary key backwards with
 * the organization as a filter (when its statistics give the organization a large share of the
 * table), through every newer row of every other organization before the first of its own. Each
 * list here declares `tenantIdOrder` (core/list.ts): it orders `id desc nulls last`, which only
 * the table's `(organization_id, id desc nulls last)` index gives. The page statement a real
 * request sends is explained as lm_app in the organization's scope, with a second organization
 * of higher ids in the table. (Leads: test/leads-scale.test.ts.) A lead search, likewise, asks
 * the trigram index for the organization's own candidates only.
 */
import { env } from 'cloudflare:test';
import { Pool } from '@neondatabase/serverless';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/env';
import { observeStatements, openDatabase, withTenant } from '../src/db/client';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { type LargeList, largeLists, listReferencesOf, liveRowsOf } from './helpers/list-tables';

/** Past the bound of exact counted totals (EXACT_TOTAL_UP_TO): the unfiltered totals come from the counters. */
const ROWS = 10_050;

const handle = openDatabase(readConfig(env));
/** A plain connection for EXPLAIN, outside the app's scoped statements. */
const explainPool = new Pool({ connectionString: readConfig(env).DATABASE_URL, max: 1 });

let older: SignedUp;
let newer: SignedUp;

/** The large lists, and the feed (whose rows here are entries on one lead). */
const cases: LargeList[] = [
  ...largeLists,
  {
    path: '/api/feed/list',
    table: 'feed_entries',
    index: 'feed_entries_organization_id_order_idx',
    softDelete: false,
    insert: (refs, _tag, rows) =>
      sql`insert into feed_entries (organization_id, model_type, model_id, action)
        select ${refs.orgId}, 'lead', ${refs.leadId}, 'updated' from generate_series(1, ${rows})`,
  },
];

beforeAll(async () => {
  older = await signupOrganization('Older ids');
  newer = await signupOrganization('Newer ids');
  const olderRefs = await listReferencesOf(older);
  const newerRefs = await listReferencesOf(newer);
  // All of the older organization's rows first, then all of the newer one's: every id of the
  // newer organization is above every id of the older one, in every table.
  for (const list of cases) {
    await withTenant(handle.db, older.orgId, (tx) => tx.execute(list.insert(olderRefs, 'Older', ROWS)));
  }
  for (const list of cases) {
    await withTenant(handle.db, newer.orgId, (tx) => tx.execute(list.insert(newerRefs, 'Newer', ROWS)));
  }
  // Fresh statistics, as autovacuum would have after a bulk load.
  for (const list of cases) await handle.db.execute(sql.raw(`vacuum analyze ${list.table}`));
}, 300_000);

afterAll(async () => {
  await explainPool.end();
  await handle.close();
});

/** Calls `path` as the older organization and returns its answer with the statement `pick` chooses among those it sent, with its values. */
async function sentStatement<T>(path: string, query: Record<string, string | number>, pick: (text: string) => boolean) {
  const sent: { text: string; values: unknown }[] = [];
  const stop = observeStatements((text, _connection, _first, values) => sent.push({ text, values }));
  let page: Awaited<ReturnType<typeof call<T>>>;
  try {
    page = await call<T>('GET', path, { token: older.token, query });
  } finally {
    stop();
  }
  return { page, statement: sent.find(({ text }) => pick(text)) };
}

/** The statement that read the page of `path` (the one ordered by the table's id), with its values. */
function pageStatement(path: string, table: string, query: Record<string, string | number>) {
  return sentStatement<{ data: { id: number }[] }>(
    path,
    query,
    (text) => text.includes(`from "${table}"`) && text.includes(`"${table}"."id" desc`),
  );
}

async function explain(statement: { text: string; values: unknown }, options = '', setting?: string): Promise<string> {
  const client = await explainPool.connect();
  try {
    await client.query('begin');
    await client.query(`select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, [
      String(older.orgId),
    ]);
    if (setting) await client.query(`set local ${setting}`);
    const explained = await client.query(`explain ${options} ${statement.text}`, statement.values as unknown[]);
    return explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('rollback');
    client.release();
  }
}

describe("a list in id order reads the organization's own ids, never another organization's", () => {
  for (const list of cases) {
    it(`${list.path}: page 1 and a cursor page through ${list.index}`, async () => {
      const first = await pageStatement(list.path, list.table, { limit: 100 });
      expect(first.page.status, first.page.text).toBe(200);
      const ids = first.page.body.data.map((row) => Number(row.id));
      expect(ids).toHaveLength(100);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(first.statement, 'the page statement').toBeDefined();
      const plan = await explain(first.statement as { text: string; values: unknown });
      expect(plan).toMatch(new RegExp(`Index (Only )?Scan using ${list.index} on ${list.table}`));
      expect(plan).not.toMatch(new RegExp(`${list.table}_pkey`));
      // Past the bound of counted totals, the unfiltered total is still exact: the live-row counter.
      const counted = await withTenant(handle.db, older.orgId, (tx) =>
        tx.execute<{ n: number }>(
          sql`select count(*)::int as n from ${sql.identifier(list.table)} where ${liveRowsOf(list)}`,
        ),
      );
      expect(counted.rows[0]?.n).toBeGreaterThan(ROWS - 1);
      expect(first.page.body).toMatchObject({ total: counted.rows[0]?.n, total_is_estimate: false });

      // The next page by cursor: ids below the first page's, still in the organization's own order.
      const cursor = (first.page.body as unknown as { next_cursor?: string }).next_cursor;
      expect(cursor, 'next_cursor').toBeTruthy();
      const next = await pageStatement(list.path, list.table, { limit: 100, cursor: cursor as string });
      expect(next.page.status, next.page.text).toBe(200);
      const nextIds = next.page.body.data.map((row) => Number(row.id));
      expect(nextIds).toHaveLength(100);
      expect(Math.max(...nextIds)).toBeLessThan(Math.min(...ids));
      const nextPlan = await explain(next.statement as { text: string; values: unknown });
      expect(nextPlan).toMatch(new RegExp(`Index (Only )?Scan using ${list.index} on ${list.table}`));
      expect(nextPlan).not.toMatch(new RegExp(`${list.table}_pkey`));
    });
  }
});

describe("one record's feed", () => {
  it('reads its entries in id order from feed_entries_organization_model_idx, without a sort', async () => {
    // After the cases above (its ids are then above the newer organization's). 200 records of the older organization with 20 entries each, newest last.
    await withTenant(handle.db, older.orgId, (tx) =>
      tx.execute(sql`insert into feed_entries (organization_id, model_type, model_id, action)
        select ${older.orgId}, 'contact', 1000000 + g % 200, 'updated' from generate_series(1, 4000) g`),
    );
    await handle.db.execute(sql`vacuum analyze feed_entries`);
    const query = { limit: 10, model_type: 'contact', model_id: 1000007 };
    const { page, statement } = await pageStatement('/api/feed/list', 'feed_entries', query);
    expect(page.status, page.text).toBe(200);
    const ids = page.body.data.map((row) => Number(row.id));
    expect(ids).toHaveLength(10);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(page.body).toMatchObject({ total: 20 });
    const plan = await explain(statement as { text: string; values: unknown });
    expect(plan).toMatch(/Index (Only )?Scan using feed_entries_organization_model_idx on feed_entries/);
    expect(plan).not.toMatch(/Sort Key: feed_entries\.id/);
  });
});

describe("a lead search reads the organization's own candidates, never another organization's", () => {
  it('asks the trigram index for the organization and the term together', async () => {
    // Both organizations hold 1 000 leads at the searched domain. The organization is the first
    // column of lead_search_documents_trgm_idx (btree_gin), and its condition must stay in the
    // index scan: left to a filter (as a cross-type comparison, an integer against the bigint
    // column, would leave it, since btree_gin's bigint class has no cross-type operator), every
    // search would fetch and recheck every other organization's matches as well.
    const domain = 'tenant-wide-search.example';
    for (const org of [older, newer]) {
      await withTenant(handle.db, org.orgId, (tx) =>
        tx.execute(sql`insert into leads (organization_id, first_name, last_name, email, status, priority, lead_source)
          select ${org.orgId}, 'Wide', 'Lead ' || g,
            'wide' || g || case when g % 3 = 0 then ${`@${domain}`} else '@elsewhere.example' end, 1, 1, 1
          from generate_series(1, 3000) g`),
      );
    }
    await handle.db.execute(sql`vacuum analyze leads`);
    await handle.db.execute(sql`vacuum analyze lead_search_documents`);

    const { page, statement } = await sentStatement<{ data: { email: string }[]; total: number }>(
      '/api/lead/list',
      { limit: 100, search_value: domain },
      (text) => text.includes('lead_search_scope'),
    );
    expect(page.status, page.text).toBe(200);
    expect(page.body.total).toBe(1000);
    expect(page.body.data).toHaveLength(100);
    for (const lead of page.body.data) expect(lead.email).toContain(`@${domain}`);

    expect(statement, 'the search statement').toBeDefined();
    // Whether the index or a scan of the table serves the search depends on the whole shared test
    // database's statistics; what this checks is what the index is asked for, so take the index.
    const plan = await explain(
      statement as { text: string; values: unknown },
      '(analyze, costs off, timing off)',
      'enable_seqscan = off',
    );
    const lines = plan.split('\n');
    const scan = lines.findIndex((line) => line.includes('Bitmap Index Scan on lead_search_documents_trgm_idx'));
    expect(scan, plan).toBeGreaterThan(-1);
    expect(lines[scan + 1], plan).toMatch(/Index Cond: \(\(organization_id = .*\) AND \(document ~~/);
    // The index yields the organization's own 1 000 candidates, not both organizations' 2 000.
    expect(lines[scan], plan).toMatch(/ rows=1000(\.00)? /);
  });
});

describe("a lead page's labels and tags are its own organization's, read once per statement", () => {
  it('resolves status, priority and source labels and tags from one read of the lookups each, whatever the rows', async () => {
    // Both organizations hold 150 leads at the searched domain, with status, priority and source
    // 1, and each has renamed its status 1. The older organization's leads have two of its 40 tags each.
    const domain = 'tenant-labels.example';
    for (const [org, label] of [
      [older, 'Older first status'],
      [newer, 'Newer first status'],
    ] as const) {
      await withTenant(handle.db, org.orgId, async (tx) => {
        await tx.execute(sql`update lookups set name = ${label}
          where organization_id = ${org.orgId} and module_name = 'lead' and type = 'status' and value = 1`);
        await tx.execute(sql`insert into leads (organization_id, first_name, last_name, email, status, priority, lead_source)
          select ${org.orgId}, 'Label', 'Lead ' || g, 'label' || g || ${`@${domain}`}, 1, 1, 1
          from generate_series(1, 150) g`);
      });
    }
    await withTenant(handle.db, older.orgId, async (tx) => {
      await tx.execute(sql`insert into lookups (organization_id, module_name, type, name, color_code)
        select ${older.orgId}, 'lead', 'tags', 'Label tag ' || g, '#0000' || lpad(g::text, 2, '0') from generate_series(1, 40) g`);
      await tx.execute(sql`insert into lead_tags (organization_id, lead_id, tag_id)
        select ${older.orgId}, l.id, t.id from leads l
        cross join lateral (select id from lookups where organization_id = ${older.orgId} and type = 'tags'
          and name like 'Label tag %' order by (id + l.id) % 40 limit 2) t
        where l.organization_id = ${older.orgId} and l.email like ${`%@${domain}`}`);
    });
    await handle.db.execute(sql`analyze lead_tags`);
    const tagNames = await withTenant(handle.db, older.orgId, (tx) =>
      tx.execute<{ id: number; name: string }>(
        sql`select id, name from lookups where type = 'tags' and name like 'Label tag %'`,
      ),
    );
    const tagName = new Map(tagNames.rows.map((row) => [Number(row.id), row.name]));

    type Labelled = {
      status_text: string | null;
      priority_text: string | null;
      lead_source_text: string | null;
      tags: { id: number; name: string; color: string | null }[];
    };
    const { page, statement } = await sentStatement<{ data: Labelled[] }>(
      '/api/lead/list',
      { limit: 100, search_value: domain },
      (text) => text.includes('lead_search_scope'),
    );
    expect(page.status, page.text).toBe(200);
    expect(page.body.data).toHaveLength(100);
    for (const lead of page.body.data) {
      expect(lead).toMatchObject({
        status_text: 'Older first status',
        priority_text: 'Low',
        lead_source_text: 'Website',
      });
      expect(lead.tags).toHaveLength(2);
      expect(lead.tags[0].id).toBeLessThan(lead.tags[1].id);
      for (const tag of lead.tags) {
        expect(Object.keys(tag)).toEqual(['id', 'name', 'color']);
        // Each tag is the lookup its id names, not another of the organization's lookups.
        expect(tag.name).toBe(tagName.get(tag.id));
        const n = Number(tag.name.replace('Label tag ', ''));
        expect(tag).toEqual({ id: tag.id, name: `Label tag ${n}`, color: `#0000${String(n).padStart(2, '0')}` });
      }
    }
    const theirs = await call<{ data: Labelled[] }>('GET', '/api/lead/list', {
      token: newer.token,
      query: { limit: 100, search_value: domain },
    });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toHaveLength(100);
    for (const lead of theirs.body.data) {
      expect(lead.status_text).toBe('Newer first status');
      expect(lead.tags).toEqual([]);
    }

    // Every read of the lookups runs once, not once per lead (a correlated sub-select per label
    // read the lookups 300 times for a 100-lead page, and the tags hashed them for each lead).
    expect(statement, 'the page statement').toBeDefined();
    const plan = await explain(statement as { text: string; values: unknown }, '(analyze, costs off, timing off)');
    const reads = plan.split('\n').filter((line) => / on lookups\b/.test(line));
    expect(reads.length, plan).toBeGreaterThanOrEqual(2);
    for (const read of reads) expect(read, plan).toMatch(/loops=1\)/);
  });
});
