/**
 * A LANGUAGE sql function that the planner cannot inline (one that writes, or is volatile) is
 * parsed and planned again on every call, on PostgreSQL 15 and in PGlite alike; a PL/pgSQL
 * function keeps its statements' plans for the backend's life. The rollup writers run in the
 * statement-level triggers of every write to leads, deals and intent signals, so they are
 * PL/pgSQL (migration 0075: a one-lead insert's triggers 3.5 -> 1.7 ms on a warm backend). The
 * volatile SQL functions left are called once per request at most, named below with where.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signupOrganization } from './helpers/api';
import { inOrganization } from './helpers/leads';

const VOLATILE_SQL_FUNCTIONS = [
  // The daily cron's measure of the search words, once a day for every organization.
  'refresh_lead_search_words',
  // Sign-up, once per organization.
  'seed_default_saved_queries',
];

describe('database functions', () => {
  it('writes through PL/pgSQL wherever a trigger or a hot path calls it', async () => {
    const org = await signupOrganization('Functions');
    const rows = await inOrganization(org.orgId, async (tx) => {
      const result = await tx.execute<{ name: string; language: string }>(sql`
        select p.proname as name, l.lanname as language
        from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace
        join pg_language l on l.oid = p.prolang
        where n.nspname = 'public' and p.provolatile = 'v' and l.lanname = 'sql'
        order by 1`);
      return result.rows;
    });
    expect(rows.map((row) => row.name)).toEqual(VOLATILE_SQL_FUNCTIONS);
  });
});
