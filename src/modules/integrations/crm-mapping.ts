/**
 * A CRM import's mapping, checked before the job is queued against both sides: each key must be
 * a property of the CRM's contacts (lead side) or companies (company side), as the CRM lists them
 * now; each value a field the spreadsheet import may set on a lead (the lead field table, plus
 * `full_name` and `custom_fields.<key>`) or a company field an import may set. Every bad entry is
 * a 422 detail naming it (`mapping.lead.<property>`), all at once.
 */
import { ValidationFailed, type FieldIssue } from '../../core/errors';
import { COMPANY_IMPORT_FIELDS } from '../companies';
import { type ColumnPlan, LEAD_IMPORT_FIELDS } from '../imports';
import type { CrmObjectType, CrmProvider, CrmRecord } from '../../providers/crm/interface';

export interface CrmMapping {
  lead: Record<string, string>;
  company: Record<string, string>;
}

const CUSTOM_PREFIX = 'custom_fields.';
const LEAD_TARGETS = new Set<string>([...LEAD_IMPORT_FIELDS, 'full_name']);
const COMPANY_TARGETS = new Set<string>(COMPANY_IMPORT_FIELDS);

function leadTargetIssue(field: string): string | null {
  if (LEAD_TARGETS.has(field)) return null;
  if (field.startsWith(CUSTOM_PREFIX) && field.length > CUSTOM_PREFIX.length) return null;
  return `"${field.slice(0, 100)}" is not a lead field an import may set (one of: ${[...LEAD_TARGETS].join(', ')}, custom_fields.<key>)`;
}

function sideIssues(
  side: 'lead' | 'company',
  entries: Record<string, string>,
  properties: Set<string>,
  targetIssue: (field: string) => string | null,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Map<string, string>();
  for (const [property, field] of Object.entries(entries)) {
    const path = `mapping.${side}.${property}`;
    if (!properties.has(property)) {
      issues.push({
        field: path,
        message: `"${property.slice(0, 100)}" is not a property of the CRM's ${side === 'lead' ? 'contacts' : 'companies'}`,
      });
      continue;
    }
    const issue = targetIssue(field);
    if (issue) issues.push({ field: path, message: issue });
    else if (seen.has(field))
      issues.push({ field: path, message: `maps to ${field}, which ${seen.get(field)} already fills` });
    else seen.set(field, property);
  }
  const targets = new Set(Object.values(entries));
  if (
    side === 'lead' &&
    Object.keys(entries).length > 0 &&
    !targets.has('full_name') &&
    !(targets.has('first_name') && targets.has('last_name'))
  ) {
    issues.push({
      field: 'mapping.lead',
      message: 'must fill first_name and last_name (or full_name): every lead has them',
    });
  }
  if (side === 'company' && Object.keys(entries).length > 0 && !targets.has('company_name')) {
    issues.push({ field: 'mapping.company', message: 'must fill company_name: every company has one' });
  }
  return issues;
}

/** The mapping, checked against the CRM's properties (one provider call per side mapped); 422 listing every bad entry. */
export async function checkMapping(provider: CrmProvider, given: Partial<CrmMapping>): Promise<CrmMapping> {
  const mapping: CrmMapping = { lead: given.lead ?? {}, company: given.company ?? {} };
  if (Object.keys(mapping.lead).length === 0 && Object.keys(mapping.company).length === 0) {
    throw ValidationFailed.field('mapping', 'must map at least one property (lead or company)');
  }
  const namesOf = async (type: CrmObjectType, entries: Record<string, string>) =>
    Object.keys(entries).length === 0
      ? new Set<string>()
      : new Set((await provider.properties(type)).map((p) => p.name));
  const [contactProperties, companyProperties] = await Promise.all([
    namesOf('contacts', mapping.lead),
    namesOf('companies', mapping.company),
  ]);
  const issues = [
    ...sideIssues('lead', mapping.lead, contactProperties, leadTargetIssue),
    ...sideIssues('company', mapping.company, companyProperties, (field) =>
      COMPANY_TARGETS.has(field)
        ? null
        : `"${field.slice(0, 100)}" is not a company field an import may set (one of: ${COMPANY_IMPORT_FIELDS.join(', ')})`,
    ),
  ];
  if (issues.length > 0) throw new ValidationFailed(issues);
  return mapping;
}

/** The spreadsheet import's column plan for the lead side: one column per mapped property, in mapping order. */
export function leadColumnPlan(mapping: CrmMapping): ColumnPlan[] {
  return Object.values(mapping.lead).map((field): ColumnPlan => {
    if (field === 'full_name') return { kind: 'full_name' };
    if (field.startsWith(CUSTOM_PREFIX)) return { kind: 'custom', key: field.slice(CUSTOM_PREFIX.length) };
    return { kind: 'field', field: field as Extract<ColumnPlan, { kind: 'field' }>['field'] };
  });
}

/** A record's values for the plan's columns (its cells, as a spreadsheet row would give them). */
export function cellsOf(record: CrmRecord, entries: Record<string, string>): string[] {
  return Object.keys(entries).map((property) => record.properties[property] ?? '');
}
