/**
 * Apollo's People Enrichment ("people match"): POST https://api.apollo.io/api/v1/people/match
 * with what is known as query parameters (email, name, first_name/last_name, organization_name,
 * domain, linkedin_url; personal emails and phone numbers are not asked for), the key in the
 * `x-api-key` header. The answer's `person` (null when Apollo found no one) gives the name,
 * title, profile URL, location and `organization` (name, primary domain, website, industry,
 * estimated headcount). Each value is marked `apollo`. The local provider's derivations (free or
 * disposable mail, phone country, the organization's own company) are merged under Apollo's.
 */
import { expectOk, providerFetch } from '../failures';
import type {
  EnrichedProfile,
  EnrichmentContext,
  EnrichmentProvider,
  EnrichmentQuery,
  ProfileFields,
} from './interface';
import { enrichLocally } from './local';

export const APOLLO_PEOPLE_MATCH_URL = 'https://api.apollo.io/api/v1/people/match';

interface ApolloOrganization {
  name?: string | null;
  website_url?: string | null;
  primary_domain?: string | null;
  industry?: string | null;
  estimated_num_employees?: number | null;
  country?: string | null;
}

interface ApolloPerson {
  first_name?: string | null;
  last_name?: string | null;
  title?: string | null;
  email?: string | null;
  linkedin_url?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  organization?: ApolloOrganization | null;
}

/** The request's query parameters, from what is known. */
export function apolloParameters(query: EnrichmentQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.email) params.set('email', query.email);
  if (query.name) params.set('name', query.name);
  if (query.company) params.set('organization_name', query.company);
  if (query.domain) params.set('domain', query.domain);
  if (query.profile_url) params.set('linkedin_url', query.profile_url);
  params.set('reveal_personal_emails', 'false');
  params.set('reveal_phone_number', 'false');
  return params;
}

function fieldsOfPerson(person: ApolloPerson, at: string): ProfileFields {
  const fields: ProfileFields = {};
  const put = (field: keyof ProfileFields, value: string | number | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') fields[field] = { value, source: 'apollo', at };
  };
  const organization = person.organization ?? {};
  put('first_name', person.first_name);
  put('last_name', person.last_name);
  put('job_title', person.title);
  put('email', person.email);
  put('profile_url', person.linkedin_url);
  put('city', person.city);
  put('state', person.state);
  put('country', person.country ?? organization.country);
  put('company', organization.name);
  put('company_domain', organization.primary_domain);
  put('website', organization.website_url);
  put('industry', organization.industry);
  put('employee_count', organization.estimated_num_employees);
  return fields;
}

export function apolloEnrichment(apiKey: string): EnrichmentProvider {
  return {
    name: 'apollo',
    async enrich(query: EnrichmentQuery, context: EnrichmentContext): Promise<EnrichedProfile> {
      const response = await expectOk(
        'apollo',
        await providerFetch('apollo', `${APOLLO_PEOPLE_MATCH_URL}?${apolloParameters(query)}`, {
          method: 'POST',
          headers: {
            'x-api-key': apiKey,
            'content-type': 'application/json',
            'cache-control': 'no-cache',
            accept: 'application/json',
          },
        }),
        'people match',
      );
      const body = (await response.json().catch(() => ({}))) as { person?: ApolloPerson | null };
      const local = await enrichLocally(query, context);
      const found = body.person ? fieldsOfPerson(body.person, context.now.toISOString()) : {};
      // Apollo's values first; what only the local rules know (free mail, phone, the own company) stays.
      return { provider: 'apollo', local: false, fields: { ...local.fields, ...found } };
    },
  };
}
