/**
 * Settings the migrations give the database: JIT is off for new sessions, so an aggregate over an
 * organization's leads is not compiled for longer than it runs (migration 0021), on PGlite and on
 * PostgreSQL alike.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';

describe('database settings', () => {
  it('turns JIT off for the database’s new sessions', async () => {
    const handle = openDatabase(env as never);
    try {
      const stored = await handle.db.execute<{ settings: string[] }>(sql`
        select s.setconfig as settings from pg_db_role_setting s
        join pg_database d on d.oid = s.setdatabase and d.datname = current_database()
        where s.setrole = 0`);
      // Every new session of the database starts from these settings. (The catalogue, not this
      // session: PGlite serves one session that predates the migrations.)
      expect(stored.rows.flatMap((row) => row.settings)).toContain('jit=off');
    } finally {
      await handle.close();
    }
  });
});
