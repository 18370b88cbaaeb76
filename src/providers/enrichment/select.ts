/**
 * The enrichment provider of an organization: its live connection of kind `enrichment` (the
 * Apollo key sealed under CREDENTIALS_KEY, providers/secrets.ts), or the local provider when it
 * has none. The connection is kept with the provider so a refused key can mark it needs_reconnect.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { connections } from '../../db/schema';
import type { Bindings } from '../../env';
import { type ConnectionRow, openCredentials } from '../connections';
import { ConnectionNeedsReconnect } from '../failures';
import { apolloEnrichment } from './apollo';
import type { EnrichmentProvider } from './interface';
import { localEnrichment } from './local';

export const ENRICHMENT_KIND = 'enrichment';

export interface ChosenEnrichment {
  provider: EnrichmentProvider;
  /** Null for the local provider (no connection). */
  connection: ConnectionRow | null;
}

/** The organization's enrichment connection (the newest live one), or null. Must run scoped to it. */
export async function enrichmentConnection(db: Queryable, orgId: number): Promise<ConnectionRow | null> {
  const [row] = await db
    .select()
    .from(connections)
    .where(
      and(eq(connections.organizationId, orgId), eq(connections.kind, ENRICHMENT_KIND), isNull(connections.deletedAt)),
    )
    .orderBy(desc(connections.id))
    .limit(1);
  return row ?? null;
}

export async function enrichmentProviderFor(
  env: Bindings,
  connection: ConnectionRow | null,
): Promise<ChosenEnrichment> {
  if (!connection || connection.provider === 'local') return { provider: localEnrichment, connection: null };
  if (connection.provider === 'apollo') {
    const credentials = await openCredentials<{ api_key: string }>(env, connection);
    if (!credentials?.api_key) throw new ConnectionNeedsReconnect(connection);
    return { provider: apolloEnrichment(credentials.api_key), connection };
  }
  throw new Error(`enrichment connection ${connection.id} has an unknown provider`);
}
