/**
 * POST /api/v1/lead in two statements: the batch's read (lookups, the live holders of the email
 * and profile URL, a new id) rides on the API-key scope statement, which the request sends
 * anyway, so what is left is the insert. This middleware runs before authentication: it reads
 * the body (Hono caches it for the validator) and, when it is valid, asks for the read; an
 * invalid body asks for nothing and the validator answers it.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../core/context';
import { leadWriteContextFrom, type LeadWriteContext, type LeadWriteContextRow, leadWriteContextSql } from '../leads';
import { emailKey } from '../leads';
import { IngestLeadBody, type IngestLeadInput } from './schemas';

/** The emails and profile URLs `createLeadsBatch` reads for this one lead (the same keys it plans with). */
export function dedupeInputsOf(input: Pick<IngestLeadInput, 'email' | 'profile_url'>) {
  const email = emailKey(input.email);
  return { emails: email ? [email] : [], urls: input.profile_url ? [input.profile_url] : [] };
}

export const prefetchLeadWriteContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return next();
  }
  const parsed = IngestLeadBody.safeParse(body);
  if (parsed.success) {
    const { emails, urls } = dedupeInputsOf(parsed.data);
    c.set('scopeRead', (orgId) => leadWriteContextSql({ orgId }, [], emails, 1, urls));
  }
  await next();
};

/** The read the scope statement carried, if it did. */
export function prefetchedContext(result: unknown): LeadWriteContext | undefined {
  return result ? leadWriteContextFrom(result as LeadWriteContextRow) : undefined;
}
