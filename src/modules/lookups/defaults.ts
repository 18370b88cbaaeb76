/**
 * Lookup vocabulary and the defaults every organization gets at signup.
 *
 * `module_name` names the resource a lookup belongs to ('lead'); `type` names the field it
 * feeds: 'status' (Lead.status holds the lookup's `value`), 'source' (Lead.lead_source),
 * 'priority' (Lead.priority) and 'tags' (Lead.tags hold lookup ids). Values are per
 * organization; status/source/priority lookups always carry a value, tags need none.
 */
import { lookups } from '../../db/schema';
import type { Transaction } from '../../db/client';

export const LEAD_LOOKUP_MODULE = 'lead';
export const LEAD_LOOKUP_TYPES = ['status', 'source', 'priority', 'tags'] as const;
export type LeadLookupType = (typeof LEAD_LOOKUP_TYPES)[number];

/**
 * The spec's spelling: lead statuses are "defined by lookup records (module `status`)". Here they
 * are module `lead` of type `status`; `module_name=status` (likewise `source`, `priority`) means that.
 */
export const LEAD_LOOKUP_MODULE_ALIASES: readonly string[] = ['status', 'source', 'priority'];

/**
 * The stored (module_name, type) a request names: an alias becomes `lead` and its type. `conflict`
 * when a `type` given along an alias names another type.
 */
export function canonicalLookupKey(
  moduleName: string | undefined,
  type: string | undefined,
): { module_name: string | undefined; type: string | undefined; conflict: boolean } {
  if (!moduleName || !LEAD_LOOKUP_MODULE_ALIASES.includes(moduleName)) {
    return { module_name: moduleName, type, conflict: false };
  }
  return { module_name: LEAD_LOOKUP_MODULE, type: moduleName, conflict: type !== undefined && type !== moduleName };
}

/** Types whose lookups are referenced by `value`, which is therefore required and unique. */
export const VALUED_TYPES: readonly string[] = ['status', 'source', 'priority'];

interface DefaultLookup {
  type: LeadLookupType;
  name: string;
  value: number | null;
  colorCode: string;
}

const statuses: DefaultLookup[] = [
  ['New', '#3B82F6'],
  ['Contacted', '#06B6D4'],
  ['Qualified', '#10B981'],
  ['Unqualified', '#6B7280'],
  ['Converted', '#22C55E'],
  ['Lost', '#EF4444'],
].map(([name, colorCode], index) => ({ type: 'status', name, value: index + 1, colorCode }));

const sources: DefaultLookup[] = ['Website', 'Referral', 'Social profile', 'Email', 'Direct'].map((name, index) => ({
  type: 'source',
  name,
  value: index + 1,
  colorCode: '#64748B',
}));

const priorities: DefaultLookup[] = [
  ['Low', '#94A3B8'],
  ['Medium', '#3B82F6'],
  ['High', '#F59E0B'],
  ['Urgent', '#EF4444'],
].map(([name, colorCode], index) => ({ type: 'priority', name, value: index + 1, colorCode }));

const tags: DefaultLookup[] = [
  ['Hot', '#EF4444'],
  ['Cold', '#3B82F6'],
  ['VIP', '#A855F7'],
  ['Partner', '#10B981'],
].map(([name, colorCode]) => ({ type: 'tags', name, value: null, colorCode }));

export const DEFAULT_LEAD_LOOKUPS: readonly DefaultLookup[] = [...statuses, ...sources, ...priorities, ...tags];

export async function seedDefaultLookups(tx: Transaction, organizationId: number): Promise<void> {
  await tx.insert(lookups).values(
    DEFAULT_LEAD_LOOKUPS.map((lookup) => ({
      organizationId,
      moduleName: LEAD_LOOKUP_MODULE,
      type: lookup.type,
      name: lookup.name,
      value: lookup.value,
      colorCode: lookup.colorCode,
    })),
  );
}
