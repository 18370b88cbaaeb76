/**
 * Meeting transcripts: stored in R2 as one JSON object (text and segments) under
 * `<organization>/transcript/<uuid>.json`, indexed by a `meeting_transcripts` row, one per meeting.
 * A new transcript replaces the previous one: its object is written before the row, deleted again
 * if the transaction rolls back, and the previous object is deleted once the new row committed.
 */
import { and, eq, sql } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { meetings, meetingTranscripts, type TranscriptFormat } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { durationOf, type ParsedTranscript, speakersOf, type TranscriptSegment } from './transcript-parse';

type Ctx = Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'effects' | 'commitWithNext'>;

/** The R2 object of a transcript. */
export interface StoredTranscript {
  text: string;
  segments: TranscriptSegment[];
}

/**
 * Stores the parsed transcript of a meeting of the organization (404 for any other meeting).
 * Two statements: the meeting with its current transcript's key, then the upsert. With
 * `lastStatement` (the caller writes nothing after it), the upsert carries the COMMIT.
 */
export async function storeTranscript(
  ctx: Ctx,
  bucket: R2Bucket,
  meetingId: number,
  parsed: ParsedTranscript,
  source: string,
  options: { lastStatement?: boolean } = {},
) {
  const [meeting] = await ctx.db
    .select({ id: meetings.id, previousKey: meetingTranscripts.storageKey })
    .from(meetings)
    .leftJoin(
      meetingTranscripts,
      and(
        eq(meetingTranscripts.organizationId, meetings.organizationId),
        eq(meetingTranscripts.meetingId, meetings.id),
      ),
    )
    .where(tenantWhere(ctx, meetings, eq(meetings.id, meetingId)))
    .for('update', { of: meetings });
  if (!meeting) throw new NotFound('Meeting', meetingId);
  const body = JSON.stringify({ text: parsed.text, segments: parsed.segments } satisfies StoredTranscript);
  const storageKey = `${ctx.orgId}/transcript/${crypto.randomUUID()}.json`;
  await bucket.put(storageKey, body, { httpMetadata: { contentType: 'application/json' } });
  ctx.effects?.afterRollback(() => bucket.delete(storageKey));
  const values = {
    source,
    format: parsed.format,
    storageKey,
    sizeBytes: new TextEncoder().encode(body).length,
    segmentCount: parsed.segments.length,
    speakers: speakersOf(parsed.segments),
    durationMs: durationOf(parsed.segments),
    createdBy: ctx.userId,
  };
  if (options.lastStatement) ctx.commitWithNext?.();
  const [row] = await ctx.db
    .insert(meetingTranscripts)
    .values({ organizationId: ctx.orgId, meetingId, ...values })
    .onConflictDoUpdate({
      target: [meetingTranscripts.organizationId, meetingTranscripts.meetingId],
      set: { ...values, createdAt: sql`now()`, updatedAt: sql`now()` },
    })
    .returning();
  const previousKey = meeting.previousKey;
  if (previousKey) ctx.effects?.afterCommit(() => bucket.delete(previousKey));
  return present(row, { text: parsed.text, segments: parsed.segments });
}

type TranscriptRow = typeof meetingTranscripts.$inferSelect;

function present(row: TranscriptRow, body: StoredTranscript) {
  return {
    meeting_id: row.meetingId,
    transcript: body.text,
    format: row.format as TranscriptFormat,
    source: row.source,
    speakers: row.speakers,
    duration_ms: row.durationMs,
    segments: body.segments,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

/** The meeting's transcript: 404 for a meeting of another organization, and for one without a transcript. */
export async function readTranscript(ctx: Pick<TenantContext, 'db' | 'orgId'>, bucket: R2Bucket, meetingId: number) {
  const [found] = await ctx.db
    .select({ meetingId: meetings.id, transcript: meetingTranscripts })
    .from(meetings)
    .leftJoin(
      meetingTranscripts,
      and(
        eq(meetingTranscripts.organizationId, meetings.organizationId),
        eq(meetingTranscripts.meetingId, meetings.id),
      ),
    )
    .where(tenantWhere(ctx, meetings, eq(meetings.id, meetingId)));
  if (!found) throw new NotFound('Meeting', meetingId);
  if (!found.transcript) throw new NotFound(`Transcript of meeting ${meetingId}`);
  const object = await bucket.get(found.transcript.storageKey);
  if (!object) throw new NotFound(`Transcript of meeting ${meetingId}`);
  return present(found.transcript, (await object.json()) as StoredTranscript);
}
