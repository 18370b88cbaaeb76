/**
 * The firmographic vocabularies of a company: the fixed set of headcount bands `employee_size`
 * takes, and the normalisation of `website` to the domain leads and contacts are matched on.
 */
import { z } from '@hono/zod-openapi';

/** Headcount bands, smallest first; their order is what "adjacent band" means in the similarity score. */
export const EMPLOYEE_SIZES = [
  '1-10',
  '11-50',
  '51-200',
  '201-500',
  '501-1000',
  '1001-5000',
  '5001-10000',
  '10001+',
] as const;
export type EmployeeSize = (typeof EMPLOYEE_SIZES)[number];

/** A blankable employee_size: one of the bands ('' and null: none). */
export const employeeSizeInput = z
  .union([z.enum(EMPLOYEE_SIZES), z.literal('')])
  .transform((value) => (value === '' ? null : value))
  .nullish()
  .openapi({ type: ['string', 'null'], enum: [...EMPLOYEE_SIZES], example: '51-200' });

/** The band a headcount falls in (a whole number of people, at least 1); null otherwise. */
export function bandOfHeadcount(headcount: number): EmployeeSize | null {
  if (!Number.isInteger(headcount) || headcount < 1) return null;
  const bounds = [10, 50, 200, 500, 1000, 5000, 10000];
  const index = bounds.findIndex((bound) => headcount <= bound);
  return EMPLOYEE_SIZES[index === -1 ? EMPLOYEE_SIZES.length - 1 : index];
}

/**
 * A headcount hint as people write it: a band of the set, a number ("120", "1,200"), or a range
 * ("51-200", "200 - 500": its upper bound decides). Null when it reads as none of these.
 */
export function bandOfHint(hint: unknown): EmployeeSize | null {
  if (typeof hint === 'number') return bandOfHeadcount(hint);
  if (typeof hint !== 'string') return null;
  const text = hint.trim().replace(/,/g, '');
  if ((EMPLOYEE_SIZES as readonly string[]).includes(text)) return text as EmployeeSize;
  const range = /^(\d+)\s*(?:-|–|to)\s*(\d+)$/i.exec(text);
  if (range) return bandOfHeadcount(Number(range[2]));
  const plus = /^(\d+)\s*\+$/.exec(text);
  if (plus) return bandOfHeadcount(Number(plus[1]));
  return /^\d+$/.test(text) ? bandOfHeadcount(Number(text)) : null;
}

/**
 * The domain of a website as given (`https://www.Example.com:8443/about`, `example.com/x`):
 * the host, lower-cased, without a leading `www.` and without port. Null when there is no host.
 */
export function websiteDomain(website: string | null | undefined): string | null {
  if (!website) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(website) ? website : `http://${website}`;
  try {
    const host = new URL(withScheme).hostname.toLowerCase().replace(/\.$/, '');
    const domain = host.startsWith('www.') ? host.slice(4) : host;
    return domain.includes('.') || domain === 'localhost' ? domain : null;
  } catch {
    return null;
  }
}

/** Mail providers whose domain says nothing about the sender's company. */
export const FREE_MAIL_DOMAINS = [
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'mail.com',
  'yandex.com',
] as const;
