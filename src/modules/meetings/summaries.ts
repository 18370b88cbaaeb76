/**
 * A meeting's summary (spec: `POST /api/meeting/:id/generate-summary`): the stored transcript,
 * summarised by the AI provider with the `meeting-summary@v1` prompt, paid `meeting_summary`
 * credits through the intelligence module's paid call (reserved before the model is asked, kept
 * with the summary in one transaction, refunded on any failure). The summary replaces the
 * meeting's previous one (`meetings.summary`, shown as `latest_summary` by every meeting read).
 *
 * Everything that can refuse the call without the model (another organization's meeting, no
 * transcript) does so before the reservation, so a refusal never touches the ledger.
 */
import { and, eq, sql } from 'drizzle-orm';
import { ApiError, NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { meetings, meetingTranscripts, type StoredMeetingSummary } from '../../db/schema';
import { tenantWhere } from '../../db/tenant';
import { meetingSummaryPrompt, paidGeneration, type PaidCall } from '../intelligence';
import type { StoredTranscript } from './transcripts';

/**
 * What the model is sent of a transcript, in characters (about 25 000 tokens): a longer one is
 * summarised from its beginning, and the text sent says it was cut.
 */
export const MAX_SUMMARY_INPUT_CHARS = 100_000;

export type SummaryDetail = StoredMeetingSummary['detail'];

/** The meeting's title and stored transcript: 404 for another organization's meeting and for one without a transcript. */
async function transcriptOf(call: PaidCall, bucket: R2Bucket, meetingId: number) {
  const [found] = await call.ctx.db
    .select({
      title: meetings.title,
      storageKey: meetingTranscripts.storageKey,
      transcriptAt: meetingTranscripts.createdAt,
    })
    .from(meetings)
    .leftJoin(
      meetingTranscripts,
      and(
        eq(meetingTranscripts.organizationId, meetings.organizationId),
        eq(meetingTranscripts.meetingId, meetings.id),
      ),
    )
    .where(tenantWhere(call.ctx, meetings, eq(meetings.id, meetingId)));
  if (!found) throw new NotFound('Meeting', meetingId);
  const noTranscript = new ApiError(
    404,
    'not_found',
    `Meeting ${meetingId} has no transcript to summarise: upload one first (POST /api/meeting/${meetingId}/transcript)`,
  );
  if (!found.storageKey || !found.transcriptAt) throw noTranscript;
  const object = await bucket.get(found.storageKey);
  if (!object) throw noTranscript;
  const body = (await object.json()) as StoredTranscript;
  const transcript =
    body.text.length > MAX_SUMMARY_INPUT_CHARS
      ? `${body.text.slice(0, MAX_SUMMARY_INPUT_CHARS)}\n[the rest of the transcript was cut]`
      : body.text;
  return { title: found.title, transcript, transcriptAt: isoTimestamp(found.transcriptAt) as string };
}

export async function generateMeetingSummary(
  call: PaidCall,
  bucket: R2Bucket,
  meetingId: number,
  detail: SummaryDetail,
) {
  const { title, transcript, transcriptAt } = await transcriptOf(call, bucket, meetingId);
  return paidGeneration(
    call,
    'meeting_summary',
    meetingSummaryPrompt,
    { title, transcript, detail },
    async (tx, generation, charge) => {
      const summary: StoredMeetingSummary = {
        detail,
        text: generation.text.trim(),
        provider: generation.provider,
        model: generation.model,
        prompt_version: generation.prompt_version,
        generated_at: new Date().toISOString(),
        transcript_at: transcriptAt,
      };
      const updated = await tx
        .update(meetings)
        .set({ summary, updatedAt: sql`now()` })
        .where(tenantWhere(call.ctx, meetings, eq(meetings.id, meetingId)))
        .returning({ id: meetings.id });
      // Deleted while the model wrote: nothing is kept, and the call is refunded.
      if (updated.length === 0) throw new NotFound('Meeting', meetingId);
      return {
        meeting_id: meetingId,
        detail,
        summary: summary.text,
        provider: summary.provider,
        model: summary.model,
        prompt_version: summary.prompt_version,
        generated_at: summary.generated_at,
        transcript_at: transcriptAt,
        credits_charged: charge.credits_charged,
        balance: charge.balance,
      };
    },
    `meeting_summary:meeting:${meetingId}:${crypto.randomUUID()}`,
  );
}
