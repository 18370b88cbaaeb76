/**
 * The suppression list's writes: verified one-click unsubscribes arrive on the events queue (the
 * public route reads no database) and are recorded here, one insert per organization per batch;
 * hard bounces (a relay refusing a recipient for good while we send, providers/mail/bounces.ts)
 * are recorded by the mail-send job with suppressAddresses, and bounce reports arriving in an
 * inbox by ./bounces.ts. Idempotent: a redelivery, a second click or a second bounce finds the
 * address there and changes nothing (the first reason stays).
 */
import { sql } from 'drizzle-orm';
import type { Queryable, Transaction } from '../../db/client';
import { mailSuppressions } from '../../db/schema';
import type { UnsubscribeRequest } from '../../jobs/messages';

/** Why an address is on the list: a one-click unsubscribe, or a hard bounce. */
export type SuppressionReason = 'unsubscribed' | 'bounced';

export function isUnsubscribeRequest(body: unknown): body is UnsubscribeRequest {
  const request = body as Partial<UnsubscribeRequest> | null;
  return (
    typeof request === 'object' &&
    request !== null &&
    request.kind === 'unsubscribe' &&
    Number.isSafeInteger(request.orgId) &&
    typeof request.address === 'string' &&
    request.address.length > 0 &&
    request.address.length <= 254 &&
    typeof request.at === 'string' &&
    !Number.isNaN(Date.parse(request.at))
  );
}

export async function recordUnsubscribes(tx: Transaction, orgId: number, requests: UnsubscribeRequest[]) {
  if (requests.length === 0) return;
  await tx
    .insert(mailSuppressions)
    .values(
      requests.map((request) => ({
        organizationId: orgId,
        address: request.address.toLowerCase(),
        reason: 'unsubscribed',
        createdAt: sql`least(${request.at}::timestamptz, now())`,
      })),
    )
    .onConflictDoNothing();
}

/** Puts the addresses on the organization's suppression list (lower-cased; one already there keeps its reason). */
export async function suppressAddresses(tx: Queryable, orgId: number, addresses: string[], reason: SuppressionReason) {
  if (addresses.length === 0) return;
  await tx
    .insert(mailSuppressions)
    .values(
      [...new Set(addresses.map((address) => address.toLowerCase()))].map((address) => ({
        organizationId: orgId,
        address,
        reason,
      })),
    )
    .onConflictDoNothing();
}
