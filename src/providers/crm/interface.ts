/**
 * What the rest of the code may ask of a third-party CRM (HubSpot, or the local data set): who
 * the credential belongs to, the properties of contacts and companies, and one page of records
 * with an explicit property list. Paging is the CRM's own cursor, kept by the import job as its
 * checkpoint, so a job resumes where its last committed page ended.
 */
export const CRM_PROVIDERS = ['hubspot', 'local'] as const;
export type CrmProviderName = (typeof CRM_PROVIDERS)[number];

export const CRM_OBJECT_TYPES = ['contacts', 'companies'] as const;
export type CrmObjectType = (typeof CRM_OBJECT_TYPES)[number];

export interface CrmProperty {
  name: string;
  label: string;
  /** The CRM's value type: string, number, date, datetime, enumeration, bool, phone_number. */
  type: string;
}

export interface CrmRecord {
  /** The CRM's record id (HubSpot's `hs_object_id`), kept on the lead or company as its external id. */
  id: string;
  /** Values of the properties asked for; an absent or empty one is null. */
  properties: Record<string, string | null>;
  /** When the record last changed in the CRM (ISO 8601). */
  updatedAt: string | null;
}

export interface CrmPage {
  records: CrmRecord[];
  /** The cursor of the next page; null on the last one. */
  next: string | null;
  /** How many records the object type holds, when the CRM says (the local set does; HubSpot's list does not). */
  total: number | null;
}

export interface CrmPageRequest {
  /** The cursor of a previous page's `next`; absent for the first page. */
  after?: string | null;
  /** Records per page, at most 100 (HubSpot's limit). */
  limit: number;
  properties: string[];
}

export interface CrmProvider {
  readonly name: CrmProviderName;
  /** One call that proves the credential: the account it opens (HubSpot: the portal). */
  verify(): Promise<{ identity: string; displayName: string | null }>;
  properties(type: CrmObjectType): Promise<CrmProperty[]>;
  listPage(type: CrmObjectType, request: CrmPageRequest): Promise<CrmPage>;
}

/** Properties mapped in most imports: what `GET /api/connected-apps/crm/properties?all=0` answers, with the field each usually maps to. */
export const COMMON_PROPERTIES: Record<CrmObjectType, Record<string, string>> = {
  contacts: {
    firstname: 'first_name',
    lastname: 'last_name',
    email: 'email',
    phone: 'phone_number',
    company: 'company',
    jobtitle: 'job_title',
    website: 'website',
    address: 'address',
    city: 'city',
    state: 'state',
    zip: 'pin_code',
    country: 'country',
    industry: 'industry',
    linkedin_url: 'profile_url',
  },
  companies: {
    name: 'company_name',
    domain: 'website',
    industry: 'industry_type',
    phone: 'phone_number',
    address: 'address',
    city: 'city',
    country: 'country',
    description: 'summary',
  },
};
