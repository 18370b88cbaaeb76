/**
 * Creating leads. `createLeadsBatch` is the one creation path: POST /api/lead/add sends one row,
 * the spreadsheet import sends batches of hundreds. Whatever the batch size, rows that create
 * take two statements: one read (references, the live leads holding the emails or profile URLs, new ids) and one
 * write (companies, leads, tags, feed entries, notifications, the scoring job and its outbox
 * message); merges add a few more.
 */
import type { EventType } from '../../core/event-types';
import { leadTags, leads, companies } from '../../db/schema';
import { type SQL, sql } from 'drizzle-orm';
import {
  deliveryIdsOf,
  leadAssignedData,
  leadCreatedData,
  sendWebhookDeliveries,
  webhookDeliveriesSql,
} from '../webhooks';
import type { TenantContext } from '../../db/tenant';
import { ValidationFailed } from '../../core/errors';
import { feedEntriesFrom } from '../feed';
import { leadAssignmentNotices, notifyLeadAssignments } from '../notifications';
import { mergeIntoExistingLeads } from './batch-merge';
import {
  type DedupeField,
  dedupeKeys,
  duplicateLead,
  emailKey,
  fieldOfKey,
  findLiveHolders,
  type LiveLeadByEmail,
} from './dedupe';
import { type LeadRow, leadSelection, presentLead, readLead } from './present';
import { leadTagRefs } from './lead-lookups';
import { selectListSql, selectedRowFrom } from '../../core/field-table';
import {
  checkLeadReferences,
  holdCompanies,
  loadLeadWriteContext,
  type LeadWriteContext,
  madeCompaniesFeedSql,
} from './references';
import type { AddLeadInput, LeadView } from './schemas';
import { foldLeadInput, jsonFieldsToStore, type BatchRow } from './lead-writes';
import { type ColumnRef, columnList, recordsetDefinition, tableColumn } from '../../core/field-columns';
import { leadFields } from './fields';
import type { JobMessage } from '../../jobs/messages';
import { sendRowsAfterCommit } from '../../jobs/outbox';
import { leadScoringCtes, scoringOutboxRows } from '../../jobs/scoring-request';

export type { BatchRow } from './lead-writes';

export interface BatchOptions {
  /** Set by the import: leads carry (import_job_id, import_row), so a redelivered batch inserts nothing twice. */
  importJobId?: number;
  /**
   * What happens to a row whose email or profile URL a live lead (or an earlier row of the batch)
   * already has: skipped (reported with the holder), merged into the holder, or created anyway as
   * a flagged duplicate (`duplicate_of`, outside the uniqueness indexes).
   */
  onDuplicate: 'skip' | 'merge' | 'create';
  /**
   * The batch's read, already done by a statement the request sent anyway (the API-key scope
   * statement: modules/ingestion/prefetch.ts), for exactly these rows: the batch skips its own read.
   */
  context?: LeadWriteContext;
  /**
   * The status a row without one gets when it is an active status of the organization (API-key
   * ingestion: the spec's "default 1"); otherwise, and when unset, the organization's first
   * active status. Chosen from the batch's read of the active lookups: no statement of its own.
   */
  preferredStatus?: number;
  /**
   * Present each created lead (`createdLeads[].lead`) from the insert's own statement, as GET
   * /api/lead/view would: POST /api/lead/add answers with it and reads nothing after the insert.
   */
  present?: boolean;
}

/** What the insert returns of each created lead (the API-key ingestion answers with it). */
export type CreatedLeadRecord = {
  id: number;
  email: string | null;
  first_name: string;
  company: string | null;
  status: number;
  priority: number | null;
  score: number;
  created_at: string;
};

/** Where an earlier row of the batch sent the key a row shares with it. */
export interface EarlierRow {
  /** The earlier row (its rowNumber) that created the lead, or merged into it, with this key. */
  earlierRow?: number;
}

export interface SkippedRow extends EarlierRow {
  rowNumber: number;
  leadId: number;
  /** The field the row collides on. */
  field: DedupeField;
  /**
   * Merge mode: the lead the row's other key matched, when its keys lead to two different leads
   * (`leadId` by `field`, this one by its own field): merging into either would give it the other's key.
   */
  alsoMatched?: { leadId: number; field: DedupeField } & EarlierRow;
}

export interface MergedRow extends EarlierRow {
  rowNumber: number;
  leadId: number;
  /** The field that matched the lead (none for a row the caller matched by `holderId`). */
  field?: DedupeField;
}

export interface BatchResult {
  created: number;
  updated: number;
  skipped: SkippedRow[];
  merged: MergedRow[];
  errors: { rowNumber: number; field: string; message: string }[];
  /** Which lead each created row became (`lead`: presented, when the batch was asked to `present`). */
  createdLeads: { rowNumber: number; leadId: number; record: CreatedLeadRecord; lead?: LeadView }[];
}

/**
 * Where a row's key leads: a live lead, or the new lead an earlier row of the batch creates.
 * `by`: the earlier row of the batch that gave the key to that lead (created it, or merged into it).
 */
interface Match {
  target: { lead: LiveLeadByEmail } | { row: BatchRow };
  key: string;
  by?: BatchRow;
}

function sameTarget(a: Match['target'], b: Match['target']): boolean {
  return 'lead' in a ? 'lead' in b && a.lead.id === b.lead.id : 'row' in b && a.row === b.row;
}

/** Counted by the unique indexes: a live lead not let in as a duplicate, or a lead a row of the batch creates. */
function counted(match: Match): boolean {
  return 'row' in match.target || !match.target.lead.flagged;
}

/** A skip decided by the plan; its leads resolved once the insert has said which rows it created. */
interface PlannedSkip {
  row: BatchRow;
  /** The lead named (`leadId`), by the row's key it collides on. */
  match: Match;
  /** Merge mode: the lead the row's first key matched, when `match` is another counted lead. */
  also?: Match;
}

interface Plan {
  toCreate: BatchRow[];
  /** Existing lead id → the rows merged into it, in row order. */
  merges: Map<number, BatchRow[]>;
  /** Rows merged into a live lead by a key (not by `holderId`): the match (its `by` when an earlier row gave the key). */
  mergedBy: Map<BatchRow, Match>;
  /** Rows whose key an earlier row of the batch creates a lead with: they go to that lead (folded into it, or skipped). */
  repeats: { row: BatchRow; match: Match & { target: { row: BatchRow } } }[];
  skipped: PlannedSkip[];
  /** onDuplicate 'create': the lead (or the earlier row's lead) each duplicate row repeats. */
  duplicateOf: Map<BatchRow, number | BatchRow>;
}

/** A row's dedupe keys (dedupe.ts), its profile URL normalised by the database's rule. */
function keysOf(row: BatchRow, profileKeys: Record<string, string | null>): string[] {
  const url = row.input.profile_url;
  return dedupeKeys(row.input.email, url ? profileKeys[url] : null);
}

/**
 * Decides each row's fate before any write, rows in order. A key leads to the live leads holding
 * it and, once an earlier row of the batch has given it to a lead (created the lead with it, or
 * merged into a lead with it), to that lead first: a later row with the same email or profile URL
 * goes where the earlier one went, merged into that lead (merge) or reported as its duplicate
 * (skip), as if the earlier row had been imported before. A merge row whose keys lead to two
 * different counted leads is skipped, naming both: merging into one would give it the other's key,
 * which the unique indexes refuse. So no write of the batch can meet the unique indexes but a
 * concurrent writer's, and the batch never fails on a conflict between its own rows.
 */
function planBatch(rows: BatchRow[], refs: LeadWriteContext, options: BatchOptions): Plan {
  const plan: Plan = {
    toCreate: [],
    merges: new Map(),
    mergedBy: new Map(),
    repeats: [],
    skipped: [],
    duplicateOf: new Map(),
  };
  /** Keys earlier rows gave a counted lead (one it did not hold before): later rows with them go to that lead. */
  const claims = new Map<string, Match>();
  const claim = (keys: string[], target: Match['target'], by: BatchRow) => {
    for (const key of keys) {
      const heldBefore = (refs.existing.get(key) ?? []).some((lead) => 'lead' in target && lead.id === target.lead.id);
      if (!heldBefore && !claims.has(key)) claims.set(key, { target, key, by });
    }
  };
  const mergeInto = (leadId: number, row: BatchRow) =>
    plan.merges.set(leadId, [...(plan.merges.get(leadId) ?? []), row]);
  // Copies, so folding repeats into a row never changes the caller's objects.
  for (const row of rows.map((given): BatchRow => ({ ...given }))) {
    const keys = keysOf(row, refs.profileKeys);
    // Per key, email first: the lead an earlier row gave it, then its live holders (counted ones first).
    const matches = keys.flatMap((key): Match[] => {
      const claimed = claims.get(key);
      const holders = (refs.existing.get(key) ?? []).map((lead): Match => ({ target: { lead }, key }));
      return claimed ? [claimed, ...holders.filter((held) => !sameTarget(held.target, claimed.target))] : holders;
    });
    if (row.holderId !== undefined) {
      // Its email or profile URL held by another lead: updating would collide with that lead.
      const own: Match['target'] = { lead: { id: row.holderId, importJobId: null, importRow: null, flagged: false } };
      const other = matches.find((match) => !sameTarget(match.target, own));
      if (other) plan.skipped.push({ row, match: other });
      else {
        mergeInto(row.holderId, row);
        claim(keys, own, row);
      }
      continue;
    }
    // A redelivered import row finds the lead it created the first time: nothing to do.
    if (
      options.importJobId &&
      matches.some(
        ({ target }) =>
          'lead' in target &&
          target.lead.importJobId === options.importJobId &&
          target.lead.importRow === row.rowNumber,
      )
    )
      continue;
    const holder = matches[0];
    if (!holder) {
      plan.toCreate.push(row);
      claim(keys, { row }, row);
      continue;
    }
    if (options.onDuplicate === 'create') {
      // A flagged duplicate, outside the unique indexes: it claims nothing.
      plan.duplicateOf.set(row, 'lead' in holder.target ? holder.target.lead.id : holder.target.row);
      plan.toCreate.push(row);
      continue;
    }
    // Another key of the row leading to another counted lead (the email to lead A, the profile URL
    // to lead B, either held before or given by an earlier row): merging into A would give A B's
    // key. The row is refused before any write, naming B and the field (409 duplicate_lead for one lead).
    const other =
      options.onDuplicate === 'merge' && counted(holder)
        ? matches.find((match) => counted(match) && !sameTarget(match.target, holder.target))
        : undefined;
    if (other) plan.skipped.push({ row, match: other, also: holder });
    else if ('row' in holder.target) plan.repeats.push({ row, match: holder as PlanRepeat['match'] });
    else if (options.onDuplicate === 'skip') plan.skipped.push({ row, match: holder });
    else {
      mergeInto(holder.target.lead.id, row);
      plan.mergedBy.set(row, holder);
    }
    // The row's keys now lead where it went (a flagged lead is outside the indexes: nothing to claim).
    if (!other && options.onDuplicate === 'merge' && counted(holder)) claim(keys, holder.target, row);
  }
  return plan;
}

type PlanRepeat = Plan['repeats'][number];

/**
 * The columns an insert fills from each JSON record (jsonb_to_recordset): the id allocated
 * beforehand, the stored fields a create sets (field table), and the import's provenance.
 * Records are keyed by the wire names (`import_job_id`, `import_row` for the provenance).
 */
export const LEAD_INSERT_COLUMNS: readonly ColumnRef[] = [
  tableColumn(leads, 'id'),
  ...leadFields.columns('create'),
  tableColumn(leads, 'importJobId', 'import_job_id'),
  tableColumn(leads, 'importRow', 'import_row'),
  tableColumn(leads, 'duplicateOf', 'duplicate_of'),
  tableColumn(leads, 'externalSource', 'external_source'),
  tableColumn(leads, 'externalId', 'external_id'),
];

/** The body of a CTE that writes nothing (a part of the insert no row needs): an empty `id` column. */
const NOTHING = sql`select null::bigint as id where false`;

/**
 * The insert's select list over `input r` joined to the upserted companies `c` and the locked
 * linked ones `h`: a row naming a company gets its link, a row linking one its name as last committed.
 */
const resolvedColumns = sql.join(
  LEAD_INSERT_COLUMNS.map((column) => {
    if (column.key === 'company') return sql`coalesce(h.company_name, c.company_name, r.company) as company`;
    if (column.key === 'company_id') return sql`coalesce(r.company_id, c.id) as company_id`;
    return sql`r.${sql.identifier(column.key)}`;
  }),
  sql`, `,
);

/**
 * The insert of `insertLeads` as data-modifying CTEs (`input`, `named_companies`, `inserted`,
 * `tagged`, `feed`, `notified`), without the leading WITH, so that a caller can write the new
 * lead in a statement of its own (the public booking confirmation). `onlyIf`, a boolean SQL
 * expression over earlier CTEs, makes the whole insert conditional; `activityNow` sets the new
 * leads' last_activity_at (the booking's meeting is their first activity).
 */
export function leadInsertCtes(
  ctx: TenantContext,
  rows: { row: BatchRow; id: number; duplicateOf: number | null }[],
  refs: LeadWriteContext,
  options: Pick<BatchOptions, 'importJobId'>,
  extra: { onlyIf?: SQL; activityNow?: boolean } = {},
): SQL {
  const { onlyIf, activityNow } = extra;
  const records = rows.map(({ row, id, duplicateOf }) => {
    const input = row.input;
    const linked = input.company_id != null;
    return {
      ...input,
      id,
      // API-key ingestion and web forms may create a lead without names (the columns are NOT NULL).
      first_name: input.first_name ?? '',
      last_name: input.last_name ?? '',
      company_id: linked ? input.company_id : null,
      company: linked ? (refs.companies.get(input.company_id as number) ?? null) : (input.company ?? null),
      status: input.status ?? refs.defaultStatus,
      tags: undefined,
      tag_ids: [...new Set(input.tags ?? [])],
      ...jsonFieldsToStore(input),
      import_job_id: options.importJobId ?? null,
      import_row: options.importJobId ? row.rowNumber : null,
      duplicate_of: duplicateOf,
      external_source: row.external?.source ?? null,
      external_id: row.external?.id ?? null,
    };
  });
  // A part no row needs is left out of the statement: planning is most of what a one-lead insert costs.
  const anyTags = records.some((record) => record.tag_ids.length > 0);
  const anyAssigned = records.some((record) => record.assigned_to != null);
  const anyNamedCompany = records.some((record) => record.company_id == null && record.company != null);
  const linkedCompanies = [
    ...new Set(records.flatMap((record) => (record.company_id != null ? [record.company_id as number] : []))),
  ];
  // An event nobody listens to writes no deliveries: its insert is left out too.
  const listened = (type: EventType) => refs.listenedEvents === null || refs.listenedEvents.has(type);
  const feedChanges = JSON.stringify(
    options.importJobId ? { import_job_id: { from: null, to: options.importJobId } } : {},
  );
  return sql`input as (
      select * from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(${recordsetDefinition(LEAD_INSERT_COLUMNS)}, tag_ids bigint[])
      ${onlyIf ? sql`where ${onlyIf}` : sql``}
    ), named_companies as (
      ${
        anyNamedCompany
          ? sql`insert into ${companies} (organization_id, company_name, created_by)
      select distinct on (lower(company)) ${ctx.orgId}, company, ${ctx.userId} from input
      where company_id is null and company is not null
      order by lower(company), id
      on conflict (organization_id, lower(company_name)) where deleted_at is null do update set company_name = companies.company_name
      -- xmax 0: the row this insert made (the upsert's update of an existing row leaves its lock in xmax).
      returning id, company_name, xmax = 0 as made`
          : sql`select null::bigint as id, null::text as company_name, false as made where false`
      }
    ), company_feed as (
      ${anyNamedCompany ? madeCompaniesFeedSql(ctx, 'named_companies', sql`made`) : NOTHING}
    ), held_companies as (
      ${
        // Companies before leads (row-locks.ts): the linked companies are locked FOR SHARE, in id
        // order, before the leads are inserted, so a company delete holding one makes the insert
        // wait and then find it gone (the row is not inserted: 422 company_id), and an insert
        // holding one makes the delete wait and then see the lead.
        linkedCompanies.length > 0
          ? sql`select id, company_name from ${companies}
      where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(linkedCompanies)}::bigint[])
      order by id for share`
          : sql`select null::bigint as id, null::text as company_name where false`
      }
    ), inserted as (
      insert into ${leads} (organization_id, created_by, ${columnList(LEAD_INSERT_COLUMNS)}${activityNow ? sql`, last_activity_at` : sql``})
      overriding system value
      select ${ctx.orgId}, ${ctx.userId}, ${resolvedColumns}${activityNow ? sql`, now()` : sql``}
      from input r left join named_companies c on r.company_id is null and lower(c.company_name) = lower(r.company)
        left join held_companies h on h.id = r.company_id
      where r.company_id is null or h.id is not null
      -- In email order, so two concurrent batches wait on each other's emails in one order, never in a cycle.
      order by lower(r.email), r.id
      on conflict do nothing
      -- The whole row: the created lead is presented from it (insertLeads), the table not showing it to this statement.
      returning *
    ), tagged as (
      ${
        anyTags
          ? sql`insert into ${leadTags} (organization_id, lead_id, tag_id)
      select ${ctx.orgId}, r.id, tag from input r join inserted i on i.id = r.id cross join unnest(r.tag_ids) as tag
      on conflict do nothing
      returning lead_id, tag_id`
          : sql`select null::bigint as lead_id, null::bigint as tag_id where false`
      }
    ), feed as (
      ${feedEntriesFrom(ctx, { from: sql`inserted`, modelType: 'lead', modelId: sql`id`, action: 'created', changes: sql`${feedChanges}::jsonb` })}
    ), notified as (
      ${anyAssigned ? leadAssignmentNotices(ctx, { from: sql`input r join inserted i on i.id = r.id`, userId: sql`r.assigned_to`, leadId: sql`r.id`, leadName: sql`r.first_name || ' ' || r.last_name` }) : NOTHING}
    ), hooks_created as (
      ${listened('lead.created') ? webhookDeliveriesSql(ctx, 'lead.created', { from: sql`input r join inserted i on i.id = r.id`, data: leadCreatedData }) : NOTHING}
    ), hooks_assigned as (
      ${anyAssigned && listened('lead.assigned') ? webhookDeliveriesSql(ctx, 'lead.assigned', { from: sql`input r join inserted i on i.id = r.id`, data: leadAssignedData(ctx, sql`r.id`, sql`r.first_name || ' ' || r.last_name`, sql`r.assigned_to`), where: sql`r.assigned_to is not null` }) : NOTHING}
    ), ${leadScoringCtes(ctx, sql`(select array_agg(id) from inserted)`)}`;
}

/** The ids of the webhook deliveries `leadInsertCtes` wrote, as one array column of the statement's answer. */
export const leadInsertDeliveryIds: SQL = deliveryIdsOf('hooks_created', 'hooks_assigned');

/**
 * One lead a caller writes in its own statement (the public booking confirmation): the checks and
 * dedupe of `createLeadsBatch` against a write context read beforehand, then either the live lead
 * that holds the email or profile URL, or the CTEs that insert the new one (`leadInsertCtes`).
 * A reference the organization refuses: 422, as on every creation path.
 */
export function planOneLead(
  ctx: TenantContext,
  input: AddLeadInput,
  refs: LeadWriteContext,
  onlyIf?: SQL,
): { kind: 'existing'; leadId: number } | { kind: 'create'; leadId: number; ctes: SQL } {
  const row: BatchRow = { rowNumber: 1, input };
  const issues = checkLeadReferences(input, refs, 'create');
  if (issues.length > 0) throw new ValidationFailed(issues);
  const plan = planBatch([row], refs, { onDuplicate: 'skip' });
  // One row: what it duplicates is a live lead (no earlier row of its batch).
  const duplicated = plan.skipped[0]?.match.target;
  if (duplicated && 'lead' in duplicated) return { kind: 'existing', leadId: duplicated.lead.id };
  const id = refs.allocatedIds[0];
  return {
    kind: 'create',
    leadId: id,
    ctes: leadInsertCtes(
      ctx,
      [{ row: plan.toCreate[0], id, duplicateOf: null }],
      refs,
      {},
      { onlyIf, activityNow: true },
    ),
  };
}

/**
 * The created lead as GET /api/lead/view presents it, selected from the insert's RETURNING in the
 * insert's own statement: the statement's snapshot shows neither the new lead nor its new tags
 * through the tables, so the row comes from `inserted` (read under the table's name, which the
 * selection's columns name) and the tags from `tagged`'s RETURNING, resolved as `leadTagRefs` does.
 */
const presentedSelection = { ...leadSelection, tags: leadTagRefs(sql`"leads"."id"`, sql`tagged`) };
const PRESENTED = 'lead.';

/**
 * Inserts the rows with everything that goes with a new lead, in ONE statement: companies named
 * by the rows are linked case-insensitively or created (an upsert, so a concurrent creator of the
 * same name is found, not duplicated; each one made writes its `created` feed entry), companies
 * linked by id are locked FOR SHARE (a row whose company a delete removed meanwhile is not
 * inserted: `goneCompanies`), then the leads, their tags, their feed entries and the assignees'
 * notifications. A row whose email a live lead already holds (or whose import row was already
 * inserted) is not inserted: the unique indexes make that race-free without a lock. Returns the
 * rows that were inserted with their ids (allocated beforehand), each presented when `present`.
 */
async function insertLeads(
  ctx: TenantContext,
  rows: { row: BatchRow; id: number; duplicateOf: number | null }[],
  refs: LeadWriteContext,
  options: BatchOptions,
) {
  // One row even when nothing was inserted: it says which linked companies were found live and locked.
  const inserted = await ctx.db.execute<
    CreatedLeadRecord & {
      webhook_ids: number[];
      scoring: { id: number; message: JobMessage }[];
      held_companies: number[];
    } & Record<string, unknown>
  >(sql`
    with ${leadInsertCtes(ctx, rows, refs, options)}
    select "leads".id, "leads".email, "leads".first_name, "leads".company, "leads".status, "leads".priority,
      "leads".score, "leads".created_at, ${leadInsertDeliveryIds} as webhook_ids, ${scoringOutboxRows} as scoring,
      h.held as held_companies${options.present ? sql`, ${selectListSql(presentedSelection, PRESENTED)}` : sql``}
    from (select coalesce(array_agg(id), '{}') as held from held_companies) h left join inserted as "leads" on true`);
  sendWebhookDeliveries(ctx, inserted.rows[0]?.webhook_ids ?? []);
  // Events rule 4: the new leads' scoring job leaves once this request commits.
  sendRowsAfterCommit(ctx, inserted.rows[0]?.scoring ?? [], { consumerDeletes: true });
  const held = new Set((inserted.rows[0]?.held_companies ?? []).map(Number));
  const byId = new Map(
    inserted.rows
      .filter((row) => row.id !== null)
      .map((row): [number, { record: CreatedLeadRecord; lead?: LeadView }] => [
        Number(row.id),
        {
          record: {
            id: Number(row.id),
            email: row.email,
            first_name: row.first_name,
            company: row.company,
            status: Number(row.status),
            priority: row.priority === null ? null : Number(row.priority),
            score: Number(row.score),
            created_at: new Date(row.created_at).toISOString(),
          },
          lead: options.present
            ? presentLead(selectedRowFrom(presentedSelection, row, PRESENTED) as LeadRow)
            : undefined,
        },
      ]),
  );
  const created = rows.flatMap((entry) => {
    const made = byId.get(entry.id);
    return made ? [{ row: entry.row, leadId: entry.id, ...made }] : [];
  });
  // Rows linking a company the insert did not find live: a delete removed it after the read.
  const goneCompanies = rows.flatMap(({ row }) =>
    row.input.company_id != null && !held.has(row.input.company_id) ? [row] : [],
  );
  return { created, goneCompanies };
}

/**
 * Creates leads: one read (references, the live leads holding the emails, new ids) and, for rows
 * that create, one write. Rows that merge into an existing lead (imports with onDuplicate: merge)
 * take the separate merge path. A row that loses a race for its email to a concurrent writer is
 * reported as skipped with the winner's id.
 */
export async function createLeadsBatch(
  ctx: TenantContext,
  rows: BatchRow[],
  options: BatchOptions,
): Promise<BatchResult> {
  const result: BatchResult = { created: 0, updated: 0, skipped: [], merged: [], errors: [], createdLeads: [] };
  if (rows.length === 0) return result;
  const keys = [...new Set(rows.map((row) => emailKey(row.input.email)).filter((key): key is string => key !== null))];
  const urls = [...new Set(rows.map((row) => row.input.profile_url).filter((url): url is string => !!url))];
  const read =
    options.context ??
    (await loadLeadWriteContext(
      ctx,
      rows.map((row) => row.input),
      keys,
      rows.length,
      urls,
    ));
  const preferred = options.preferredStatus;
  const refs = preferred !== undefined && read.status.has(preferred) ? { ...read, defaultStatus: preferred } : read;
  const valid: BatchRow[] = [];
  for (const row of rows) {
    const issues = checkLeadReferences(row.input, refs, 'create');
    if (issues.length > 0) result.errors.push(...issues.map((issue) => ({ rowNumber: row.rowNumber, ...issue })));
    else valid.push(row);
  }
  const plan = planBatch(valid, refs, options);
  if (options.onDuplicate === 'merge') {
    // Repeats of a new email fold into the row that creates the lead.
    for (const { row, match } of plan.repeats)
      match.target.row.input = foldLeadInput(match.target.row.input, row.input);
  }

  const allocated = new Map(plan.toCreate.map((row, index) => [row, refs.allocatedIds[index]]));
  const toCreate = plan.toCreate.map((row) => {
    const of = plan.duplicateOf.get(row);
    return {
      row,
      id: allocated.get(row) as number,
      duplicateOf: of === undefined ? null : typeof of === 'number' ? of : (allocated.get(of) ?? null),
    };
  });
  const { created, goneCompanies } =
    toCreate.length > 0 ? await insertLeads(ctx, toCreate, refs, options) : { created: [], goneCompanies: [] };
  result.created = created.length;
  result.createdLeads = created.map((entry) => ({
    rowNumber: entry.row.rowNumber,
    leadId: entry.leadId,
    record: entry.record,
    ...(entry.lead ? { lead: entry.lead } : {}),
  }));
  const idByRow = new Map(created.map((entry) => [entry.row, entry.leadId]));
  // A company deleted between the read and the insert: refused as a company of another organization is.
  const gone = new Set(goneCompanies);
  for (const row of goneCompanies)
    result.errors.push({
      rowNumber: row.rowNumber,
      field: 'company_id',
      message: 'is not a company of this organization',
    });
  // Not inserted: a redelivered import row (its (job, row) key exists; nothing to report), or a
  // row whose email or profile URL a concurrent writer took after the read (reported as skipped).
  const lost = await holdersOf(
    ctx,
    plan.toCreate.filter((row) => !idByRow.has(row) && !gone.has(row) && keysOf(row, refs.profileKeys).length > 0),
  );
  result.skipped.push(...lost.map(({ skip }) => skip));
  const lostTo = new Map(lost.map(({ row, skip }) => [row, skip.leadId]));
  /** The lead a match names: a live lead, or the one its earlier row created (or lost to a concurrent writer). */
  const leadOf = (match: Match): { leadId: number; field: DedupeField; earlierRow?: number } | null => {
    const leadId =
      'lead' in match.target ? match.target.lead.id : (idByRow.get(match.target.row) ?? lostTo.get(match.target.row));
    if (leadId === undefined) return null;
    return { leadId, field: fieldOfKey(match.key), ...(match.by ? { earlierRow: match.by.rowNumber } : {}) };
  };
  for (const { row, match } of plan.repeats) {
    const named = leadOf(match);
    if (!named) continue;
    // Folded into the earlier row's insert (merge), unless that insert lost to a concurrent writer.
    if (options.onDuplicate === 'merge' && idByRow.has(match.target.row))
      result.merged.push({ rowNumber: row.rowNumber, ...named });
    else result.skipped.push({ rowNumber: row.rowNumber, ...named });
  }
  for (const { row, match, also } of plan.skipped) {
    const named = leadOf(match);
    const other = also && leadOf(also);
    if (named) result.skipped.push({ rowNumber: row.rowNumber, ...named, ...(other ? { alsoMatched: other } : {}) });
  }
  result.skipped.sort((a, b) => a.rowNumber - b.rowNumber);

  if (plan.merges.size > 0) {
    // The company each merged lead ends with (its rows folded, as the merge writes them): a company
    // named only by a row whose name a later row overrides is not created for nobody.
    const mergeInputs = new Map(
      [...plan.merges].map(([leadId, rows]) => [
        leadId,
        rows.slice(1).reduce((folded, row) => foldLeadInput(folded, row.input), rows[0].input),
      ]),
    );
    // The companies the leads move into are locked FOR SHARE before the leads (companies before
    // leads, as a company delete locks them), in one statement in id order: a delete under way
    // is waited for, and a company it removed is not linked. Until 2026-12-01 they were read
    // unlocked, and a merge could move a lead into a company a concurrent delete was removing.
    const held = await holdCompanies(
      ctx,
      [...mergeInputs.values()]
        .filter((input) => input.company_id == null && input.company)
        .map((input) => input.company as string),
      [...mergeInputs.values()].flatMap((input) => (input.company_id != null ? [input.company_id] : [])),
    );
    for (const [leadId, input] of mergeInputs) {
      if (input.company_id == null || held.ids.has(input.company_id)) continue;
      // Deleted since the read: its rows are refused as a company of another organization is.
      const rows = plan.merges.get(leadId) ?? [];
      const naming = rows.filter((row) => row.input.company_id === input.company_id);
      for (const row of naming.length > 0 ? naming : rows)
        result.errors.push({
          rowNumber: row.rowNumber,
          field: 'company_id',
          message: 'is not a company of this organization',
        });
      plan.merges.delete(leadId);
    }
    result.errors.sort((a, b) => a.rowNumber - b.rowNumber);
    const merge = await mergeIntoExistingLeads(ctx, plan.merges, { ...refs, companies: held.ids }, held.byName);
    result.updated = merge.updated;
    const rowsByNumber = new Map([...plan.merges.values()].flat().map((row) => [row.rowNumber, row]));
    for (const merged of merge.merged) {
      const row = rowsByNumber.get(merged.rowNumber) as BatchRow;
      const by = plan.mergedBy.get(row);
      const named = by ? leadOf(by) : null;
      result.merged.push(named ? { ...named, ...merged } : merged);
    }
    result.merged.sort((a, b) => a.rowNumber - b.rowNumber);
    // Merged leads notify apart from created ones (each is its own notification per assignee).
    await notifyLeadAssignments(ctx, merge.assignments);
  }
  return result;
}

/** Rows whose insert lost to a concurrent writer of the same email or profile URL: the lead that holds it now. */
async function holdersOf(ctx: TenantContext, rows: BatchRow[]): Promise<{ row: BatchRow; skip: SkippedRow }[]> {
  if (rows.length === 0) return [];
  const emails = rows.map((row) => emailKey(row.input.email)).filter((key): key is string => key !== null);
  const urls = rows.map((row) => row.input.profile_url).filter((url): url is string => !!url);
  const { holders, profileKeys } = await findLiveHolders(ctx, emails, urls);
  return rows.flatMap((row) => {
    const key = keysOf(row, profileKeys).find((candidate) => holders.has(candidate));
    const holder = key ? holders.get(key)?.[0] : undefined;
    return key && holder
      ? [{ row, skip: { rowNumber: row.rowNumber, leadId: holder.id, field: fieldOfKey(key) } }]
      : [];
  });
}

/** A batch result that settles its one row: a field error, a created lead or a merge. */
function settles(result: BatchResult): boolean {
  return result.errors.length > 0 || result.createdLeads.length > 0 || result.merged.length > 0;
}

/**
 * One lead by the caller's duplicate mode (POST /api/lead/add, POST /api/v1/lead, web forms). The
 * create is tried first in every mode (one read, one insert, no transaction); only a duplicate goes
 * on to its mode's path, which also settles a create lost to a concurrent writer: `merge` reads
 * again and merges in a transaction (a savepoint inside a request's), `create` inserts again as a
 * flagged duplicate. `skip` answers the first result (its `skipped` names the holder).
 */
export async function createOneLead(
  ctx: TenantContext,
  row: BatchRow,
  onDuplicate: BatchOptions['onDuplicate'],
  options: Pick<BatchOptions, 'context' | 'preferredStatus' | 'present'> = {},
): Promise<BatchResult> {
  const { context, preferredStatus, present } = options;
  const first = await createLeadsBatch(ctx, [row], {
    onDuplicate: onDuplicate === 'merge' ? 'skip' : onDuplicate,
    context,
    preferredStatus,
    present,
  });
  if (onDuplicate === 'skip' || settles(first)) return first;
  return onDuplicate === 'merge'
    ? ctx.db.transaction((tx) => createLeadsBatch({ ...ctx, db: tx }, [row], { onDuplicate, preferredStatus }))
    : createLeadsBatch(ctx, [row], { onDuplicate, preferredStatus, present });
}

/**
 * POST /api/lead/add: one lead, or 422 naming the field, or 409 `duplicate_lead` with the existing
 * id; with `merge` the holder updated instead (`merged`), with `create` a flagged duplicate.
 */
export async function createLead(
  ctx: TenantContext,
  input: AddLeadInput,
  onDuplicate: BatchOptions['onDuplicate'] = 'skip',
): Promise<{ merged: boolean; lead: LeadView }> {
  const result = await createOneLead(ctx, { rowNumber: 1, input }, onDuplicate, { present: true });
  if (result.errors.length > 0)
    throw new ValidationFailed(result.errors.map(({ field, message }) => ({ field, message })));
  const made = result.createdLeads[0];
  if (made) return { merged: false, lead: made.lead ?? (await readLead(ctx, made.leadId)) };
  if (result.merged[0]) return { merged: true, lead: await readLead(ctx, result.merged[0].leadId) };
  throw duplicateLead(result.skipped[0].leadId, result.skipped[0].field);
}
