/**
 * Meeting-tool webhook endpoints: an organization registers one per tool (tool_a, tool_b, tool_c)
 * and gives the tool its URL and signing secret; the tool posts each finished transcript there.
 * The token in the URL finds the endpoint (and so the organization) in the request's scoping
 * statement, by its SHA-256; the signature (webhook-signature.ts) is what authenticates the
 * delivery. The URL is shown whole once, when the endpoint is added (the list shows it masked,
 * `mtw_…<last 4>`), and its token is kept only hashed, as API keys are; the secret is sealed at
 * rest like every credential (src/providers/secrets.ts) and shown once too.
 * A delivery id already accepted changes nothing (a replay, or the tool retrying after a lost
 * answer): answered 200 with `duplicate: true`.
 */
import { eq, isNull, sql, type SQL } from 'drizzle-orm';
import { NotFound, ServiceUnavailable } from '../../core/errors';
import { sha256Hex } from '../../core/auth/api-key-secrets';
import { log } from '../../core/log';
import { isoTimestamp } from '../../core/schemas';
import type { OrganizationLookup } from '../../db/client';
import {
  meetings,
  meetingToolDeliveries,
  meetingToolEndpoints,
  type TranscriptFormat,
  type WebhookMeetingTool,
} from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { keyringOf, openSecret, SecretUnreadable, sealSecret } from '../../providers/secrets';
import { parseTranscript } from './transcript-parse';
import { storeTranscript } from './transcripts';
import { type DeliveryHeaders, newWebhookSecret, verifyDelivery } from './webhook-signature';

type EndpointRow = typeof meetingToolEndpoints.$inferSelect;

export function webhookPath(tool: string, token: string): string {
  return `/api/v1/meeting-tools/${tool}/webhook/${token}`;
}

/** The endpoint as listed: its URL masked to the token's last 4 characters (only its hash is kept). */
function presentEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    tool: row.tool,
    url: webhookPath(row.tool, `mtw_…${row.tokenLast4}`),
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `mtw_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')}`;
}

export async function addEndpoint(ctx: TenantContext, env: Bindings, tool: WebhookMeetingTool) {
  const secret = newWebhookSecret();
  const sealed = await sealSecret(await keyringOf(env), ctx.orgId, secret);
  const token = newToken();
  const [row] = await ctx.db
    .insert(meetingToolEndpoints)
    .values({
      organizationId: ctx.orgId,
      tool,
      tokenHash: await sha256Hex(token),
      tokenLast4: token.slice(-4),
      secret: sealed.sealed,
      secretKeyId: sealed.keyId,
      createdBy: ctx.userId,
    })
    .returning();
  // The only answer that holds the whole URL (its stored replay is sealed: route option sealedReplay).
  return { ...presentEndpoint(row), url: webhookPath(row.tool, token), secret };
}

export async function listEndpoints(ctx: TenantContext) {
  const rows = await ctx.db
    .select()
    .from(meetingToolEndpoints)
    .where(tenantWhere(ctx, meetingToolEndpoints, isNull(meetingToolEndpoints.deletedAt)))
    .orderBy(meetingToolEndpoints.id);
  return rows.map(presentEndpoint);
}

export async function deleteEndpoint(ctx: TenantContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .update(meetingToolEndpoints)
    .set({ deletedAt: sql`now()` })
    .where(
      tenantWhere(ctx, meetingToolEndpoints, eq(meetingToolEndpoints.id, id), isNull(meetingToolEndpoints.deletedAt)),
    )
    .returning({ id: meetingToolEndpoints.id });
  if (deleted.length === 0) throw new NotFound('Meeting tool webhook', id);
}

/** The hash the route computes from the URL's token (`tokenHash`), never the token itself, reaches SQL. */
const liveEndpoint = (tool: string, tokenHash: string): SQL =>
  sql`${meetingToolEndpoints.tokenHash} = ${tokenHash} and ${meetingToolEndpoints.tool} = ${tool} and ${meetingToolEndpoints.deletedAt} is null`;

/** The SHA-256 by which an endpoint is found from its URL's token. */
export const endpointTokenHash = sha256Hex;

/** The endpoint's organization, found by the scoping statement (the token's hash is unique across organizations). */
export function organizationOfEndpoint(tool: string, tokenHash: string): OrganizationLookup {
  return {
    sql: sql`select ${meetingToolEndpoints.organizationId} from ${meetingToolEndpoints} where ${liveEndpoint(tool, tokenHash)}`,
  };
}

export interface CheckedEndpoint {
  id: number;
  organization_id: number;
  secret: string;
  created_by: number | null;
}

/** The caller check of the scoping statement: the endpoint as one JSON value (null when unknown). */
export function endpointOfToken(tool: string, tokenHash: string): SQL {
  return sql`(select json_build_object('id', ${meetingToolEndpoints.id}, 'organization_id', ${meetingToolEndpoints.organizationId},
    'secret', ${meetingToolEndpoints.secret}, 'created_by', ${meetingToolEndpoints.createdBy})
    from ${meetingToolEndpoints} where ${liveEndpoint(tool, tokenHash)}) as caller`;
}

export interface Delivery {
  meeting_id?: number;
  meeting_url?: string;
  format?: TranscriptFormat;
  transcript: string;
}

/**
 * One signed delivery: verify (401 otherwise), record its id (a known id: nothing changes), find
 * the meeting by id or join URL (404), parse (422 naming `transcript`) and store.
 */
export async function receiveDelivery(
  ctx: TenantContext,
  env: Bindings,
  endpoint: CheckedEndpoint,
  tool: WebhookMeetingTool,
  headers: DeliveryHeaders,
  rawBody: string,
  delivery: Delivery,
) {
  const secret = await openSecret<string>(await keyringOf(env), endpoint.organization_id, endpoint.secret).catch(
    (error: unknown) => {
      if (!(error instanceof SecretUnreadable)) throw error;
      // Its key was rotated away: an admin adds a new endpoint for the tool (docs/providers.md).
      log.warn('meeting-tool webhook secret unreadable: add a new endpoint for the tool', {
        endpoint_id: endpoint.id,
      });
      throw new ServiceUnavailable(
        'This webhook endpoint cannot verify deliveries any more; its owner must replace it',
        'webhook_secret_unreadable',
      );
    },
  );
  const deliveryId = await verifyDelivery(secret, headers, rawBody);
  const [meeting] = await ctx.db
    .select({ id: meetings.id })
    .from(meetings)
    .where(
      tenantWhere(
        ctx,
        meetings,
        delivery.meeting_id !== undefined
          ? eq(meetings.id, delivery.meeting_id)
          : eq(meetings.meetingUrl, delivery.meeting_url as string),
      ),
    )
    .orderBy(sql`${meetings.startTime} desc`)
    .limit(1);
  if (!meeting) throw new NotFound('Meeting', delivery.meeting_id ?? delivery.meeting_url);
  const recorded = await ctx.db
    .insert(meetingToolDeliveries)
    .values({ organizationId: ctx.orgId, endpointId: endpoint.id, deliveryId, meetingId: meeting.id })
    .onConflictDoNothing()
    .returning({ deliveryId: meetingToolDeliveries.deliveryId });
  if (recorded.length === 0) return { meeting_id: meeting.id, duplicate: true };
  const parsed = parseTranscript(delivery.transcript, delivery.format, 'transcript');
  await storeTranscript(ctx, env.FILES, meeting.id, parsed, tool, { lastStatement: true });
  return { meeting_id: meeting.id, duplicate: false };
}
