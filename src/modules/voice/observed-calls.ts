/**
 * Calls we did not place but Twilio tells us about (a signed status callback naming a CallSid we
 * do not know): a browser call placed with the voice token (the Voice SDK runs the TwiML App:
 * `From` is `client:<identity>`) and a call to one of the organization's numbers (`Direction`
 * inbound, `To` the number). Each becomes a Call row, once per CallSid: the insert does nothing
 * when the (organization, provider, provider call id) key exists, so a replay, or callbacks that
 * race, find the one row. The user is the token's identity (a user of this organization) or the
 * number's first assigned user; the lead or contact is the organization's record whose phone,
 * read as E.164 (a national number as US, as agent calls read it), is the other side's number.
 * A child leg (`ParentCallSid`, e.g. the `<Dial>` of a browser call) is the same conversation
 * and is not recorded twice; anything else (calls other software placed on the account) is not
 * ours and is ignored.
 */
import { and, eq, isNull, ne, type SQL, sql } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Transaction } from '../../db/client';
import { calls, contactPhoneScope, leadPhoneScope, phoneNumbers, phoneNumberUsers, users } from '../../db/schema';
import type { CallRow } from './calls';
import { callerNumber, e164 } from './numbers';

type Param = (name: string) => string | undefined;

interface Party {
  leadId: number | null;
  contactId: number | null;
  companyId: number | null;
}

const NOBODY: Party = { leadId: null, contactId: null, companyId: null };

/**
 * The organization's live leads and contacts (five of each, newest first) whose phone has one of
 * these digit strings: the candidates partyByPhone confirms. Through the phone scopes (migration
 * 0062), so the digits indexes serve it inside the tenant transaction.
 */
export function phoneCandidatesSql(orgId: number, digits: string[]): SQL {
  const among = sql`in (${sql.join(
    digits.map((value) => sql`${value}`),
    sql`, `,
  )})`;
  return sql`
    (select 'lead' as kind, l.id, l.company_id, l.phone_number as phone from ${leadPhoneScope} l
      where l.organization_id = ${orgId} and l.phone_digits ${among}
      order by l.id desc limit 5)
    union all
    (select 'contact', c.id, c.company_id, c.phone_number from ${contactPhoneScope} c
      where c.organization_id = ${orgId} and c.phone_digits ${among}
      order by c.id desc limit 5)`;
}

/** The organization's lead (else contact) with this E.164 phone: the most recent one. */
export async function partyByPhone(tx: Transaction, orgId: number, phone: string | null): Promise<Party> {
  const parsed = phone ? parsePhoneNumberFromString(phone) : undefined;
  if (!phone || !parsed) return NOBODY;
  // Candidates by their digits (the whole number, or the national part); confirmed below as E.164.
  const result = await tx.execute<{
    kind: 'lead' | 'contact';
    id: string;
    company_id: string | null;
    phone: string;
  }>(phoneCandidatesSql(orgId, [phone.slice(1), String(parsed.nationalNumber)]));
  const match = result.rows.find((row) => e164(row.phone, 'US') === phone);
  if (!match) return NOBODY;
  const companyId = match.company_id === null ? null : Number(match.company_id);
  return match.kind === 'lead'
    ? { leadId: Number(match.id), contactId: null, companyId }
    : { leadId: null, contactId: Number(match.id), companyId };
}

/** The user a voice token's identity (`user_<org>_<user>`) names, when they are of this organization. */
async function userOfIdentity(tx: Transaction, orgId: number, identity: string): Promise<number | null> {
  const match = /^user_(\d+)_(\d+)$/.exec(identity);
  if (!match || Number(match[1]) !== orgId) return null;
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organizationId, orgId), eq(users.id, Number(match[2])), isNull(users.deletedAt)));
  return row?.id ?? null;
}

/** One of the organization's numbers (not a failed purchase), with its first assigned user. */
async function ownNumber(tx: Transaction, orgId: number, phone: string) {
  const [row] = await tx
    .select({
      id: phoneNumbers.id,
      userId: sql<
        string | null
      >`(select min(a.user_id) from ${phoneNumberUsers} a where a.organization_id = ${orgId} and a.phone_number_id = ${phoneNumbers.id})`,
    })
    .from(phoneNumbers)
    .where(
      and(
        eq(phoneNumbers.organizationId, orgId),
        eq(phoneNumbers.phoneNumber, phone),
        ne(phoneNumbers.status, 'failed'),
      ),
    )
    .limit(1);
  return row ? { id: row.id, userId: row.userId === null ? null : Number(row.userId) } : null;
}

interface Observed {
  userId: number | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  /** The other side's number: whose lead or contact the call is with. */
  other: string | null;
}

async function describeCall(tx: Transaction, orgId: number, get: Param): Promise<Observed | null> {
  const from = get('From') ?? '';
  const to = get('To') ?? '';
  if (from.startsWith('client:')) {
    const userId = await userOfIdentity(tx, orgId, from.slice('client:'.length));
    const callee = e164(to, 'US');
    const callerId = await callerNumber({ db: tx, orgId, userId });
    return { userId, direction: 'outbound', from: callerId ?? from, to: callee ?? to, other: callee };
  }
  if (get('Direction') !== 'inbound') return null;
  const ours = e164(to);
  const number = ours ? await ownNumber(tx, orgId, ours) : null;
  if (!ours || !number) return null;
  const caller = e164(from, 'US');
  return { userId: number.userId, direction: 'inbound', from: caller ?? from, to: ours, other: caller };
}

/**
 * The Call row of a callback's CallSid we did not place: recorded on the first callback that
 * names it, found on every later one; null when the call is not ours to record.
 */
export async function recordObservedCall(
  tx: Transaction,
  orgId: number,
  connectionId: number,
  callSid: string,
  get: Param,
): Promise<CallRow | null> {
  if (get('ParentCallSid')) return null;
  const seen = await describeCall(tx, orgId, get);
  if (!seen?.to || !seen.from) return null;
  const party = await partyByPhone(tx, orgId, seen.other);
  await tx
    .insert(calls)
    .values({
      organizationId: orgId,
      userId: seen.userId,
      ...party,
      direction: seen.direction,
      kind: 'browser',
      fromNumber: seen.from.slice(0, 64),
      toNumber: seen.to.slice(0, 64),
      provider: 'twilio',
      connectionId,
      providerCallId: callSid,
    })
    .onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(calls)
    .where(and(eq(calls.organizationId, orgId), eq(calls.provider, 'twilio'), eq(calls.providerCallId, callSid)));
  return row ?? null;
}
