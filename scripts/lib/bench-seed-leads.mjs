// Filling organizations with leads for the bench: each gets one lead through POST /api/lead/add
// (so its lookups and creator are the app's own), and the rest are copied from it with one SQL
// statement (`generate_series`, through `pg`, under the app's role and row-level security, as the
// app writes), then ANALYZE; the Worker's own path would take minutes. Used by the lists and edge
// sections.
import pg from 'pg';
import { expectOk } from './bench-measure.mjs';

/** A few leads (one in 25 000) carry this job title, so a search for it returns a handful. */
export const SEARCH_TERM = 'Quixotic Zephyr';

/** Inserts leads into `orgId` after its one lead `seedId` (whose lookups they copy), as the app does: role lm_app, RLS on. */
async function loadLeads(client, { orgId, seedId, count }) {
  await client.query('begin');
  try {
    await client.query(`select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, [
      String(orgId),
    ]);
    await client.query(
      `insert into leads (organization_id, first_name, last_name, email, company, job_title, city, status, priority, lead_source, created_by, created_at, updated_at)
       select s.organization_id, 'First' || g, 'Last' || g, 'lead' || g || '-' || s.organization_id || '@scale.example', 'Company ' || (g % 500),
         case when g % 25000 = 12345 then $3 else 'Buyer' end,
         case when g % 2 = 0 then 'Even City' else 'Odd City' end, s.status, s.priority, s.lead_source, s.created_by,
         -- distinct creation times, as real data has, so the default order is not a tie on created_at
         s.created_at - g * interval '1 second', s.created_at - g * interval '1 second'
       from leads s, generate_series(1, $2::int) as g
       where s.id = $1`,
      [seedId, count, SEARCH_TERM],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/**
 * Gives each `{ org, count }` (org from stack.signup) `count` leads in all: one through the API,
 * the rest by SQL, straight to the database (not through the delay proxy); then ANALYZE, as
 * autovacuum would after a bulk load.
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
    await client.query('analyze leads');
  } finally {
    await client.end();
  }
}
