/**
 * The organization's voice connection and the providers it stands for. An organization has at
 * most one live `voice` connection (kind `voice`, provider `twilio`; its sealed secret holds the
 * Twilio credentials and, optionally, the Vapi agent platform's); without one, everything runs on
 * the local simulator.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { connections } from '../../db/schema';
import type { Bindings } from '../../env';
import { openCredentials, type ConnectionRow } from '../connections';
import { ConnectionNeedsReconnect } from '../failures';
import type { AgentPlatform, TelephonyProvider } from './interface';
import { localTelephony } from './local';
import { twilioTelephony, type TwilioCredentials } from './twilio';
import { vapiAgent, type VapiCredentials } from './vapi';

export interface VoiceCredentials {
  twilio: TwilioCredentials;
  vapi?: VapiCredentials;
}

export interface VoiceSetup {
  connection: ConnectionRow | null;
  provider: 'local' | 'twilio';
  credentials: VoiceCredentials | null;
  telephony: TelephonyProvider;
  /** The AI agent platform; null when only the simulator or Twilio without Vapi is connected. */
  agent: AgentPlatform | null;
}

/** The organization's live voice connection, or null (the local simulator). */
export async function findVoiceConnection(db: Queryable, orgId: number): Promise<ConnectionRow | null> {
  const [row] = await db
    .select()
    .from(connections)
    .where(and(eq(connections.organizationId, orgId), eq(connections.kind, 'voice'), isNull(connections.deletedAt)))
    .orderBy(desc(connections.id))
    .limit(1);
  return row ?? null;
}

export async function voiceSetupOf(env: Bindings, connection: ConnectionRow | null): Promise<VoiceSetup> {
  if (!connection || connection.provider === 'local') {
    return { connection, provider: 'local', credentials: null, telephony: localTelephony(), agent: null };
  }
  const credentials = await openCredentials<VoiceCredentials>(env, connection);
  if (!credentials) throw new ConnectionNeedsReconnect(connection);
  return {
    connection,
    provider: 'twilio',
    credentials,
    telephony: twilioTelephony(credentials.twilio),
    agent: credentials.vapi ? vapiAgent(credentials.vapi) : null,
  };
}
