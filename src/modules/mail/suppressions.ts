/**
 * The suppression list's writes: verified one-click unsubscribes arrive on the events queue (the
 * public route reads no database) and are recorded here, one insert per organization per batch.
 * Idempotent: a redelivery, or a second click, finds the address there and changes nothing.
 */
import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { mailSuppressions } from '../../db/schema';
import type { UnsubscribeRequest } from '../../jobs/messages';

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
