/**
 * The large lists (contacts, companies, deals, meetings, calls): the route, the table, the
 * `(organization_id, id desc nulls last)` index their id order reads (`tenantIdOrder`) and which
 * rows they show, with a set-based insert of any number of rows. Shared by the id-order plan
 * tests (test/tenant-id-order.test.ts) and the live-row counter tests (test/list-totals.test.ts),
 * so a new large list joins both in one place.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { SignedUp } from './api';
import { createLead, inOrganization } from './leads';

/** What rows of some tables point at: a lead, a pipeline and its first stage, the organization's user. */
export interface ListReferences {
  orgId: number;
  userId: number;
  leadId: number;
  pipelineId: number;
  stageId: number;
}

export interface LargeList {
  path: string;
  table: string;
  /** The index of the list's id order. */
  index: string;
  /** Deleting sets deleted_at (the list shows the rows where it is null); otherwise rows are deleted. */
  softDelete: boolean;
  /** Inserts `rows` rows of the organization, named `tag` and a number (g, 1 to rows). */
  insert: (refs: ListReferences, tag: string, rows: number) => SQL;
}

export const largeLists: LargeList[] = [
  {
    path: '/api/contact/list',
    table: 'contacts',
    index: 'contacts_organization_id_idx',
    softDelete: true,
    insert: (refs, tag, rows) =>
      sql`insert into contacts (organization_id, name)
        select ${refs.orgId}, ${tag} || ' ' || g from generate_series(1, ${rows}) g`,
  },
  {
    path: '/api/company/list',
    table: 'companies',
    index: 'companies_organization_id_idx',
    softDelete: true,
    insert: (refs, tag, rows) =>
      sql`insert into companies (organization_id, company_name)
        select ${refs.orgId}, ${tag} || ' ' || g from generate_series(1, ${rows}) g`,
  },
  {
    path: '/api/lead/deal/list',
    table: 'deals',
    index: 'deals_organization_id_idx',
    softDelete: false,
    insert: (refs, tag, rows) =>
      sql`insert into deals (organization_id, lead_id, pipeline_id, stage_id, title, value, expected_close_date)
        select ${refs.orgId}, ${refs.leadId}, ${refs.pipelineId}, ${refs.stageId}, ${tag} || ' ' || g, g, date '2027-01-01'
        from generate_series(1, ${rows}) g`,
  },
  {
    path: '/api/meeting/list',
    table: 'meetings',
    index: 'meetings_organization_id_idx',
    softDelete: false,
    insert: (refs, tag, rows) =>
      sql`insert into meetings (organization_id, user_id, title, start_time, end_time)
        select ${refs.orgId}, ${refs.userId}, ${tag} || ' ' || g, timestamptz '2027-01-01' + g * interval '1 hour',
          timestamptz '2027-01-01' + g * interval '1 hour' + interval '30 minutes'
        from generate_series(1, ${rows}) g`,
  },
  {
    path: '/api/call/list',
    table: 'calls',
    index: 'calls_organization_idx',
    softDelete: false,
    insert: (refs, tag, rows) =>
      sql`insert into calls (organization_id, direction, kind, from_number, to_number, provider, failure_reason)
        select ${refs.orgId}, 'outbound', 'agent', '+14155550100', '+1415555' || lpad(g::text, 4, '0'), 'local', ${tag}
        from generate_series(1, ${rows}) g`,
  },
];

/** The rows a list shows, as a SQL condition on its table. */
export function liveRowsOf(list: Pick<LargeList, 'softDelete'>): SQL {
  return list.softDelete ? sql`deleted_at is null` : sql`true`;
}

/** A lead (through the API) and the organization's first pipeline stage, for rows that point at them. */
export async function listReferencesOf(org: SignedUp): Promise<ListReferences> {
  const leadId = await createLead(org, 'Deal', 'Holder');
  const [stage] = (
    await inOrganization(org.orgId, (tx) =>
      tx.execute<{ pipeline_id: string; id: string }>(sql`select pipeline_id, id from stages order by id limit 1`),
    )
  ).rows;
  if (!stage) throw new Error('the organization has no pipeline stage');
  return {
    orgId: org.orgId,
    userId: org.userId,
    leadId,
    pipelineId: Number(stage.pipeline_id),
    stageId: Number(stage.id),
  };
}
