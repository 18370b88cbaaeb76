/**
 * One page of CRM records written in the job's transaction, by the pipelines every other import
 * uses: contacts go through the spreadsheet import's row conversion (lookup labels, custom fields,
 * the lead rules of POST /api/lead/add) and the one lead creation path, `createLeadsBatch`, with
 * duplicates merged (by email and profile URL, as ingestion dedupes); a contact imported before
 * is found by its CRM record id first and updated. Companies go through the companies module's
 * import batch (found by CRM id, domain, then name). What is not a plain create or update becomes
 * an outcome row with the CRM record id.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { leads } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import type { CrmRecord } from '../../providers/crm/interface';
import { type CompanyImportField, importCompaniesBatch } from '../companies';
import { createIsolatingRejects, loadLookupLabels, rowToLeadInput } from '../imports';
import type { BatchRow } from '../leads';
import { type CrmMapping, cellsOf, leadColumnPlan } from './crm-mapping';

export interface RecordOutcome {
  objectType: 'contact' | 'company';
  externalId: string;
  outcome: 'error' | 'skipped' | 'merged';
  field: string | null;
  message: string;
  recordId: number | null;
}

export interface PageTally {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  outcomes: RecordOutcome[];
}

export interface NumberedRecord {
  rowNumber: number;
  record: CrmRecord;
}

function tallyOf(outcomes: RecordOutcome[], created: number, updated: number): PageTally {
  const failedRows = new Set(outcomes.filter((o) => o.outcome === 'error').map((o) => o.externalId));
  const skipped = outcomes.filter((o) => o.outcome === 'skipped').length;
  return { created, updated, skipped, failed: failedRows.size, outcomes };
}

export async function writeContactPage(
  ctx: TenantContext,
  source: string,
  mapping: CrmMapping,
  records: NumberedRecord[],
): Promise<PageTally> {
  const outcomes: RecordOutcome[] = [];
  const idOf = new Map(records.map(({ rowNumber, record }) => [rowNumber, record.id]));
  const outcome = (rowNumber: number, rest: Omit<RecordOutcome, 'objectType' | 'externalId'>) =>
    outcomes.push({ objectType: 'contact', externalId: idOf.get(rowNumber) ?? '', ...rest });
  if (records.length === 0) return tallyOf(outcomes, 0, 0);
  const labels = await loadLookupLabels(ctx);
  const plan = leadColumnPlan(mapping);
  const known = await ctx.db
    .select({ id: leads.id, externalId: leads.externalId })
    .from(leads)
    .where(
      and(
        eq(leads.organizationId, ctx.orgId),
        eq(leads.externalSource, source),
        inArray(
          leads.externalId,
          records.map(({ record }) => record.id),
        ),
        isNull(leads.deletedAt),
      ),
    );
  const holderOf = new Map(known.map((row) => [row.externalId as string, row.id]));
  const rows: BatchRow[] = [];
  for (const { rowNumber, record } of records) {
    const converted = rowToLeadInput(plan, cellsOf(record, mapping.lead), labels);
    if (!converted.ok) {
      for (const issue of converted.issues)
        outcome(rowNumber, {
          outcome: 'error',
          field: issue.field,
          message: `${issue.field}: ${issue.message}`,
          recordId: null,
        });
      continue;
    }
    rows.push({
      rowNumber,
      input: converted.input,
      external: { source, id: record.id },
      holderId: holderOf.get(record.id),
    });
  }
  const result = await createIsolatingRejects(ctx, rows, { onDuplicate: 'merge' });
  const holderRows = new Set(rows.filter((row) => row.holderId !== undefined).map((row) => row.rowNumber));
  for (const error of result.errors)
    outcome(error.rowNumber, {
      outcome: 'error',
      field: error.field,
      message: `${error.field}: ${error.message}`,
      recordId: null,
    });
  for (const skip of result.skipped)
    outcome(skip.rowNumber, {
      outcome: 'skipped',
      field: skip.field,
      message: `another lead (${skip.leadId}) already has this ${skip.field === 'email' ? 'email' : 'profile URL'}`,
      recordId: skip.leadId,
    });
  for (const merge of result.merged) {
    if (holderRows.has(merge.rowNumber)) continue; // Its own lead, imported before: a plain update.
    outcome(merge.rowNumber, {
      outcome: 'merged',
      field: null,
      message: 'the same person as an existing lead (same email or profile URL): merged into it',
      recordId: merge.leadId,
    });
  }
  outcomes.sort((a, b) => Number(a.externalId) - Number(b.externalId) || a.externalId.localeCompare(b.externalId));
  return tallyOf(outcomes, result.createdLeads.length, result.merged.length);
}

export async function writeCompanyPage(
  ctx: TenantContext,
  source: string,
  mapping: CrmMapping,
  records: NumberedRecord[],
): Promise<PageTally> {
  const idOf = new Map(records.map(({ rowNumber, record }) => [rowNumber, record.id]));
  const rows = records.map(({ rowNumber, record }) => ({
    rowNumber,
    externalId: record.id,
    values: Object.fromEntries(
      Object.entries(mapping.company).flatMap(([property, field]) => {
        const value = record.properties[property]?.trim();
        return value ? [[field, value]] : [];
      }),
    ) as Partial<Record<CompanyImportField, string>>,
  }));
  const result = await importCompaniesBatch(ctx, source, rows);
  const outcomes: RecordOutcome[] = [
    ...result.errors.map((error) => ({
      objectType: 'company' as const,
      externalId: idOf.get(error.rowNumber) ?? '',
      outcome: 'error' as const,
      field: error.field,
      message: error.message,
      recordId: null,
    })),
    ...result.skipped.map((skip) => ({
      objectType: 'company' as const,
      externalId: idOf.get(skip.rowNumber) ?? '',
      outcome: 'skipped' as const,
      field: null,
      message: skip.message,
      recordId: skip.companyId,
    })),
    ...result.merged.map((merge) => ({
      objectType: 'company' as const,
      externalId: idOf.get(merge.rowNumber) ?? '',
      outcome: 'merged' as const,
      field: null,
      message: 'the same company as another (same domain or name): merged into it',
      recordId: merge.companyId,
    })),
  ];
  return tallyOf(outcomes, result.created, result.updated);
}
