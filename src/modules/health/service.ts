/**
 * Liveness: one real round trip to the database, outside any organization's scope, which also
 * asks whether the role the Worker connects as may switch to the application role: without it
 * every tenant request would fail, so health says so (503) rather than every route failing.
 */
import { sql } from 'drizzle-orm';
import { APP_ROLE, type Queryable } from '../../db/client';

export interface DatabaseHealth {
  /** The connecting role may SET ROLE lm_app (the SET option on PostgreSQL 16+, membership on 15). */
  canScope: boolean;
  /** The role the Worker connects as (logged, not answered). */
  role: string;
}

export async function checkDatabase(db: Queryable): Promise<DatabaseHealth> {
  const result = await db.execute<{ role: string; can_scope: boolean }>(sql`
    select current_user as role,
      case when exists (select 1 from pg_roles where rolname = ${APP_ROLE})
        then pg_has_role(current_user, ${APP_ROLE},
          case when current_setting('server_version_num')::int >= 160000 then 'SET' else 'MEMBER' end)
        else false end as can_scope`);
  const row = result.rows[0];
  return { canScope: row?.can_scope === true, role: String(row?.role ?? '') };
}
