/**
 * What can be said about a company offline, from the organization's own data: its domain (the
 * website's; else its contact email's; else the most common work-email domain of its linked
 * leads and contacts), and, from the leads and contacts at that domain or linked to it, the most
 * common industry, country and city of those leads and the most common headcount band their
 * custom fields hint at (keys employee_size, employees, company_size, headcount,
 * employee_count). Nothing is guessed: a value no evidence supports is reported as unresolved.
 */
import { contacts, leads } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { bandOfHint, EMPLOYEE_SIZES, type EmployeeSize, FREE_MAIL_DOMAINS, websiteDomain } from './firmographics';

/** The fields enrichment may fill, each an evaluation step of the job. */
export const ENRICHABLE_FIELDS = ['website', 'industry_type', 'country', 'city', 'employee_size'] as const;
export type EnrichableField = (typeof ENRICHABLE_FIELDS)[number];

export interface DerivedValue {
  value: string;
  source: string;
}

export interface Derivation {
  domain: (DerivedValue & { from: string }) | null;
  values: Partial<Record<EnrichableField, DerivedValue>>;
  unresolved: Partial<Record<EnrichableField, string>>;
  evidence: { leads: number; contacts: number };
}

interface CompanyFacts {
  id: number;
  orgId: number;
  website: string | null;
  websiteDomain: string | null;
  contactEmail: string | null;
}

const emailDomain = (column: string) => sql.raw(`lower(split_part(${column}, '@', 2))`);
/** A lead's website reduced to its domain in SQL, as websiteDomain() does in TypeScript. */
const leadWebsiteDomain = sql.raw(
  `regexp_replace(lower(coalesce(website, '')), '^([a-z][a-z0-9+.-]*://)?(www\\.)?([^/:?#]*).*$', '\\3')`,
);

function domainOfEmail(email: string | null): string | null {
  const domain = email?.split('@')[1]?.toLowerCase() ?? null;
  return domain && !(FREE_MAIL_DOMAINS as readonly string[]).includes(domain) ? domain : null;
}

async function peopleDomain(tx: Transaction, company: CompanyFacts): Promise<string | null> {
  const result = await tx.execute<{ domain: string }>(sql`
    select domain from (
      select ${emailDomain('email')} as domain from ${leads}
      where organization_id = ${company.orgId} and deleted_at is null and company_id = ${company.id} and email is not null
      union all
      select ${emailDomain('email')} from ${contacts}
      where organization_id = ${company.orgId} and deleted_at is null and company_id = ${company.id} and email is not null
    ) as emails
    where domain <> '' and not (domain = any(${sql.param([...FREE_MAIL_DOMAINS])}::text[]))
    group by domain order by count(*) desc, domain limit 1`);
  return result.rows[0]?.domain ?? null;
}

type Evidence = {
  leads: number;
  contacts: number;
  industry: string | null;
  country: string | null;
  city: string | null;
  hints: unknown[];
};

/** The most common non-empty value of a column of the people leads. */
const commonest = (column: string) =>
  sql.raw(`(select ${column} from people_leads where coalesce(${column}, '') <> '' group by ${column}
    order by count(*) desc, ${column} limit 1)`);

async function gatherEvidence(tx: Transaction, company: CompanyFacts, domain: string | null): Promise<Evidence> {
  const result = await tx.execute<Evidence>(sql`
    with people_leads as (
      select industry, country, city, custom_fields from ${leads}
      where organization_id = ${company.orgId} and deleted_at is null
        and (company_id = ${company.id} or (${domain}::text is not null
          and (${emailDomain('email')} = ${domain}::text or ${leadWebsiteDomain} = ${domain}::text)))
    ), people_contacts as (
      select id from ${contacts}
      where organization_id = ${company.orgId} and deleted_at is null
        and (company_id = ${company.id} or (${domain}::text is not null and ${emailDomain('email')} = ${domain}::text))
    )
    select
      (select count(*)::int from people_leads) as leads,
      (select count(*)::int from people_contacts) as contacts,
      ${commonest('industry')} as industry,
      ${commonest('country')} as country,
      ${commonest('city')} as city,
      (select coalesce(json_agg(hint), '[]'::json) from (
        select coalesce(custom_fields->'employee_size', custom_fields->'employees', custom_fields->'company_size',
          custom_fields->'headcount', custom_fields->'employee_count') as hint from people_leads
      ) as hints where hint is not null) as hints`);
  return result.rows[0];
}

/** The most common band among the hints that read as one; ties go to the larger band. */
function commonestBand(hints: unknown[]): string | null {
  const counts = new Map<EmployeeSize, number>();
  for (const hint of hints) {
    const band = bandOfHint(hint);
    if (band) counts.set(band, (counts.get(band) ?? 0) + 1);
  }
  const order = (band: EmployeeSize) => EMPLOYEE_SIZES.indexOf(band);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || order(b[0]) - order(a[0]));
  return ranked[0]?.[0] ?? null;
}

export async function deriveFirmographics(tx: Transaction, company: CompanyFacts): Promise<Derivation> {
  let domain: Derivation['domain'] = null;
  const fromWebsite = company.websiteDomain ?? websiteDomain(company.website);
  const fromContactEmail = domainOfEmail(company.contactEmail);
  if (fromWebsite) domain = { value: fromWebsite, source: 'website', from: 'website' };
  else if (fromContactEmail) domain = { value: fromContactEmail, source: 'contact_email', from: 'contact_email' };
  else {
    const fromPeople = await peopleDomain(tx, company);
    if (fromPeople) domain = { value: fromPeople, source: 'linked_people_email_domain', from: 'emails' };
  }
  const evidence = await gatherEvidence(tx, company, domain?.value ?? null);
  const values: Derivation['values'] = {};
  const unresolved: Derivation['unresolved'] = {};
  const people = `${evidence.leads} lead(s) and ${evidence.contacts} contact(s)`;

  if (domain && domain.from !== 'website') values.website = { value: domain.value, source: domain.source };
  else if (!domain) unresolved.website = 'no website, contact email or work email of a linked lead or contact';
  const fromLeads = (field: 'industry_type' | 'country' | 'city', value: string | null, label: string) => {
    if (value) values[field] = { value, source: 'leads_at_domain' };
    else unresolved[field] = `none of the ${people} at the domain or linked to the company has a ${label}`;
  };
  fromLeads('industry_type', evidence.industry, 'industry');
  fromLeads('country', evidence.country, 'country');
  fromLeads('city', evidence.city, 'city');
  const band = commonestBand(evidence.hints);
  if (band) values.employee_size = { value: band, source: 'lead_headcount_hints' };
  else unresolved.employee_size = `no headcount hint in the custom fields of the ${people}`;
  return { domain, values, unresolved, evidence: { leads: evidence.leads, contacts: evidence.contacts } };
}
