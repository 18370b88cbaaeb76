/**
 * The voice providers a job works with: those of the call's or number's connection (its keys
 * opened), or the deployment's default, and the origin the providers call back.
 */
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { connections } from '../../db/schema';
import type { Bindings } from '../../env';
import { voiceSetupOf, type VoiceSetup } from '../../providers/voice/select';

/** The voice setup (providers and credentials) of the call's or number's connection, or the default one. */
export async function setupFor(
  db: Queryable,
  env: Bindings,
  orgId: number,
  connectionId: number | null,
): Promise<VoiceSetup> {
  if (!connectionId) return voiceSetupOf(env, null);
  const [connection] = await db
    .select()
    .from(connections)
    .where(and(eq(connections.organizationId, orgId), eq(connections.id, connectionId)));
  return voiceSetupOf(env, connection ?? null);
}

/** Where the provider reaches this API's voice webhooks (the connection's `webhook_origin`). */
export function webhookOrigin(setup: VoiceSetup): string {
  const origin = (setup.connection?.settings as { webhook_origin?: string } | undefined)?.webhook_origin;
  return origin ?? 'http://localhost:8787';
}
