/**
 * Recording mail to send, in the request's transaction, for every path that sends (inbox send and
 * reply, target-account bulk email): the suppression list is checked (a suppressed recipient is
 * left out and reported, never sent to), each message is tied to the lead its first recipient is,
 * its HTML gets the tracking pixel and click-rewritten links, mail that is not a reply gets a
 * signed List-Unsubscribe with One-Click (RFC 8058) for its one recipient (each Bcc recipient of
 * such mail gets a copy of their own: perRecipientCopies), the rows are inserted `queued` under a
 * mail_send_jobs row (50 messages a job), and the job is enqueued through the outbox, so it
 * leaves only if the rows commit.
 */
import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Queryable } from '../../db/client';
import { mailMessages, mailSendJobs, mailSuppressions, type MailKind } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { jobOutboxCtes, sendRowsAfterCommit } from '../../jobs/outbox';
import type { JobMessage } from '../../jobs/messages';
import type { ConnectionRow } from '../../providers/connections';
import { liveLeadsHoldingSql } from '../leads';
import { linkDomainsSql } from '../tracking';
import { trackingSecrets, type TrackingSecrets } from '../tracking';
import {
  htmlToText,
  textToHtml,
  trackHtml,
  withoutTracking,
  withoutUnsubscribeFooter,
  withUnsubscribeFooter,
} from './tracked-html';
import { signUnsubscribeToken, unsubscribeUrl } from './unsubscribe-token';

export interface Draft {
  kind: MailKind;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  bodyFormat: 'text' | 'html';
  inReplyTo?: string | null;
  references?: string[];
  providerThreadId?: string | null;
  replyToProviderMessageId?: string | null;
  contactId?: number | null;
  targetAccountId?: number | null;
}

export interface ComposeContext {
  ctx: TenantContext;
  env: Bindings;
  /** Where the public tracking and unsubscribe routes answer: the origin the request reached. */
  origin: string;
  /**
   * The recorded messages are the request's last statement (an inbox send or reply, a bulk email):
   * their insert carries its COMMIT (ctx.commitWithNext). Not for a caller that writes after them
   * (an AI draft's send records the message on the draft).
   */
  lastStatement?: boolean;
}

/** Messages per mail-send job message: a bulk email is sent by several deliveries in parallel. */
const MESSAGES_PER_JOB = 50;

export type RecordedMessage = typeof mailMessages.$inferSelect;

function lower(addresses: string[]): string[] {
  return addresses.map((address) => address.toLowerCase());
}

/** One statement: which of the addresses are suppressed, the live lead of each, and the organization's link domains. */
async function recipientFacts(ctx: Pick<TenantContext, 'db' | 'orgId'>, addresses: string[]) {
  const result = await ctx.db.execute<{
    suppressed: string[] | null;
    leads: { email: string; id: number }[] | null;
    link_domains: string[] | null;
  }>(sql`
    select
      (select array_agg(${mailSuppressions.address}) from ${mailSuppressions}
        where ${mailSuppressions.organizationId} = ${ctx.orgId} and ${mailSuppressions.address} = any(${sql.param(addresses)}::text[])) as suppressed,
      (select json_agg(json_build_object('email', h.email_key, 'id', h.id) order by h.flagged, h.id)
        from (${liveLeadsHoldingSql(ctx.orgId, addresses, [])}) h) as leads,
      ${linkDomainsSql(ctx.orgId)} as link_domains`);
  const row = result.rows[0];
  return {
    suppressed: new Set(row.suppressed ?? []),
    // The first holder of each address: the lead the unique index counts, before any flagged duplicate.
    leadOf: new Map((row.leads ?? []).toReversed().map((lead) => [lead.email, Number(lead.id)])),
    linkDomains: row.link_domains ?? [],
  };
}

/** What a message carries for its first recipient: tracking on their lead, their own unsubscribe link. */
interface Addressed {
  secrets: TrackingSecrets;
  origin: string;
  orgId: number;
  kind: MailKind;
  /** Lower-cased: whom the unsubscribe link is signed for. */
  first: string;
  leadId: number | null;
  linkDomains: readonly string[];
}

/**
 * The HTML and headers sent for `html` (untracked) addressed to `first`: the pixel and click links
 * of their lead, and for mail that is not a reply the unsubscribe footer and List-Unsubscribe
 * signed for them. Written when the message is recorded, and again by the send job when its first
 * recipient was left out since (readdressed).
 */
async function addressed(html: string, to: Addressed): Promise<{ html: string; headers: string[] }> {
  if (to.leadId) {
    html = await trackHtml(html, {
      secrets: to.secrets,
      origin: to.origin,
      orgId: to.orgId,
      leadId: to.leadId,
      campaign: to.kind === 'bulk' ? 'bulk-email' : 'inbox',
      linkDomains: to.linkDomains,
    });
  }
  const headers: string[] = [];
  if (to.kind !== 'reply') {
    const link = unsubscribeUrl(
      to.origin,
      await signUnsubscribeToken(to.secrets, { orgId: to.orgId, address: to.first }),
    );
    html = withUnsubscribeFooter(html, link);
    headers.push(`List-Unsubscribe: <${link}>`, 'List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  }
  return { html, headers };
}

/** The first recipient of a message, lower-cased: the one its lead and unsubscribe link are for. */
export function firstRecipient(message: Pick<RecordedMessage, 'toAddresses' | 'ccAddresses' | 'bccAddresses'>) {
  return (message.toAddresses[0] ?? message.ccAddresses[0] ?? message.bccAddresses[0])?.toLowerCase() ?? null;
}

const UNSUBSCRIBE_HEADER = /^List-Unsubscribe:\s*<([^>]+)>$/i;
const TRACKED_URL = /(https?:\/\/[^"'\s/]+)\/api\/v1\/track\/(?:open|click)\//;

/**
 * A recorded message whose first recipient was left out since it was queued (put on the
 * suppression list: send-job.ts), made out to its new first recipient `first`: their lead (and no
 * contact: it was the first recipient's), the pixel and click links of that lead, and their own
 * unsubscribe link, where before it kept the person left out's (a one-click from a remaining
 * recipient would have unsubscribed the wrong address, their opens counted on the wrong lead).
 * The body is the one recorded, its tracking and footer taken off (tracked-html withoutTracking)
 * and written again; the public origin is the one it was recorded with. One statement.
 */
export async function readdressed(
  db: Queryable,
  env: Bindings,
  message: RecordedMessage,
  first: string,
): Promise<Pick<RecordedMessage, 'leadId' | 'contactId' | 'bodyHtml' | 'headers'>> {
  const facts = await recipientFacts({ db, orgId: message.organizationId }, [first]);
  const leadId = facts.leadOf.get(first) ?? null;
  const link = message.headers.map((line) => UNSUBSCRIBE_HEADER.exec(line)?.[1]).find(Boolean);
  const origin = link ? new URL(link).origin : TRACKED_URL.exec(message.bodyHtml ?? '')?.[1];
  const unchanged = { leadId, contactId: null, bodyHtml: message.bodyHtml, headers: message.headers };
  if (!origin || message.bodyHtml === null) return unchanged;
  const secrets = trackingSecrets(env);
  const bare = await withoutTracking(
    link ? withoutUnsubscribeFooter(message.bodyHtml, link) : message.bodyHtml,
    secrets,
  );
  const made = await addressed(bare, {
    secrets,
    origin,
    orgId: message.organizationId,
    kind: message.kind,
    first,
    leadId,
    linkDomains: facts.linkDomains,
  });
  const others = message.headers.filter((line) => !/^List-Unsubscribe(-Post)?:/i.test(line));
  return { leadId, contactId: null, bodyHtml: made.html, headers: [...others, ...made.headers] };
}

function messageIdFor(fromAddress: string): string {
  const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1) || 'localhost';
  return `<${crypto.randomUUID()}@${domain}>`;
}

/**
 * Mail that carries List-Unsubscribe (anything but a reply) carries one person's link: a shared
 * one would let a Bcc recipient's one click suppress whoever the link was signed for. So each
 * Bcc recipient of such a draft gets a copy of their own (its own signed link, its own tracking on
 * their own lead), and the visible message (To and Cc) carries no Bcc at all, which also keeps
 * the Bcc list out of any header a provider writes.
 */
function perRecipientCopies(draft: Draft): Draft[] {
  if (draft.kind === 'reply' || draft.bcc.length === 0) return [draft];
  const visible: Draft[] = draft.to.length + draft.cc.length > 0 ? [{ ...draft, bcc: [] }] : [];
  const seen = new Set<string>();
  const copies = draft.bcc.flatMap((address) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ ...draft, to: [], cc: [], bcc: [address] }];
  });
  return [...visible, ...copies];
}

/**
 * Records the drafts as queued messages and enqueues their sending. Answers the messages recorded
 * and the recipients left out; a draft none of whose recipients remain is not recorded.
 */
export async function recordSends(compose: ComposeContext, connection: ConnectionRow, drafts: Draft[]) {
  const { ctx, env } = compose;
  drafts = drafts.flatMap(perRecipientCopies);
  const all = [...new Set(drafts.flatMap((draft) => lower([...draft.to, ...draft.cc, ...draft.bcc])))];
  const facts = await recipientFacts(ctx, all);
  const kept = (addresses: string[]) => addresses.filter((address) => !facts.suppressed.has(address.toLowerCase()));
  const secrets = trackingSecrets(env);
  const rows: (typeof mailMessages.$inferInsert)[] = [];
  const suppressed = new Set<string>();
  for (const draft of drafts) {
    for (const address of [...draft.to, ...draft.cc, ...draft.bcc]) {
      if (facts.suppressed.has(address.toLowerCase())) suppressed.add(address.toLowerCase());
    }
    const to = kept(draft.to);
    const cc = kept(draft.cc);
    const bcc = kept(draft.bcc);
    if (to.length + cc.length + bcc.length === 0) continue;
    const first = (to[0] ?? cc[0] ?? bcc[0]).toLowerCase();
    const leadId = facts.leadOf.get(first) ?? null;
    const { html, headers } = await addressed(draft.bodyFormat === 'html' ? draft.body : textToHtml(draft.body), {
      secrets,
      origin: compose.origin,
      orgId: ctx.orgId,
      kind: draft.kind,
      first,
      leadId,
      linkDomains: facts.linkDomains,
    });
    rows.push({
      organizationId: ctx.orgId,
      connectionId: connection.id,
      direction: 'outbound',
      status: 'queued',
      kind: draft.kind,
      rfcMessageId: messageIdFor(connection.identity),
      inReplyTo: draft.inReplyTo ?? null,
      references: draft.references ?? [],
      providerThreadId: draft.providerThreadId ?? null,
      replyToProviderMessageId: draft.replyToProviderMessageId ?? null,
      fromAddress: connection.identity,
      fromName: connection.displayName,
      toAddresses: to,
      ccAddresses: cc,
      bccAddresses: bcc,
      subject: draft.subject,
      bodyText: draft.bodyFormat === 'text' ? draft.body : htmlToText(draft.body),
      bodyHtml: html,
      headers,
      leadId,
      contactId: draft.contactId ?? null,
      targetAccountId: draft.targetAccountId ?? null,
      suppressed: lower([...draft.to, ...draft.cc, ...draft.bcc]).filter((address) => facts.suppressed.has(address)),
      createdBy: ctx.userId,
    });
  }
  if (rows.length === 0) return { messages: [], suppressed: [...suppressed].sort() };
  // The send jobs and their outbox messages in one statement, whatever their number.
  const jobCount = Math.ceil(rows.length / MESSAGES_PER_JOB);
  const outbox = await ctx.db.execute<{ id: string; message: JobMessage & { jobId: number } }>(
    sql`with ${jobOutboxCtes(
      ctx.orgId,
      'send',
      'mail-send',
      sql`insert into ${mailSendJobs} (organization_id, created_by)
        select ${ctx.orgId}::bigint, ${ctx.userId}::bigint from generate_series(1, ${jobCount}::int)
        returning id`,
    )} select id, message from send_outbox`,
  );
  const jobIds = outbox.rows.map((row) => Number(row.message.jobId)).sort((a, b) => a - b);
  rows.forEach((row, index) => {
    row.sendJobId = jobIds[Math.floor(index / MESSAGES_PER_JOB)];
  });
  if (compose.lastStatement) ctx.commitWithNext?.();
  const messages = await ctx.db.insert(mailMessages).values(rows).returning();
  sendRowsAfterCommit(ctx, outbox.rows);
  return { messages, suppressed: [...suppressed].sort() };
}
