/**
 * Creating an organization with everything it needs on day one: default roles, the default
 * lead lookups (statuses, sources, priorities, tags) and its first admin. Later modules add
 * their per-organization defaults (pipelines …) to `seedOrganizationDefaults`, which runs in
 * the same transaction as signup.
 */
import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { organizations, roles } from '../../db/schema';
import { grantStartingCredits } from '../credits';
import { seedDefaultLookups } from '../lookups';
import { seedDefaultPipeline } from '../pipelines';

export const DEFAULT_ROLES = [
  { name: 'admin', description: 'Manages users, roles, API keys and every record' },
  { name: 'manager', description: 'Manages the team’s records' },
  { name: 'sales_rep', description: 'Works assigned leads and deals' },
] as const;

export async function seedOrganizationDefaults(tx: Transaction, organizationId: number): Promise<Map<string, number>> {
  const seeded = await tx
    .insert(roles)
    .values(DEFAULT_ROLES.map((role) => ({ ...role, organizationId })))
    .returning({ id: roles.id, name: roles.name });
  await seedDefaultLookups(tx, organizationId);
  await seedDefaultPipeline(tx, organizationId);
  await grantStartingCredits(tx, organizationId);
  // The default saved queries live in one SQL function (drizzle/*_dashboards_queries_sql.sql), shared with the migration that seeded existing organizations.
  await tx.execute(sql`select seed_default_saved_queries(${organizationId}::bigint)`);
  return new Map(seeded.map((role) => [role.name, role.id]));
}

export async function createOrganization(tx: Transaction, name: string) {
  const [organization] = await tx.insert(organizations).values({ name }).returning();
  const roleIds = await seedOrganizationDefaults(tx, organization.id);
  return { organization, roleIds };
}
