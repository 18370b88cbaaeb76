import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { meetings } from './meetings';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** How a transcript was written when it arrived: plain text, WebVTT or SubRip. */
export const TRANSCRIPT_FORMATS = ['text', 'vtt', 'srt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Meeting tools that may deliver transcripts through a signed webhook. */
export const WEBHOOK_MEETING_TOOLS = ['tool_a', 'tool_b', 'tool_c'] as const;
export type WebhookMeetingTool = (typeof WEBHOOK_MEETING_TOOLS)[number];

/**
 * The index row of a meeting's transcript: one per meeting (a new one replaces it). The text and
 * its speaker/time segments are a JSON object in R2 (`storage_key`); the row holds what a list or
 * a check needs without reading it. `source` is `upload` or the meeting tool that delivered it.
 */
export const meetingTranscripts = pgTable(
  'meeting_transcripts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    meetingId: bigint({ mode: 'number' })
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    source: text().notNull(),
    format: text().$type<TranscriptFormat>().notNull(),
    storageKey: text().notNull(),
    sizeBytes: integer().notNull(),
    segmentCount: integer().notNull(),
    speakers: text().array().notNull().default(sql`'{}'::text[]`),
    /** End of the last timed segment (null for plain text without times). */
    durationMs: bigint({ mode: 'number' }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('meeting_transcripts_meeting_id_idx').on(table.meetingId),
    uniqueIndex('meeting_transcripts_meeting_idx').on(table.organizationId, table.meetingId),
    check('meeting_transcripts_format_check', sql`${table.format} in ('text', 'vtt', 'srt')`),
    tenantPolicy('meeting_transcripts'),
  ],
);

/**
 * An organization's webhook endpoint for one meeting tool: the tool posts finished transcripts to
 * `/api/v1/meeting-tools/{tool}/webhook/{token}`, signed with the endpoint's secret (sealed, like
 * every credential: src/providers/secrets.ts). The URL's token is shown once, when the endpoint is
 * added, and kept only as its SHA-256 (`token_hash`, unique across organizations: it finds the
 * endpoint before any tenant scope) and its last 4 characters (`token_last4`, for the masked URL
 * the list shows); the signature is what authenticates a delivery. Migration 0097 hashed the
 * tokens kept in clear before.
 */
export const meetingToolEndpoints = pgTable(
  'meeting_tool_endpoints',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    tool: text().$type<WebhookMeetingTool>().notNull(),
    /** SHA-256 (hex) of the URL's token (`mtw_…`); the token itself is never stored. */
    tokenHash: text().notNull(),
    /** The token's last 4 characters: the list shows the URL as `…/webhook/mtw_…<last4>`. */
    tokenLast4: text().notNull(),
    secret: text().notNull(),
    secretKeyId: text().notNull(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    /** A deleted endpoint: its token no longer answers. */
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex('meeting_tool_endpoints_token_hash_idx').on(table.tokenHash),
    index('meeting_tool_endpoints_organization_idx').on(table.organizationId, table.id),
    check('meeting_tool_endpoints_tool_check', sql`${table.tool} in ('tool_a', 'tool_b', 'tool_c')`),
    tenantPolicy('meeting_tool_endpoints'),
  ],
);

/**
 * Delivery ids an endpoint has accepted: a delivery whose id is here already is a replay (or the
 * tool's retry of one we answered, which comes with the same id and a fresh timestamp) and changes
 * nothing. Kept 7 days, past the tools' retry schedules (modules/meetings/retention.ts).
 */
export const meetingToolDeliveries = pgTable(
  'meeting_tool_deliveries',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    endpointId: bigint({ mode: 'number' })
      .notNull()
      .references(() => meetingToolEndpoints.id, { onDelete: 'cascade' }),
    deliveryId: text().notNull(),
    meetingId: bigint({ mode: 'number' }),
    receivedAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.endpointId, table.deliveryId] }),
    // The retention sweep's range, across organizations.
    index('meeting_tool_deliveries_received_idx').on(table.receivedAt),
    tenantPolicy('meeting_tool_deliveries'),
  ],
);
