/**
 * GET /api/company/similar/{id}: the organization's other live companies ranked by a documented
 * similarity to this one, each with the reasons it matched. Points (at most 10, score = points / 10):
 *   - same industry_type (any letter case): 3
 *   - same employee_size band: 2; the adjacent band: 1
 *   - same country (any letter case): 1
 *   - each shared technology (any letter case): 1, at most 3
 *   - each shared summary keyword (a word of 4+ letters or digits, stop words left out): 0.5, at most 1
 * Companies scoring 0 are left out; ties go to the lower id. One statement.
 */
import { companies } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { EMPLOYEE_SIZES } from './firmographics';

export const SIMILARITY_POINTS = {
  industry: 3,
  sameBand: 2,
  adjacentBand: 1,
  country: 1,
  technology: 1,
  maxTechnologies: 3,
  keyword: 0.5,
  maxKeywords: 2,
  max: 10,
} as const;

/** Words too common to say two companies are alike. */
const STOP_WORDS = [
  'about',
  'also',
  'been',
  'company',
  'companies',
  'from',
  'have',
  'into',
  'more',
  'most',
  'only',
  'other',
  'over',
  'such',
  'than',
  'that',
  'their',
  'them',
  'they',
  'this',
  'very',
  'were',
  'what',
  'which',
  'will',
  'with',
  'your',
];

type SimilarRow = {
  target_id: number | string;
  id: number | string | null;
  company_name: string;
  industry_type: string | null;
  employee_size: string | null;
  country: string | null;
  same_industry: boolean;
  band_gap: number | null;
  same_country: boolean;
  shared_technologies: string[];
  shared_keywords: string[];
  points: string | number;
};

function reasonsOf(row: SimilarRow): string[] {
  const reasons: string[] = [];
  if (row.same_industry) reasons.push(`same industry: ${row.industry_type}`);
  if (row.band_gap === 0) reasons.push(`same size band: ${row.employee_size}`);
  if (row.band_gap === 1) reasons.push(`adjacent size band: ${row.employee_size}`);
  if (row.same_country) reasons.push(`same country: ${row.country}`);
  if (row.shared_technologies.length > 0) reasons.push(`shared technologies: ${row.shared_technologies.join(', ')}`);
  if (row.shared_keywords.length > 0) reasons.push(`shared summary keywords: ${row.shared_keywords.join(', ')}`);
  return reasons;
}

export async function similarCompanies(ctx: TenantContext, id: number, limit: number) {
  const p = SIMILARITY_POINTS;
  const words = (summary: string) => sql.raw(`regexp_split_to_table(lower(coalesce(${summary}, '')), '[^[:alnum:]]+')`);
  const result = await ctx.db.execute<SimilarRow>(sql`
    with target as (
      select id, lower(industry_type) as industry, employee_size, lower(country) as country,
        array(select distinct lower(t) from unnest(technologies) as t) as technologies,
        array(select distinct w from ${words('summary')} as w where length(w) >= 4 and not (w = any(${sql.param(STOP_WORDS)}::text[]))) as keywords
      from ${companies} where organization_id = ${ctx.orgId} and id = ${id} and deleted_at is null
    ), scored as (
      select c.id, c.company_name, c.industry_type, c.employee_size, c.country,
        coalesce(lower(c.industry_type) = t.industry, false) as same_industry,
        abs(array_position(${sql.param([...EMPLOYEE_SIZES])}::text[], c.employee_size) - array_position(${sql.param([...EMPLOYEE_SIZES])}::text[], t.employee_size)) as band_gap,
        coalesce(lower(c.country) = t.country, false) as same_country,
        array(select distinct lower(x) from unnest(c.technologies) as x where lower(x) = any(t.technologies) order by 1) as shared_technologies,
        array(select distinct w from ${words('c.summary')} as w where w = any(t.keywords) order by 1) as shared_keywords
      from ${companies} c cross join target t
      where c.organization_id = ${ctx.orgId} and c.deleted_at is null and c.id <> t.id
    ), ranked as (
      select *, (
        case when same_industry then ${p.industry} else 0 end
        + case band_gap when 0 then ${p.sameBand} when 1 then ${p.adjacentBand} else 0 end
        + case when same_country then ${p.country} else 0 end
        + least(cardinality(shared_technologies), ${p.maxTechnologies}) * ${p.technology}
        + least(cardinality(shared_keywords), ${p.maxKeywords}) * ${p.keyword}::numeric
      ) as points from scored
    )
    select t.id as target_id, r.* from target t
    left join lateral (select * from ranked where points > 0 order by points desc, id limit ${limit}) as r on true`);
  if (result.rows.length === 0) throw new NotFound('Company', id);
  return result.rows
    .filter((row) => row.id !== null)
    .map((row) => ({
      id: Number(row.id),
      company_name: row.company_name,
      industry_type: row.industry_type,
      employee_size: row.employee_size,
      country: row.country,
      score: Math.round((Number(row.points) / p.max) * 100) / 100,
      reasons: reasonsOf(row),
    }));
}
