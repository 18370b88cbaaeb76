/**
 * The local enrichment provider: no network, deterministic, marked `local`. What it derives, each
 * value with its source:
 *   - `free_email` / `disposable_email` from the email's domain, by the `free-email-domains-typescript`
 *     and `mailchecker` packages (maintained lists, not ours; both small enough for one module);
 *   - for a work email: the company domain, its website, and a company name guessed from the
 *     domain's registrable label (`analytical-engines.co.uk` → "Analytical Engines");
 *   - first and last name from the email's local part (`ada.lovelace`) and from a profile URL's
 *     slug (`/in/ada-lovelace-1a2b3c`), trailing ids dropped;
 *   - the phone number's country and line type (`libphonenumber-js`, full metadata);
 *   - the organization's own company at the domain, when one matches: its id, name, industry,
 *     country and size band win over the guesses.
 */
import { freeEmailDomains } from 'free-email-domains-typescript';
import * as mailchecker from 'mailchecker';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type {
  EnrichedProfile,
  EnrichmentContext,
  EnrichmentProvider,
  EnrichmentQuery,
  ProfileField,
  ProfileFields,
} from './interface';

// mailchecker is CommonJS: bundlers (the Worker, vitest) give its exports as named ones, Node's
// ESM loader (the OpenAPI export script) only as `default`. Read it either way.
const mailcheckerExports =
  (mailchecker as typeof mailchecker & { default?: typeof mailchecker }).default ?? mailchecker;
const disposable = mailcheckerExports.blacklist();
const freeDomains = new Set<string>(freeEmailDomains);

/** Local parts that name a role, not a person (info@, sales@): no name is read from them. */
const ROLE_LOCAL_PARTS =
  /^(info|sales|support|admin|contact|hello|team|office|billing|noreply|no-reply|marketing|hr|jobs|careers|help|mail|enquiries|inquiries)$/i;

/** Second-level labels under a country code that belong to the suffix (`co.uk`, `com.au`). */
const SECOND_LEVEL = /^(co|com|net|org|gov|edu|ac|ltd|plc)$/;

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

export function emailDomain(email: string | null | undefined): string | null {
  const at = email?.lastIndexOf('@') ?? -1;
  if (!email || at < 1) return null;
  return (
    email
      .slice(at + 1)
      .trim()
      .toLowerCase()
      .replace(/\.$/, '') || null
  );
}

export function bareDomain(domain: string | null | undefined): string | null {
  if (!domain) return null;
  const text = domain.trim().toLowerCase();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`;
  try {
    const host = new URL(withScheme).hostname.replace(/\.$/, '');
    return (host.startsWith('www.') ? host.slice(4) : host) || null;
  } catch {
    return null;
  }
}

/** "analytical-engines.co.uk" → "Analytical Engines". */
export function companyNameOfDomain(domain: string): string | null {
  const labels = domain.split('.');
  if (labels.length < 2) return null;
  const suffixLabels =
    labels.length >= 3 && labels.at(-1)?.length === 2 && SECOND_LEVEL.test(labels.at(-2) ?? '') ? 2 : 1;
  const label = labels[labels.length - suffixLabels - 1];
  const words = label.split(/[-_]+/).filter(Boolean);
  return words.length ? words.map(titleCase).join(' ') : null;
}

/** Name words of an email local part or a URL slug: letters only, ids and digits dropped. */
function nameWords(text: string): string[] {
  return text
    .split(/[._\-+\s]+/)
    .filter((word) => /^[\p{L}']{2,}$/u.test(word))
    .slice(0, 3);
}

export function nameOfEmail(email: string): [string, string | null] | null {
  const local = email.slice(0, email.lastIndexOf('@')).split('+')[0];
  if (ROLE_LOCAL_PARTS.test(local)) return null;
  const words = nameWords(local);
  if (words.length === 0) return null;
  return [titleCase(words[0]), words.length > 1 ? titleCase(words[words.length - 1]) : null];
}

export function nameOfProfileUrl(url: string): [string, string | null] | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`;
  let slug: string | undefined;
  try {
    slug = new URL(withScheme).pathname.split('/').filter(Boolean).at(-1);
  } catch {
    return null;
  }
  const words = slug ? nameWords(decodeURIComponent(slug)).filter((word) => !/\d/.test(word)) : [];
  if (words.length === 0) return null;
  return [titleCase(words[0]), words.length > 1 ? titleCase(words[words.length - 1]) : null];
}

export async function enrichLocally(query: EnrichmentQuery, context: EnrichmentContext): Promise<EnrichedProfile> {
  const at = context.now.toISOString();
  const fields: ProfileFields = {};
  const set = (field: ProfileField, value: string | number | boolean | null | undefined, source: string) => {
    if (value === null || value === undefined || value === '' || fields[field]) return;
    fields[field] = { value, source, at };
  };
  const email = query.email?.trim() || null;
  const fromEmail = emailDomain(email);
  if (email && fromEmail) {
    const isDisposable = disposable.has(fromEmail);
    const isFree = !isDisposable && freeDomains.has(fromEmail);
    set('email', email, 'input');
    set('free_email', isFree, 'local:free-email-domains-typescript');
    set('disposable_email', isDisposable, 'local:mailchecker');
    const name = nameOfEmail(email);
    if (name) {
      set('first_name', name[0], 'local:email_local_part');
      set('last_name', name[1], 'local:email_local_part');
    }
  }
  if (query.profile_url) {
    set('profile_url', query.profile_url, 'input');
    const name = nameOfProfileUrl(query.profile_url);
    if (name) {
      set('first_name', name[0], 'local:profile_url_slug');
      set('last_name', name[1], 'local:profile_url_slug');
    }
  }
  if (query.name) {
    const words = query.name.trim().split(/\s+/);
    set('first_name', words[0], 'input');
    set('last_name', words.length > 1 ? words.slice(1).join(' ') : null, 'input');
  }
  const workDomain =
    bareDomain(query.domain) ??
    (fromEmail && fields.free_email?.value === false && fields.disposable_email?.value === false ? fromEmail : null);
  if (workDomain) {
    const company = await context.matchCompany(workDomain);
    if (company) {
      set('company_id', company.id, 'local:company_match');
      set('company', company.name, 'local:company_match');
      set('industry', company.industry, 'local:company_match');
      set('country', company.country, 'local:company_match');
      set('employee_size', company.employeeSize, 'local:company_match');
    }
    set('company_domain', workDomain, query.domain ? 'input' : 'local:email_domain');
    set('website', `https://${workDomain}`, query.domain ? 'input' : 'local:email_domain');
    set('company', query.company?.trim(), 'input');
    set('company', companyNameOfDomain(workDomain), 'local:email_domain');
  }
  set('company', query.company?.trim(), 'input');
  if (query.phone_number) {
    const phone = parsePhoneNumberFromString(query.phone_number);
    if (phone?.isValid()) {
      set('phone_country', phone.country, 'local:libphonenumber');
      set('phone_line_type', phone.getType()?.toLowerCase(), 'local:libphonenumber');
    }
  }
  return { provider: 'local', local: true, fields };
}

export const localEnrichment: EnrichmentProvider = { name: 'local', enrich: enrichLocally };
