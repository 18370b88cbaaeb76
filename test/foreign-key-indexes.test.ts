/**
 * Deleting a row makes PostgreSQL find its children by the foreign key's columns alone (to
 * cascade, set null, or refuse), once per deleted row: without an index that leads with those
 * columns, each lookup reads the whole child table. The tenant indexes lead with
 * organization_id, so they do not serve it. Every foreign key to a table the API deletes rows of
 * outright has such an index, or is named below with the reason it has none.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signupOrganization } from './helpers/api';
import { inOrganization } from './helpers/leads';

/** Tables whose rows the API deletes (a grep of `delete from` and `.delete(` in src/). */
const DELETED_OUTRIGHT = [
  'attachments',
  'calendar_busy_blocks',
  'calendar_sync_jobs',
  'chat_subscriptions',
  'custom_views',
  'dashboards',
  'deals',
  'idempotency_keys',
  'lead_follow_ups',
  'lead_notes',
  'lead_scoring_jobs',
  'lead_tags',
  'login_failures',
  'login_successes',
  'mail_send_jobs',
  'meeting_tool_deliveries',
  'meetings',
  'phone_number_users',
  'pipelines',
  'revoked_tokens',
  'saved_queries',
  'stages',
  'stored_files',
  'target_accounts',
  'web_forms',
  'webhook_deliveries',
  'webhook_endpoints',
];

/** Foreign keys left without an index, "child.column -> parent": rare deletes of their parent. */
const UNINDEXED = {
  'deals.pipeline_id -> pipelines': 'a pipeline with deals cannot be deleted; one check per deleted pipeline',
  'deals.stage_id -> stages': 'a stage with deals cannot be removed; one check per removed stage',
  'webhook_deliveries.endpoint_id -> webhook_endpoints':
    'an admin deleting an endpoint, once; the deliveries are at most 90 days old',
  'webhook_attempts.endpoint_id -> webhook_endpoints': 'the same deletion of an endpoint',
};

describe('foreign key indexes', () => {
  it('every foreign key to a table the API deletes rows of has an index leading with its columns', async () => {
    const org = await signupOrganization('Foreign keys');
    const rows = await inOrganization(org.orgId, async (tx) => {
      const result = await tx.execute<{ child: string; columns: string; parent: string; indexed: boolean }>(sql`
        select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent,
          (select string_agg(a.attname, ',' order by k.n) from unnest(c.conkey) with ordinality k(attnum, n)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum) as columns,
          exists (
            select 1 from pg_index i
            where i.indrelid = c.conrelid
              and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] = c.conkey
          ) as indexed
        from pg_constraint c
        join pg_namespace n on n.oid = c.connamespace and n.nspname = 'public'
        where c.contype = 'f' and c.confrelid::regclass::text = any(${`{${DELETED_OUTRIGHT.join(',')}}`}::text[])`);
      return result.rows;
    });
    expect(rows.length).toBeGreaterThan(10);
    const unindexed = rows
      .filter((row) => !row.indexed)
      .map((row) => `${row.child}.${row.columns} -> ${row.parent}`)
      .sort();
    expect(unindexed).toEqual(Object.keys(UNINDEXED).sort());
  });
});
