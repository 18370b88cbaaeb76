/**
 * The one contact filter builder: the list, the bulk update and the bulk delete (select_all +
 * filters) turn the same filter object into the same SQL, so they never disagree.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { containsPattern, dateRange, listParamsShape } from '../../core/list';
import { booleanFlag, idList } from '../../core/schemas';
import { contacts } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';

/** `lead_score`: a whole number ("70" in a query string). */
const scoreFilter = z
  .union([z.number(), z.string().trim().max(10)])
  .transform((value, ctx) => {
    const parsed = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 100) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number from 0 to 100' });
      return z.NEVER;
    }
    return parsed;
  })
  .optional()
  .openapi({ description: 'Lead score equal to this (0 to 100)', type: 'integer' });

/** `tags`: "vip,emea" in a query string; in JSON bodies also an array. */
const tagFilter = z
  .union([z.string().max(2_600), z.array(z.string().max(50)).max(50)])
  .transform((value, ctx) => {
    const tags = (Array.isArray(value) ? value : value.split(',')).map((tag) => tag.trim()).filter(Boolean);
    if (tags.length === 0 || tags.length > 50 || tags.some((tag) => tag.length > 50)) {
      ctx.addIssue({ code: 'custom', message: 'must be 1 to 50 comma-separated tags of at most 50 characters' });
      return z.NEVER;
    }
    return tags;
  })
  .optional()
  .openapi({ description: 'Tags, comma-separated: a contact matches when it has any of them', type: 'string' });

export const contactFilterShape = {
  search_value: listParamsShape.search_value,
  start_date: listParamsShape.start_date,
  end_date: listParamsShape.end_date,
  my: booleanFlag.openapi({ description: '`true`: only contacts the caller created' }),
  company_id: idList('Company ids, comma-separated'),
  lead_score: scoreFilter,
  tags: tagFilter,
};

export const contactFiltersObject = z
  .object(contactFilterShape)
  .strict()
  .openapi('ContactFilters', {
    description:
      'Contact filters, the same as the query parameters of GET /api/contact/list; all given filters must match (AND). Unknown keys are refused',
    example: { company_id: '3', tags: 'vip' },
  });
export type ContactFilters = z.output<typeof contactFiltersObject>;

/** What search_value matches: name, email, phone number and designation (substring, any case). */
export function contactSearch(term: string): SQL {
  const pattern = containsPattern(term);
  return sql`(${contacts.name} ilike ${pattern} or ${contacts.email} ilike ${pattern} or ${contacts.phoneNumber} ilike ${pattern} or ${contacts.designation} ilike ${pattern})`;
}

/** Every contact filter as one WHERE: always the caller's organization and live contacts only. */
export function contactFilterWhere(ctx: Pick<TenantContext, 'orgId' | 'userId'>, filters: ContactFilters): SQL {
  const f = filters;
  return and(
    eq(contacts.organizationId, ctx.orgId),
    isNull(contacts.deletedAt),
    f.search_value ? contactSearch(f.search_value) : undefined,
    dateRange(contacts.createdAt, f),
    f.my ? (ctx.userId === null ? sql`false` : eq(contacts.createdBy, ctx.userId)) : undefined,
    f.company_id ? sql`${contacts.companyId} = any(${sql.param(f.company_id)}::bigint[])` : undefined,
    f.lead_score !== undefined ? eq(contacts.leadScore, f.lead_score) : undefined,
    f.tags ? sql`${contacts.tags} && ${sql.param(f.tags)}::text[]` : undefined,
  ) as SQL;
}
