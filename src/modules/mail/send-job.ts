/**
 * The mail-send job: a mail_send_jobs row (the shared lifecycle of src/jobs: claim, lease, finish,
 * fail) whose recorded messages (compose.ts) it delivers through their connection's provider,
 * each at most once, however often the queue delivers the job message:
 *   1. claim: under the row's lock, only a `queued` message moves to `sending` (committed);
 *   2. send through the provider, outside any transaction;
 *   3. `sent` with the provider's ids, or back to `queued` for a temporary failure (the queue
 *      retries with backoff), or `failed` with a reason for the user.
 * The suppression list is read again by the claim's own statement (no statement of its own): a
 * recipient unsubscribed or bounced since the message was queued is left out of it, and a
 * message with no recipient left is recorded `suppressed`, never sent; one whose first recipient
 * was left out is made out to the new first one (their lead, tracking and unsubscribe link).
 * A second delivery finds `sent`, `failed`, or a fresh `sending` (another delivery is under way:
 * it retries later). A `sending` older than the lease means a delivery died between the provider's
 * answer and the commit: the message may have gone out. A provider whose mailbox can be asked
 * (MailProvider.findSent: Gmail, Graph, the local mailbox) is asked, and it is recorded sent, or
 * sent when the mailbox does not hold it; a provider without findSent (SMTP) cannot tell, so the
 * message is marked failed, never resent. What findSent finds is recorded as the row stands, so
 * the recipients a send leaves out are written on the row before the provider is asked (leftFor). The job asks the provider for the capability: no list
 * of providers here to forget a new one in.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { ApiError } from '../../core/errors';
import { withTenant, type Database } from '../../db/client';
import { connections, mailMessages, mailSendJobs, mailSuppressions } from '../../db/schema';
import { isTransientFault, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { claimJob, finishJob, type JobSpec } from '../../jobs/lifecycle';
import { markNeedsReconnect, poolWriter, type ConnectionRow } from '../../providers/connections';
import { ConnectionNeedsReconnect, ProviderFailure } from '../../providers/failures';
import type { OutgoingMail } from '../../providers/mail/interface';
import { mailProviderFor } from '../../providers/mail/select';
import { RecipientsRefused, SenderRefused } from '../../providers/mail/bounces';
import { suppressAddresses } from './suppressions';
import { firstRecipient, readdressed } from './compose';
import type { Bindings } from '../../env';

/** How long a delivery may stay in `sending` before it is taken for dead. */
export const SENDING_LEASE_SECONDS = 300;

export const REASONS = {
  reconnect: 'The mail account needs to be reconnected (its credentials were refused); nothing was sent',
  disconnected: 'The mail account was disconnected before the message was sent',
  disabled: 'The mail account is disabled',
  interrupted:
    'Sending was interrupted after the message was handed to the mail provider: it may have been sent; check the Sent folder before sending it again',
  gaveUp: 'The mail provider stayed unavailable through every retry; nothing was sent',
  suppressed:
    'Every recipient was put on the suppression list (unsubscribed or bounced) after the message was queued; nothing was sent',
} as const;

/**
 * Why a message of an account marked needs_reconnect is not sent: the reason recorded on the
 * account when it was marked (refused credentials, or the provider refusing to send as its address:
 * SenderRefused), so every message failed fast says what the account's owner must fix.
 */
export function reconnectReason(connection: Pick<ConnectionRow, 'lastError'>): string {
  return connection.lastError
    ? `The mail account needs to be reconnected (${connection.lastError}); nothing was sent`
    : REASONS.reconnect;
}

/** What the account records (last_error, the owner's one notice) when its provider refused to send as its address. */
export function senderRefusedAccountReason(error: SenderRefused): string {
  return `${error.reason}; fix its permission to send as this address (or its settings), then reconnect it`;
}

/** What the message refused records: the provider's refusal; its recipients are not at fault (none suppressed). */
export function senderRefusedMessageReason(error: SenderRefused): string {
  return `${error.reason}; nothing was sent, the recipients are not at fault, and the account needs to be reconnected once it is fixed`;
}

type MessageRow = typeof mailMessages.$inferSelect;
/**
 * `stale`: a delivery died after claiming it, so it may have gone out (deliver asks the mailbox).
 * `suppressedNow`: its recipients on the suppression list at the claim (lower-cased).
 */
type Claim =
  | { message: MessageRow; connection: ConnectionRow; stale: boolean; suppressedNow: string[] }
  | 'busy'
  | null;

class DeliveryBusy extends Error {}

function setStatus(status: MessageRow['status'], failureReason: string | null = null) {
  return { status, failureReason, updatedAt: sql`now()` };
}

async function claimMessage(db: Database, orgId: number, messageId: number): Promise<Claim> {
  return withTenant(db, orgId, async (tx) => {
    const where = and(eq(mailMessages.organizationId, orgId), eq(mailMessages.id, messageId));
    const [row] = await tx
      .select({
        message: mailMessages,
        stale: sql<boolean>`${mailMessages.updatedAt} < now() - make_interval(secs => ${SENDING_LEASE_SECONDS})`,
        // Read at the claim, not only when it was queued: an unsubscribe or a hard bounce since then counts.
        suppressedNow: sql<string[]>`array(select ${mailSuppressions.address} from ${mailSuppressions}
          where ${mailSuppressions.organizationId} = ${orgId} and ${mailSuppressions.address} = any(
            array(select lower(a) from unnest(${mailMessages.toAddresses} || ${mailMessages.ccAddresses} || ${mailMessages.bccAddresses}) a)))`,
      })
      .from(mailMessages)
      .where(where)
      .for('update');
    if (!row) return null;
    const fail = async (reason: string) => {
      await tx.update(mailMessages).set(setStatus('failed', reason)).where(where);
      return null;
    };
    if (row.message.status === 'sending' && !row.stale) return 'busy';
    if (row.message.status !== 'queued' && row.message.status !== 'sending') return null;
    const [connection] = await tx
      .select()
      .from(connections)
      .where(and(eq(connections.organizationId, orgId), eq(connections.id, row.message.connectionId)));
    // A delivery died after handing the message over: only its mailbox can tell whether it went
    // (deliver asks it, where the provider has findSent); an account that cannot be used now
    // cannot be asked, so the message may have been sent and fails as such, never resent.
    const stale = row.message.status === 'sending';
    if (!connection || connection.deletedAt) return fail(stale ? REASONS.interrupted : REASONS.disconnected);
    if (connection.state === 'needs_reconnect') return fail(stale ? REASONS.interrupted : reconnectReason(connection));
    if (connection.state === 'disabled') return fail(stale ? REASONS.interrupted : REASONS.disabled);
    await tx
      .update(mailMessages)
      .set({ ...setStatus('sending'), attempts: sql`${mailMessages.attempts} + 1` })
      .where(where);
    return { message: row.message, connection, stale, suppressedNow: row.suppressedNow };
  });
}

export function outgoingOf(message: MessageRow): OutgoingMail {
  const headers = Object.fromEntries(
    message.headers.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
  // A Bcc copy (compose.ts perRecipientCopies) goes out addressed to its one recipient: no
  // provider is asked for a message without a To, and nobody else is shown.
  const bccCopy = message.toAddresses.length === 0 && message.ccAddresses.length === 0;
  return {
    from: { address: message.fromAddress, name: message.fromName },
    to: bccCopy ? message.bccAddresses : message.toAddresses,
    cc: message.ccAddresses,
    bcc: bccCopy ? [] : message.bccAddresses,
    subject: message.subject,
    text: message.bodyText,
    html: message.bodyHtml ?? message.bodyText,
    messageId: message.rfcMessageId,
    inReplyTo: message.inReplyTo,
    references: message.references,
    headers,
    providerThreadId: message.providerThreadId,
    replyToProviderMessageId: message.replyToProviderMessageId,
  };
}

/** The message's recipients without those suppressed now, and its `suppressed` with them; null when none is. */
function withoutSuppressed(message: MessageRow, suppressedNow: string[]) {
  if (suppressedNow.length === 0) return null;
  const now = new Set(suppressedNow);
  const kept = (addresses: string[]) => addresses.filter((address) => !now.has(address.toLowerCase()));
  return {
    toAddresses: kept(message.toAddresses),
    ccAddresses: kept(message.ccAddresses),
    bccAddresses: kept(message.bccAddresses),
    suppressed: [...new Set([...message.suppressed, ...suppressedNow])].sort(),
  };
}

/**
 * The message as it is sent to the recipients left: when its first recipient was left out, its
 * lead, tracking and unsubscribe link follow the new first one (compose.ts readdressed), so the
 * person left out's link and lead are not sent to the others.
 *
 * Written on the row BEFORE the provider is asked, when anyone is left: a send whose answer is
 * lost (a 5xx or a dropped connection after the provider took it) is settled on the retry by
 * findSent, which records the row as it stands. Kept only in memory, the row then said it went to
 * the address left out, on that person's lead, with its old body, while the mailbox held the
 * message sent to the others (test/mail-providers.test.ts). With nobody left nothing is written:
 * the message is recorded `suppressed` with the addresses it would have gone to.
 */
async function leftFor(db: Database, env: Bindings, message: MessageRow, suppressedNow: string[]) {
  const left = withoutSuppressed(message, suppressedNow);
  if (!left) return null;
  const first = firstRecipient(left);
  if (first === null) return left;
  const where = and(eq(mailMessages.organizationId, message.organizationId), eq(mailMessages.id, message.id));
  return withTenant(db, message.organizationId, async (tx) => {
    const made =
      first === firstRecipient(message) ? left : { ...left, ...(await readdressed(tx, env, message, first)) };
    await tx.update(mailMessages).set(made).where(where);
    return made;
  });
}

/**
 * Sends one claimed message and records the outcome; throws when the queue should retry. `stale`:
 * an earlier delivery died after claiming it (it may have gone out).
 */
async function deliver(
  db: Database,
  env: Bindings,
  { message, connection, stale, suppressedNow }: Exclude<Claim, 'busy' | null>,
): Promise<void> {
  const orgId = message.organizationId;
  const where = and(eq(mailMessages.organizationId, orgId), eq(mailMessages.id, message.id));
  const writer = poolWriter(db);
  // Whether the mailbox said it does not hold the message: until then a stale one may have gone out.
  let notHeld = false;
  try {
    const provider = await mailProviderFor({ env, db, writer }, connection);
    // Tried before (put back for a temporary failure, or claimed by a delivery that died): the
    // provider may have sent it all the same (a 5xx or a lost connection after it took the
    // message). Where the mailbox can tell (findSent), it is looked for by its Message-ID first,
    // and not sent twice; where it cannot, a stale claim is not sent again.
    if (stale && !provider.findSent) {
      await withTenant(db, orgId, (tx) =>
        tx.update(mailMessages).set(setStatus('failed', REASONS.interrupted)).where(where),
      );
      return;
    }
    const already = message.attempts > 0 && provider.findSent ? await provider.findSent(message.rfcMessageId) : null;
    notHeld = true;
    // Not sent yet: whoever is on the suppression list now is left out, and with nobody left it is not sent.
    const left = already ? null : await leftFor(db, env, message, suppressedNow);
    if (left && left.toAddresses.length + left.ccAddresses.length + left.bccAddresses.length === 0) {
      await withTenant(db, orgId, (tx) =>
        tx
          .update(mailMessages)
          .set({ ...setStatus('suppressed', REASONS.suppressed), suppressed: left.suppressed })
          .where(where),
      );
      return;
    }
    const sent = already ?? (await provider.send(outgoingOf({ ...message, ...left })));
    await withTenant(db, orgId, async (tx) => {
      await tx
        .update(mailMessages)
        .set({
          ...setStatus('sent'),
          ...left,
          sentAt: sql`now()`,
          providerMessageId: sent.providerMessageId,
          providerThreadId: sent.providerThreadId ?? message.providerThreadId,
        })
        .where(where);
      await tx
        .update(connections)
        .set({ lastSuccessAt: sql`now()`, lastError: null })
        .where(and(eq(connections.organizationId, orgId), eq(connections.id, connection.id)));
    });
  } catch (error) {
    const fail = (reason: string) =>
      withTenant(db, orgId, (tx) =>
        tx
          .update(mailMessages)
          .set(setStatus('failed', stale && !notHeld ? REASONS.interrupted : reason))
          .where(where),
      );
    if (error instanceof RecipientsRefused) {
      // A hard bounce while sending: nothing went out; the address is never sent to again.
      await withTenant(db, orgId, async (tx) => {
        await tx.update(mailMessages).set(setStatus('failed', error.reason)).where(where);
        await suppressAddresses(tx, orgId, error.addresses, 'bounced');
      });
      return;
    }
    if (error instanceof SenderRefused) {
      // The account's own mail service refused it as the sender: nothing went out and nobody is
      // suppressed; the account is marked (its owner told once) in the same transaction as the
      // message, so a redelivery finds both done or neither.
      await withTenant(db, orgId, async (tx) => {
        await tx
          .update(mailMessages)
          .set(setStatus('failed', senderRefusedMessageReason(error)))
          .where(where);
        await markNeedsReconnect(tx, connection, senderRefusedAccountReason(error));
      });
      return;
    }
    if (error instanceof ConnectionNeedsReconnect) return void (await fail(REASONS.reconnect));
    if (error instanceof ProviderFailure && error.kind === 'auth') {
      await writer.run(orgId, (tx) => markNeedsReconnect(tx, connection, error.reason));
      return void (await fail(REASONS.reconnect));
    }
    if (error instanceof ProviderFailure && error.kind !== 'unavailable') return void (await fail(error.reason));
    // Temporary (the provider, the credentials key, the OAuth client): queued again, retried by the queue.
    const retryable = error instanceof ProviderFailure || (error instanceof ApiError && error.status === 503);
    await withTenant(db, orgId, (tx) =>
      tx
        .update(mailMessages)
        .set(setStatus('queued', retryable ? (error as Error).message : null))
        .where(where),
    );
    throw error;
  }
}

const spec: JobSpec<typeof mailSendJobs> = {
  table: mailSendJobs,
  // Longer than one message's send (the provider's slowest answer) with margin: the lease is
  // renewed at each message.
  leaseSeconds: 300,
  // The job failed (dead letter, stalled): its messages still waiting fail with it, so none stays queued.
  // One statement for every job failed together (the lease sweep fails many), each its own reason.
  onFailed: async (tx, failed) => {
    await tx
      .update(mailMessages)
      .set({
        status: 'failed',
        failureReason: sql`case ${sql.join(
          failed.map(({ job, reason }) => sql`when ${mailMessages.sendJobId} = ${job.id} then ${reason}::text`),
          sql` `,
        )} end`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          sql`(${mailMessages.organizationId}, ${mailMessages.sendJobId}) in (${sql.join(
            failed.map(({ job }) => sql`(${job.organizationId}::bigint, ${job.id}::bigint)`),
            sql`, `,
          )})`,
          inArray(mailMessages.status, ['queued', 'sending']),
        ),
      );
  },
};

/** Temporary: the provider (429/5xx), a delivery under way, the server's credentials key or OAuth client. */
function isTemporary(error: unknown): boolean {
  return (
    (error instanceof ProviderFailure && error.kind === 'unavailable') ||
    error instanceof DeliveryBusy ||
    (error instanceof ApiError && error.status === 503) ||
    isTransientFault(error)
  );
}

export const mailSendJobHandler: JobHandler<'mail-send', typeof mailSendJobs> = {
  ...spec,
  retry: {
    permanentReason: (error) => (isTemporary(error) ? null : `The send failed: ${userFacingJobError(error)}.`),
  },
  reasons: { deadLettered: REASONS.gaveUp, stalled: REASONS.gaveUp },
  run: async (message, { db, env }) => {
    const claimed = await claimJob(db, spec, message);
    if (!claimed) return;
    const messages = await withTenant(db, message.orgId, (tx) =>
      tx
        .select({ id: mailMessages.id })
        .from(mailMessages)
        .where(and(eq(mailMessages.organizationId, message.orgId), eq(mailMessages.sendJobId, message.jobId)))
        .orderBy(mailMessages.id),
    );
    let retry: unknown = null;
    for (const { id } of messages) {
      try {
        const claim = await claimMessage(db, message.orgId, id);
        if (claim === 'busy') throw new DeliveryBusy(`message ${id} is being sent by another delivery`);
        if (claim) await deliver(db, env, claim);
      } catch (error) {
        // The others still go out; this delivery ends in a retry, which skips what was sent.
        retry ??= error;
      }
    }
    if (retry) throw retry;
    await withTenant(db, message.orgId, (tx) => finishJob(tx, spec, claimed));
  },
};
