/**
 * GET /api/company/stats: over the companies matching the list filters, counts by industry, by
 * employee_size and by country, and the companies with the most leads with their lead and
 * contact counts, open deals and open pipeline value (deals of the company's live linked leads whose
 * outcome is open, by the company each deal carries). One statement: the filtered set is a CTE the aggregates all read;
 * contacts and deals are counted for the page of top companies only, so the cost is the companies, not their deals.
 */
import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { companies, companyDealCounts, companyLeadCounts, contacts } from '../../db/schema';
import { checkDateRange } from '../../core/list';
import type { TenantContext } from '../../db/tenant';
import { companyFilterWhere } from './filters';
import type { CompanyStatsQuery } from './schemas';

interface Bucket {
  value: string | null;
  count: number;
}

type StatsRow = {
  total: number | string;
  by_industry: Bucket[];
  by_employee_size: Bucket[];
  by_country: Bucket[];
  companies: {
    id: number | string;
    company_name: string;
    lead_count: number;
    contact_count: number;
    open_deal_count: number;
    open_pipeline_value: number | string;
  }[];
};

/** `[{value, count}]` of one column of the filtered set, most first, then by value (from the `buckets` CTE). */
function bucketsOf(kind: string) {
  return sql`(select coalesce(json_agg(json_build_object('value', value, 'count', n) order by n desc, value nulls last), '[]'::json)
    from buckets where kind = ${kind})`;
}

export async function companyStats(ctx: TenantContext, query: z.output<typeof CompanyStatsQuery>) {
  const { limit, ...filters } = query;
  checkDateRange(filters);
  const result = await ctx.db.execute<StatsRow>(sql`
    with filtered as (
      select ${companies.id} as id, ${companies.companyName} as company_name, ${companies.industryType} as industry_type,
        ${companies.industryKey} as industry_key, ${companies.employeeSize} as employee_size, ${companies.country} as country,
        lower(${companies.country}) as country_key
      from ${companies} where ${companyFilterWhere(ctx, filters)}
    ), buckets as (
      -- The total and the three breakdowns in one pass over the filtered set. An industry or a country
      -- is one value in any letter case (as the industry filter and similar companies compare them),
      -- shown in its most used spelling.
      select case when grouping(industry_key) = 0 then 'industry' when grouping(employee_size) = 0 then 'size'
          when grouping(country_key) = 0 then 'country' else 'total' end as kind,
        case when grouping(industry_key) = 0 then mode() within group (order by industry_type)
          when grouping(employee_size) = 0 then employee_size
          when grouping(country_key) = 0 then mode() within group (order by country) end as value,
        count(*)::int as n
      from filtered group by grouping sets ((industry_key), (employee_size), (country_key), ())
    ), lead_counts as (
      -- The live-lead rollup per company (kept by triggers on leads): the companies' counter rows, not
      -- their leads. All of the organization's (one or two per company), which the join below narrows:
      -- cheaper than matching each against the filtered set first.
      select company_id, sum(delta)::int as n from ${companyLeadCounts}
      where organization_id = ${ctx.orgId}
      group by company_id
    ), top as (
      -- The page of companies with the most leads: only these need contacts and deals counted.
      select f.id, f.company_name, coalesce(l.n, 0) as lead_count
      from filtered f left join lead_counts l on l.company_id = f.id
      order by lead_count desc, f.id limit ${limit}
    ), contact_counts as (
      select company_id, count(*)::int as n from ${contacts}
      where organization_id = ${ctx.orgId} and deleted_at is null and company_id in (select id from top)
      group by company_id
    ), deal_sums as (
      -- Open deals of the companies' live leads, from the rollup of deals by the company they carry
      -- (company_deal_counts, kept by triggers on deals).
      select r.company_id, sum(r.delta)::int as n, sum(r.value_sum) as v
      from ${companyDealCounts} r
      where r.organization_id = ${ctx.orgId} and r.outcome = 'open' and r.company_id in (select id from top)
      group by r.company_id
    )
    select
      (select n from buckets where kind = 'total') as total,
      ${bucketsOf('industry')} as by_industry,
      ${bucketsOf('size')} as by_employee_size,
      ${bucketsOf('country')} as by_country,
      (select coalesce(json_agg(json_build_object('id', id, 'company_name', company_name, 'lead_count', lead_count, 'contact_count', contact_count,
          'open_deal_count', open_deal_count, 'open_pipeline_value', open_pipeline_value)
          order by lead_count desc, id), '[]'::json)
        from (
          select t.id, t.company_name, t.lead_count, coalesce(c.n, 0) as contact_count,
            coalesce(ds.n, 0) as open_deal_count, coalesce(ds.v, 0) as open_pipeline_value
          from top t left join contact_counts c on c.company_id = t.id left join deal_sums ds on ds.company_id = t.id
        ) as ranked) as companies`);
  const row = result.rows[0];
  return {
    total: Number(row.total),
    by_industry: row.by_industry,
    by_employee_size: row.by_employee_size,
    by_country: row.by_country,
    companies: row.companies.map((company) => ({
      ...company,
      id: Number(company.id),
      open_pipeline_value: Number(company.open_pipeline_value),
    })),
  };
}
