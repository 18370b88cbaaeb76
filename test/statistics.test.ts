/**
 * The statistics refresh after one organization's bulk writes (src/db/statistics.ts, migration
 * 0064): the app's role may run it inside its tenant transaction, it refreshes nothing below the
 * threshold, it analyzes only tables of the schema, and a rollback takes its statistics back.
 * What it is for (the plans of the bulk actions after an import or a bulk tagging) is tested in
 * test/imports.test.ts and test/leads-scale.test.ts.
 */
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Transaction, withOwnDatabase } from '../src/db/client';
import { pgError } from '../src/db/errors';
import { readConfig } from '../src/env';
import { refreshStatisticsAfter, STATISTICS_REFRESH_ROWS } from '../src/db/statistics';
import { signupOrganization, type SignedUp } from './helpers/api';
import { analyzeTable, inOrganization, plannedRows, plannedRowsIn } from './helpers/leads';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Statistics');
  await analyzeTable('leads');
});

/** Inserts `count` leads of the organization in the transaction, as a bulk writer would. */
async function insertLeads(tx: Transaction, count: number) {
  await tx.execute(sql`
    insert into leads (organization_id, first_name, last_name, email, status, priority, lead_source)
    select ${org.orgId}, 'Stat' || g, 'Lead', 'stat' || g || '@statistics.example', 1, 1, 1
    from generate_series(1, ${count}) as g`);
}

class RolledBack extends Error {}

describe('statistics after bulk writes', () => {
  it('runs under the app role inside the tenant transaction, and a rollback takes the statistics back', async () => {
    await expect(
      inOrganization(org.orgId, async (tx) => {
        await insertLeads(tx, 3000);
        expect(await plannedRowsIn(tx, org.orgId, 'leads')).toBeLessThan(100);
        expect(await refreshStatisticsAfter(tx, 3000, ['leads'])).toBe(true);
        // The transaction's own uncommitted rows are in the sample.
        expect(await plannedRowsIn(tx, org.orgId, 'leads')).toBeGreaterThan(1500);
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect(await plannedRows(org.orgId, 'leads')).toBeLessThan(100);
  });

  it('refreshes nothing below the threshold', async () => {
    await expect(
      inOrganization(org.orgId, async (tx) => {
        await insertLeads(tx, 3000);
        expect(await refreshStatisticsAfter(tx, STATISTICS_REFRESH_ROWS - 1, ['leads'])).toBe(false);
        expect(await plannedRowsIn(tx, org.orgId, 'leads')).toBeLessThan(100);
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
  });

  it('waits at most its lock timeout for a table another session is analyzing, then goes on', async (context) => {
    const config = readConfig(env);
    const server = await withOwnDatabase(config, (db) => db.execute<{ version: string }>(sql`select version()`));
    // The embedded PGlite runs one session at a time: a lock one session holds cannot be waited
    // for by another. PostgreSQL (CI's second run) runs this.
    if (/emscripten|wasm/i.test(server.rows[0].version)) context.skip();
    await withOwnDatabase(config, (db) =>
      db.transaction(async (holder) => {
        // ANALYZE's lock is held to the end of the transaction that ran it.
        await holder.execute(sql`analyze lead_tags`);
        const started = Date.now();
        const ran = await inOrganization(org.orgId, (tx) => refreshStatisticsAfter(tx, 5000, ['lead_tags']));
        const waited = Date.now() - started;
        expect(ran).toBe(true);
        expect(waited).toBeGreaterThanOrEqual(1900);
        expect(waited).toBeLessThan(10_000);
      }),
    );
  });

  it('analyzes only tables of the schema, by name', async () => {
    for (const name of ['pg_class', 'leads; drop table leads', 'lead_phone_scope', 'no_such_table']) {
      const refused = await inOrganization(org.orgId, (tx) =>
        tx.execute(sql`select refresh_table_statistics(array[${name}]::text[])`),
      ).then(
        () => null,
        (error: unknown) => error,
      );
      expect(pgError(refused)?.message, name).toMatch(/is not a table of this schema/);
    }
  });
});
