/**
 * A paid phone number's purchase, the voice job's `purchase_number` action: the provider buys the
 * number and it turns active, or refuses and the number fails with its price refunded (once: the
 * refund row is unique per number). A job given up on (dead letter, stalled) fails its number and
 * refunds it the same way, set-based (failNumbers).
 */
import { and, eq, sql } from 'drizzle-orm';
import { withTenant, type Database, type Queryable } from '../../db/client';
import { phoneNumbers } from '../../db/schema';
import type { Bindings } from '../../env';
import { ProviderFailure } from '../../providers/failures';
import { setupFor, webhookOrigin } from './voice-setup';
import { recordLedger, recordLedgerEntries } from './wallet';

/** Marks the number failed and refunds it, once (the refund row is unique per number). */
async function failNumber(tx: Queryable, orgId: number, numberId: number, reason: string) {
  const [failed] = await tx
    .update(phoneNumbers)
    .set({ status: 'failed', failureReason: reason, updatedAt: sql`now()` })
    .where(
      and(eq(phoneNumbers.organizationId, orgId), eq(phoneNumbers.id, numberId), eq(phoneNumbers.status, 'pending')),
    )
    .returning();
  if (failed) {
    await recordLedger(tx, orgId, {
      kind: 'refund',
      cents: failed.monthlyPriceCents,
      phoneNumberId: numberId,
      note: `purchase of ${failed.phoneNumber} failed`,
    });
  }
}

/** failNumber for many numbers at once (the jobs the lease sweep fails together): two statements. */
export async function failNumbers(tx: Queryable, failures: { orgId: number; numberId: number; reason: string }[]) {
  if (failures.length === 0) return;
  const failed = await tx
    .update(phoneNumbers)
    .set({
      status: 'failed',
      failureReason: sql`case ${sql.join(
        failures.map(({ numberId, reason }) => sql`when ${phoneNumbers.id} = ${numberId} then ${reason}::text`),
        sql` `,
      )} end`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        sql`(${phoneNumbers.organizationId}, ${phoneNumbers.id}) in (${sql.join(
          failures.map(({ orgId, numberId }) => sql`(${orgId}::bigint, ${numberId}::bigint)`),
          sql`, `,
        )})`,
        eq(phoneNumbers.status, 'pending'),
      ),
    )
    .returning();
  await recordLedgerEntries(
    tx,
    failed.map((number) => ({
      orgId: number.organizationId,
      entry: {
        kind: 'refund' as const,
        cents: number.monthlyPriceCents,
        phoneNumberId: number.id,
        note: `purchase of ${number.phoneNumber} failed`,
      },
    })),
  );
}

/**
 * Buys the job's pending number from the provider and marks it active; a refusal marks it failed
 * and refunds its price (one transaction). A provider down or throttling throws, for the queue to
 * retry or snooze. The caller finishes the job.
 */
export async function purchaseNumber(db: Database, env: Bindings, orgId: number, numberId: number) {
  const number = await withTenant(db, orgId, async (tx) => {
    const [row] = await tx
      .select()
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.organizationId, orgId), eq(phoneNumbers.id, numberId)));
    return row;
  });
  if (number?.status === 'pending') {
    const setup = await withTenant(db, orgId, (tx) => setupFor(tx, env, orgId, number.connectionId));
    const callback = `${webhookOrigin(setup)}/api/v1/voice/twilio/${orgId}`;
    try {
      const bought = await setup.telephony.purchaseNumber({
        phoneNumber: number.phoneNumber,
        friendlyName: number.friendlyName,
        statusCallback: setup.provider === 'local' ? null : callback,
        // Calls to the number ask our Voice URL what to do (ring its users' browsers).
        voiceUrl: setup.provider === 'local' ? null : `${callback}/voice`,
      });
      await withTenant(db, orgId, (tx) =>
        tx
          .update(phoneNumbers)
          .set({ status: 'active', providerSid: bought.providerSid, updatedAt: sql`now()` })
          .where(
            and(
              eq(phoneNumbers.organizationId, orgId),
              eq(phoneNumbers.id, number.id),
              eq(phoneNumbers.status, 'pending'),
            ),
          ),
      );
    } catch (error) {
      if (error instanceof ProviderFailure && error.kind !== 'unavailable') {
        await withTenant(db, orgId, (tx) => failNumber(tx, orgId, number.id, error.reason));
      } else {
        // Twilio down (retried by the queue) or throttling (snoozed for its Retry-After): jobs/runner.ts.
        throw error;
      }
    }
  }
}
