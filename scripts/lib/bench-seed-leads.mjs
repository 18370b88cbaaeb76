// Filling organizations with leads for the bench: each gets one lead through POST /api/lead/add
// (so its lookups and creator are the app's own), and the rest are copied from it with one SQL
// statement (`generate_series`, through `pg`, under the app's role and row-level security, as the
// app writes), then ANALYZE; the Worker's own path would take minutes. Used by the lists and edge
// sections.
import pg from 'pg';
import { expectOk } from './bench-measure.mjs';

/** A few leads (one in 25 000) carry this job title, so a search for it returns a handful. */
export const SEARCH_TERM = 'Quixotic Zephyr';

/**
 * One lead in 45 (2.2 %, about 2 200 of 100 000) has an email at this company domain, the others
 * at scale.example: a search for it matches a realistic share of the organization, not a handful.
 */
export const WIDE_SEARCH_TERM = 'northwind-traders.example';
const WIDE_SEARCH_EVERY = 45;

/** Inserts leads into `orgId` after its one lead `seedId` (whose lookups they copy), as the app does: role lm_app, RLS on. */
async function loadLeads(client, { orgId, seedId, count }) {
  await client.query('begin');
  try {
    await client.query(`select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, [
      String(orgId),
    ]);
    await client.query(
      `insert into leads (organization_id, first_name, last_name, email, company, job_title, city, status, priority, lead_source, created_by, created_at, updated_at)
       select s.organization_id, 'First' || g, 'Last' || g,
         'lead' || g || '-' || s.organization_id || case when g % $4 = 7 then '@' || $5 else '@scale.example' end,
         'Company ' || (g % 500),
         case when g % 25000 = 12345 then $3 else 'Buyer' end,
         case when g % 2 = 0 then 'Even City' else 'Odd City' end, s.status, s.priority, s.lead_source, s.created_by,
         -- distinct creation times, as real data has, so the default order is not a tie on created_at
         s.created_at - g * interval '1 second', s.created_at - g * interval '1 second'
       from leads s, generate_series(1, $2::int) as g
       where s.id = $1`,
      [seedId, count, SEARCH_TERM, WIDE_SEARCH_EVERY, WIDE_SEARCH_TERM],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/**
 * Gives each `{ org, count }` (org from stack.signup) `count` leads in all: one through the API,
 * the rest by SQL, straight to the database (not through the delay proxy); then what a server
 * does on its own after a bulk load: VACUUM ANALYZE (autovacuum: statistics, hint bits, the
 * visibility map) and a CHECKPOINT (the checkpointer writes the load's dirty pages). PGlite has no
 * background processes, so without them its first readers paid for both. Then the search words
 * the daily cron measures (src/modules/leads/search-words.ts).
 */
export async function seedLeads(stack, organizations, { log }) {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    for (const { org, count } of organizations) {
      const started = Date.now();
      const seedId = JSON.parse(
        await expectOk('seeding a lead', () =>
          stack.api('POST', '/api/lead/add', {
            token: org.token,
            json: { first_name: 'Seed', last_name: 'Lead', email: `seed-${org.orgId}@example.com` },
          }),
        ),
      ).data.id;
      await loadLeads(client, { orgId: org.orgId, seedId, count: count - 1 });
      log(`loaded ${count} leads into organization ${org.orgId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    await client.query('vacuum analyze leads, lead_search_documents');
    await client.query('checkpoint');
    await client.query('select refresh_lead_search_words()');
  } finally {
    await client.end();
  }
}

/**
 * The organization a section fills: a new one (stack.signup), or with --keep-seed the one kept in
 * this database under `key`, which is filled on its first run only (`existing` says it was).
 */
export async function benchOrganization(stack, { name, key, keepSeed }) {
  return keepSeed ? stack.keptOrganization(key) : { ...(await stack.signup(name)), existing: false };
}

/** A kept organization must hold what a finished seeding left: else it was interrupted, and is refused. */
export async function assertKeptLeads(stack, org, count) {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const result = await client.query('select count(*)::int as n from leads where organization_id = $1', [org.orgId]);
    if (result.rows[0].n !== count) {
      throw new Error(
        `--keep-seed: organization ${org.orgId} holds ${result.rows[0].n} leads, not ${count} (an interrupted seeding?); use a fresh database`,
      );
    }
  } finally {
    await client.end();
  }
}
