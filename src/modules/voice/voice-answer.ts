/**
 * Our Voice URL (`POST /api/v1/voice/twilio/{org_id}/voice`): the TwiML Twilio asks for when a
 * browser places a call through the TwiML App (`From` `client:user_<org>_<user>`, the voice
 * token's identity, and the `To` the browser passed to `device.connect`) and when someone calls
 * one of the organization's numbers (`To` is our number). Two statements: the scope and one read
 * of the connection with what the answer needs (the caller number, the number's users, the
 * wallet's balance); nothing is written (the status callbacks record the call). The signature is
 * checked before the answer uses anything: unsigned, forged, or for an organization without a
 * Twilio connection is a 403. Past it, every answer is TwiML with a 200, also when the call
 * cannot go through (a `<Say>` of why and `<Hangup/>`): Twilio reads a 4xx or 5xx as an
 * application error and plays its own generic message instead.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { Forbidden } from '../../core/errors';
import { scopeSession, type Database } from '../../db/client';
import { connections, phoneNumbers, phoneNumberUsers, users } from '../../db/schema';
import type { Bindings } from '../../env';
import { twimlDialClients, twimlDialNumber, twimlRefusal } from '../../providers/voice/twiml';
import { e164 } from './numbers';
import { statusCallbackUrl, twilioOrigin, verifiedTwilioCredentials } from './twilio-request';
import { balanceSql } from './wallet';

export const VOICE_MESSAGES = {
  notUser: 'This caller is not a user of the organization.',
  badNumber:
    'The number you dialled is not a valid phone number in international format. Please check it and call again.',
  noNumber: 'The organization has no phone number to call from.',
  suspended: 'The organization’s phone number is suspended for an unpaid rental. Top up the calling wallet.',
  emptyWallet: 'The calling wallet has no balance left. Top it up to place calls.',
  notInService: 'This number is not in service.',
  nobody: 'Nobody can take your call right now. Please call again later.',
} as const;

/** The voice token's identity of a user (account.ts issues tokens with it). */
export const clientIdentity = (orgId: number, userId: number) => `user_${orgId}_${userId}`;

function identityUser(orgId: number, from: string): number | null {
  const match = /^client:user_(\d+)_(\d+)$/.exec(from);
  return match && Number(match[1]) === orgId ? Number(match[2]) : null;
}

const refused = () => new Forbidden('The webhook’s signature is missing or not valid', 'invalid_signature');

/** What the read adds to the connection, by the kind of call. */
interface CallFacts {
  isUser?: boolean;
  callerId?: string | null;
  suspended?: boolean;
  number?: { status: string; users: number[] } | null;
}

/** A browser's call: the columns the read adds for its user. */
function browserColumns(orgId: number, userId: number) {
  return {
    isUser: sql<boolean>`exists (select 1 from ${users} u where u.organization_id = ${orgId} and u.id = ${userId} and u.deleted_at is null)`,
    // The user's own active number first, else the organization's first active one (as agent calls choose).
    callerId: sql<string | null>`(select p.phone_number from ${phoneNumbers} p
      where p.organization_id = ${orgId} and p.status = 'active'
      order by not exists (select 1 from ${phoneNumberUsers} a where a.organization_id = ${orgId} and a.phone_number_id = p.id and a.user_id = ${userId}), p.id
      limit 1)`,
    suspended: sql<boolean>`exists (select 1 from ${phoneNumbers} p where p.organization_id = ${orgId} and p.status = 'suspended')`,
  };
}

/** A call to one of our numbers: its status and its users (not deleted), or null when it is not ours. */
function inboundColumns(orgId: number, number: string) {
  return {
    number: sql<{ status: string; users: number[] } | null>`(select json_build_object('status', p.status, 'users',
        coalesce((select json_agg(a.user_id order by a.user_id) from ${phoneNumberUsers} a
          join ${users} u on u.organization_id = a.organization_id and u.id = a.user_id and u.deleted_at is null
          where a.organization_id = ${orgId} and a.phone_number_id = p.id), '[]'::json))
      from ${phoneNumbers} p where p.organization_id = ${orgId} and p.phone_number = ${number} and p.status <> 'failed'
      limit 1)`,
  };
}

export async function answerTwilioVoice(
  db: Database,
  env: Bindings,
  orgId: number,
  url: string,
  signature: string | undefined,
  rawBody: string,
): Promise<string> {
  const params = [...new URLSearchParams(rawBody).entries()];
  const get = (name: string) => params.find(([key]) => key === name)?.[1] ?? '';
  const from = get('From');
  const browser = from.startsWith('client:');
  const userId = browser ? identityUser(orgId, from) : null;
  const ours = browser ? null : e164(get('To'));
  await scopeSession(db, orgId);
  const [row] = await db
    .select({
      connection: connections,
      balance: sql<string>`${balanceSql(orgId)}`,
      ...(userId !== null ? browserColumns(orgId, userId) : {}),
      ...(ours ? inboundColumns(orgId, ours) : {}),
    })
    .from(connections)
    .where(and(eq(connections.organizationId, orgId), eq(connections.kind, 'voice'), isNull(connections.deletedAt)))
    .orderBy(desc(connections.id))
    .limit(1);
  if (!row || !(await verifiedTwilioCredentials(env, row.connection, url, signature, params))) throw refused();
  const statusCallback = statusCallbackUrl(twilioOrigin(row.connection, url), orgId);
  const funded = Number(row.balance) > 0;
  const found: CallFacts = row;
  if (browser) {
    if (userId === null || !found.isUser) return twimlRefusal(VOICE_MESSAGES.notUser);
    const to = get('To');
    const callee = to.startsWith('+') ? e164(to) : null;
    if (!callee) return twimlRefusal(VOICE_MESSAGES.badNumber);
    if (!found.callerId) return twimlRefusal(found.suspended ? VOICE_MESSAGES.suspended : VOICE_MESSAGES.noNumber);
    if (!funded) return twimlRefusal(VOICE_MESSAGES.emptyWallet);
    return twimlDialNumber({ callerId: found.callerId, number: callee, statusCallback });
  }
  const number = found.number ?? null;
  if (!number || number.status === 'suspended') return twimlRefusal(VOICE_MESSAGES.notInService);
  if (number.users.length === 0) return twimlRefusal(VOICE_MESSAGES.nobody);
  if (!funded) return twimlRefusal(VOICE_MESSAGES.emptyWallet);
  const identities = number.users.map((user) => clientIdentity(orgId, Number(user)));
  return twimlDialClients({ identities, statusCallback });
}
