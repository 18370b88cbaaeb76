/**
 * The migrations run by a role shaped like Neon's owner (NOSUPERUSER, CREATEROLE, CREATEDB, owning
 * the database), on an embedded PGlite (PostgreSQL 17) of the test's own, switched to that role
 * with SET SESSION AUTHORIZATION:
 *   - fresh, they succeed and the owner can switch to lm_app (the tenant scope works);
 *   - when lm_app already exists, created by another role, the owner cannot be granted it: they
 *     fail, saying what to run (GRANT lm_app TO <role>), instead of reporting success and leaving
 *     every tenant request to fail with "permission denied to set role";
 *   - once that grant is made, they succeed.
 */
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterEach, describe, expect, it } from 'vitest';

const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));
const OWNER = 'neon_like_owner';

let database: PGlite | undefined;
afterEach(async () => {
  await database?.close();
  database = undefined;
});

/** A fresh cluster with a Neon-like owner role that owns the database; `setup` runs first as the superuser. */
async function clusterWithOwner(setup: string[] = []): Promise<PGlite> {
  database = await PGlite.create({ extensions: { pg_trgm, btree_gin } });
  await database.exec(`CREATE ROLE ${OWNER} LOGIN NOSUPERUSER CREATEROLE CREATEDB`);
  await database.exec(`ALTER DATABASE postgres OWNER TO ${OWNER}`);
  await database.exec(`ALTER SCHEMA public OWNER TO ${OWNER}`);
  for (const statement of setup) await database.exec(statement);
  return database;
}

async function migrateAs(db: PGlite, role: string): Promise<void> {
  await db.exec(`SET SESSION AUTHORIZATION ${role}`);
  try {
    await migrate(drizzle({ client: db }), { migrationsFolder });
  } finally {
    await backToSuperuser(db);
  }
}

/** PGlite's RESET SESSION AUTHORIZATION keeps the role set; naming the superuser does return to it. */
async function backToSuperuser(db: PGlite): Promise<void> {
  await db.exec('SET SESSION AUTHORIZATION postgres');
}

async function ownerCanScope(db: PGlite): Promise<void> {
  await db.exec(`SET SESSION AUTHORIZATION ${OWNER}`);
  try {
    await db.exec(`SET ROLE lm_app`);
    const result = await db.query<{ role: string }>('select current_user as role');
    expect(result.rows[0].role).toBe('lm_app');
    await db.exec('RESET ROLE');
  } finally {
    await backToSuperuser(db);
  }
}

describe('the migrations run by a non-superuser CREATEROLE owner', () => {
  it('succeed on a fresh cluster, and the owner can switch to lm_app', async () => {
    const db = await clusterWithOwner();
    const owner = await db.query<{ superuser: boolean }>(
      `select rolsuper as superuser from pg_roles where rolname = '${OWNER}'`,
    );
    expect(owner.rows[0].superuser).toBe(false);
    await migrateAs(db, OWNER);
    await ownerCanScope(db);
  });

  it('fail, saying what to run, when lm_app exists and was created by another role; succeed once it is granted', async () => {
    const db = await clusterWithOwner(['CREATE ROLE lm_app NOLOGIN NOBYPASSRLS']);
    const failure = await migrateAs(db, OWNER).then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: Error },
    );
    expect(failure, 'the migrations reported success').toBeDefined();
    const message = `${failure?.message ?? ''} ${failure?.cause?.message ?? ''}`;
    expect(message).toContain('cannot SET ROLE lm_app');
    expect(message).toContain(`GRANT lm_app TO "${OWNER}"`);
    // Nothing of the run stayed: the migrations ran in one transaction.
    const tables = await db.query<{ n: number }>(
      "select count(*)::int as n from pg_tables where schemaname = 'public' and tablename = 'leads'",
    );
    expect(tables.rows[0].n).toBe(0);

    // What the message says to run, as a role with ADMIN OPTION on lm_app (here the superuser).
    await db.exec(`GRANT lm_app TO ${OWNER}`);
    await migrateAs(db, OWNER);
    await ownerCanScope(db);
  });
});
