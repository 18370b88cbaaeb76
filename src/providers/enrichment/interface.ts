/**
 * What the rest of the code may ask of an enrichment provider: a profile of one person from what
 * is known of them. Each provider (local.ts offline, apollo.ts over HTTP) speaks its own wire
 * format behind this; failures are ProviderFailure (providers/failures.ts). Every value carries
 * its source and the time it was found, so a lead shows where each enriched value came from.
 */

/** The providers an organization may enrich with. */
export const ENRICHMENT_PROVIDERS = ['local', 'apollo'] as const;
export type EnrichmentProviderName = (typeof ENRICHMENT_PROVIDERS)[number];

/** What is known of the person (at least one of email, profile_url, name, company, domain). */
export interface EnrichmentQuery {
  email?: string | null;
  profile_url?: string | null;
  name?: string | null;
  company?: string | null;
  domain?: string | null;
  phone_number?: string | null;
}

/** The fields a profile may hold. */
export const PROFILE_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'job_title',
  'company',
  'company_id',
  'company_domain',
  'website',
  'industry',
  'employee_size',
  'employee_count',
  'country',
  'city',
  'state',
  'profile_url',
  'phone_country',
  'phone_line_type',
  'free_email',
  'disposable_email',
] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

export interface EnrichedValue {
  value: string | number | boolean;
  /** Where it came from: `local:<rule>` or the provider's name. */
  source: string;
  /** When it was found (ISO 8601). */
  at: string;
}

export type ProfileFields = Partial<Record<ProfileField, EnrichedValue>>;

export interface EnrichedProfile {
  provider: EnrichmentProviderName;
  /** True when no outside service was asked (the local provider). */
  local: boolean;
  fields: ProfileFields;
}

/** One of the organization's own companies, matched by its website's domain. */
export interface CompanyMatch {
  id: number;
  name: string;
  industry: string | null;
  country: string | null;
  employeeSize: string | null;
}

export interface EnrichmentContext {
  /** The organization's live company at this domain, if any. */
  matchCompany(domain: string): Promise<CompanyMatch | null>;
  now: Date;
}

export interface EnrichmentProvider {
  name: EnrichmentProviderName;
  enrich(query: EnrichmentQuery, context: EnrichmentContext): Promise<EnrichedProfile>;
}
