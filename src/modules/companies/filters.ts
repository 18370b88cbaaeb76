/**
 * The one company filter builder: the list, the stats, and the bulk delete (select_all +
 * filters) turn the same filter object into the same SQL.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern, dateRange, listParamsShape } from '../../core/list';
import { booleanFlag, idList } from '../../core/schemas';
import { companies } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';

export const companyFilterShape = {
  search_value: listParamsShape.search_value,
  start_date: listParamsShape.start_date,
  end_date: listParamsShape.end_date,
  my: booleanFlag.openapi({ description: '`true`: only companies the caller created or is assigned to' }),
  company_id: idList('Company ids, comma-separated'),
  industry: z
    .string()
    .trim()
    .max(200, 'must be at most 200 characters')
    .optional()
    .openapi({ description: 'Industry (case-insensitive, exact)', example: 'Software' }),
};

export const companyFiltersObject = z
  .object(companyFilterShape)
  .strict()
  .openapi('CompanyFilters', {
    description:
      'Company filters, the same as the query parameters of GET /api/company/list; all given filters must match (AND). Unknown keys are refused',
    example: { industry: 'Software', my: 'true' },
  });
export type CompanyFilters = z.output<typeof companyFiltersObject>;

/** What search_value matches: name, website domain, industry, city and country (substring, any case). */
export function companySearch(term: string): SQL {
  const pattern = containsPattern(term);
  return sql`(${companies.companyName} ilike ${pattern} or ${companies.websiteDomain} ilike ${pattern} or ${companies.industryType} ilike ${pattern} or ${companies.city} ilike ${pattern} or ${companies.country} ilike ${pattern})`;
}

/** Every company filter as one WHERE: always the caller's organization and live companies only. */
export function companyFilterWhere(ctx: Pick<TenantContext, 'orgId' | 'userId'>, filters: CompanyFilters): SQL {
  const f = filters;
  const mine =
    ctx.userId === null ? sql`false` : or(eq(companies.createdBy, ctx.userId), eq(companies.assignedTo, ctx.userId));
  return and(
    eq(companies.organizationId, ctx.orgId),
    isNull(companies.deletedAt),
    f.search_value ? companySearch(f.search_value) : undefined,
    dateRange(companies.createdAt, f),
    f.my ? mine : undefined,
    f.company_id ? sql`${companies.id} = any(${sql.param(f.company_id)}::bigint[])` : undefined,
    f.industry ? sql`${companies.industryKey} = lower(${f.industry}::text)` : undefined,
  ) as SQL;
}
