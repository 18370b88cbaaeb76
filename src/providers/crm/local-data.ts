/**
 * The local CRM's data set: LOCAL_COMPANIES companies and LOCAL_CONTACTS contacts, each computed
 * from its index (no file, no state), so every run and every machine sees the same records. Like
 * a real CRM's, it holds duplicates and bad rows, on purpose and at fixed places:
 *   - companies: every 25th repeats the one before it (its domain with `www.`, its name in
 *     capitals); every 97th has no name; every 89th a website that is no address;
 *   - contacts: every 30th repeats the email of the one before it (in capitals); every 45th
 *     has no email but the profile URL of the one two before it; every 53rd an invalid email;
 *     every 71st no last name.
 */
import type { CrmObjectType, CrmProperty, CrmRecord } from './interface';

export const LOCAL_COMPANIES = 600;
export const LOCAL_CONTACTS = 3_000;

const ADJECTIVES = [
  'Blue',
  'Bright',
  'Quiet',
  'Rapid',
  'Silver',
  'Golden',
  'Northern',
  'Open',
  'Clear',
  'Prime',
  'Green',
  'Bold',
  'Calm',
  'Keen',
  'Lucid',
  'Noble',
  'Solid',
  'Swift',
  'True',
  'Vivid',
];
const NOUNS = [
  'Harbor',
  'Summit',
  'Forge',
  'Orbit',
  'Canyon',
  'Meadow',
  'Signal',
  'Anchor',
  'Beacon',
  'Cedar',
  'Delta',
  'Ember',
  'Falcon',
  'Grove',
  'Horizon',
  'Island',
  'Juniper',
  'Lantern',
  'Mosaic',
  'Nimbus',
  'Oasis',
  'Pillar',
  'Quarry',
  'Ridge',
  'Spruce',
  'Tide',
  'Union',
  'Vertex',
  'Willow',
  'Zenith',
];
const INDUSTRIES = ['Software', 'Manufacturing', 'Retail', 'Healthcare', 'Finance', 'Logistics', 'Education', 'Energy'];
const PLACES = [
  ['Austin', 'United States'],
  ['Berlin', 'Germany'],
  ['Lyon', 'France'],
  ['Pune', 'India'],
  ['Toronto', 'Canada'],
  ['Leeds', 'United Kingdom'],
  ['Osaka', 'Japan'],
  ['Porto', 'Portugal'],
];
const FIRST = [
  'Ada',
  'Alan',
  'Grace',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'John',
  'Hedy',
  'Tim',
  'Karen',
  'Donald',
  'Shafi',
  'Leslie',
  'Sophie',
  'Guido',
  'Anita',
  'Bjarne',
  'Carol',
  'Niklaus',
  'Jean',
  'Brian',
  'Lynn',
  'Vint',
  'Mary',
  'Robert',
  'Ida',
  'James',
  'Joan',
  'Ivan',
  'Evelyn',
  'Peter',
  'Rosalind',
  'Andrew',
  'Susan',
  'Yukihiro',
];
const LAST = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Backus',
  'Lamarr',
  'Berners',
  'Jones',
  'Knuth',
  'Goldwasser',
  'Lamport',
  'Wilson',
  'Rossum',
  'Borg',
  'Stroustrup',
  'Shaw',
  'Wirth',
  'Sammet',
  'Kernighan',
  'Conway',
  'Cerf',
  'Keller',
  'Kahn',
  'Rhodes',
  'Gosling',
  'Clarke',
  'Sutherland',
  'Berson',
  'Naur',
  'Picard',
  'Tanenbaum',
  'Kare',
  'Matsumoto',
  'Engelbart',
  'Codd',
  'Kay',
  'Floyd',
  'Hoare',
  'Milner',
  'Rivest',
  'Shamir',
  'Adleman',
  'Diffie',
];
const TITLES = ['Head of Sales', 'CTO', 'Marketing Manager', 'Engineer', 'Founder', 'Operations Lead', 'Buyer'];

const base = Date.UTC(2025, 0, 1);
const hours = (n: number) => new Date(base + n * 3_600_000).toISOString();
const slug = (value: string) => value.toLowerCase().replace(/[^a-z0-9]+/g, '');

function companyName(i: number) {
  return `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[Math.floor(i / ADJECTIVES.length) % NOUNS.length]}`;
}
function companyDomain(i: number) {
  return `${slug(companyName(i))}.example`;
}

/** Company `i` (1-based). */
export function localCompany(i: number): CrmRecord {
  const repeat = i % 25 === 0;
  const of = repeat ? i - 1 : i;
  const [city, country] = PLACES[of % PLACES.length];
  const name = i % 97 === 0 ? null : repeat ? companyName(of).toUpperCase() : companyName(of);
  const domain = i % 89 === 0 ? 'not a web address' : repeat ? `www.${companyDomain(of)}` : companyDomain(of);
  return {
    id: String(100_000 + i),
    properties: {
      name,
      domain,
      industry: INDUSTRIES[of % INDUSTRIES.length],
      phone: `+1 555 01${String(of).padStart(4, '0')}`,
      address: `${of} Market Street`,
      city,
      state: null,
      country,
      description: `${companyName(of)} is a ${INDUSTRIES[of % INDUSTRIES.length].toLowerCase()} company (local data set).`,
      numberofemployees: String(10 + ((of * 37) % 990)),
      createdate: hours(i),
      hs_lastmodifieddate: hours(i * 7),
      hs_object_id: String(100_000 + i),
    },
    updatedAt: hours(i * 7),
  };
}

function person(j: number) {
  const first = FIRST[j % FIRST.length];
  const last = LAST[Math.floor(j / FIRST.length) % LAST.length];
  const company = 1 + ((j * 7) % LOCAL_COMPANIES);
  return {
    first,
    last,
    company,
    email: `${slug(first)}.${slug(last)}.${j}@${companyDomain(company === 0 ? 1 : company)}`,
    profile: `https://www.linkedin.com/in/${slug(first)}-${slug(last)}-${j}`,
  };
}

/** Contact `j` (1-based). */
export function localContact(j: number): CrmRecord {
  const self = person(j);
  let email: string | null = self.email;
  let profile = self.profile;
  if (j % 30 === 0) email = person(j - 1).email.toUpperCase();
  else if (j % 45 === 0) {
    email = null;
    profile = person(j - 2).profile;
  } else if (j % 53 === 0) email = 'not-an-email';
  const company = self.company % 25 === 0 || self.company % 97 === 0 ? self.company - 1 : self.company;
  const [city, country] = PLACES[company % PLACES.length];
  return {
    id: String(500_000 + j),
    properties: {
      firstname: self.first,
      lastname: j % 71 === 0 ? null : self.last,
      email,
      phone: `+1 555 02${String(j).padStart(4, '0')}`,
      mobilephone: null,
      company: companyName(company),
      jobtitle: TITLES[j % TITLES.length],
      website: companyDomain(company),
      address: null,
      city,
      state: null,
      zip: null,
      country,
      industry: INDUSTRIES[company % INDUSTRIES.length],
      linkedin_url: profile,
      lifecyclestage: j % 3 === 0 ? 'customer' : 'lead',
      hs_lead_status: j % 4 === 0 ? 'OPEN' : 'NEW',
      createdate: hours(j),
      lastmodifieddate: hours(j * 3),
      hs_object_id: String(500_000 + j),
    },
    updatedAt: hours(j * 3),
  };
}

const p = (name: string, label: string, type = 'string'): CrmProperty => ({ name, label, type });

export const LOCAL_PROPERTIES: Record<CrmObjectType, CrmProperty[]> = {
  contacts: [
    p('firstname', 'First Name'),
    p('lastname', 'Last Name'),
    p('email', 'Email'),
    p('phone', 'Phone Number', 'phone_number'),
    p('mobilephone', 'Mobile Phone Number', 'phone_number'),
    p('company', 'Company Name'),
    p('jobtitle', 'Job Title'),
    p('website', 'Website URL'),
    p('address', 'Street Address'),
    p('city', 'City'),
    p('state', 'State/Region'),
    p('zip', 'Postal Code'),
    p('country', 'Country/Region'),
    p('industry', 'Industry'),
    p('linkedin_url', 'LinkedIn URL'),
    p('lifecyclestage', 'Lifecycle Stage', 'enumeration'),
    p('hs_lead_status', 'Lead Status', 'enumeration'),
    p('createdate', 'Create Date', 'datetime'),
    p('lastmodifieddate', 'Last Modified Date', 'datetime'),
    p('hs_object_id', 'Record ID', 'number'),
  ],
  companies: [
    p('name', 'Company name'),
    p('domain', 'Company Domain Name'),
    p('industry', 'Industry', 'enumeration'),
    p('phone', 'Phone Number', 'phone_number'),
    p('address', 'Street Address'),
    p('city', 'City'),
    p('state', 'State/Region'),
    p('country', 'Country/Region'),
    p('description', 'Description'),
    p('numberofemployees', 'Number of Employees', 'number'),
    p('createdate', 'Create Date', 'datetime'),
    p('hs_lastmodifieddate', 'Last Modified Date', 'datetime'),
    p('hs_object_id', 'Record ID', 'number'),
  ],
};
