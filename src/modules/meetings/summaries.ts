/**
 * A meeting's summary (spec: `POST /api/meeting/:id/generate-summary`): the stored transcript,
 * summarised by the AI provider with the `meeting-summary@v2` prompt, paid `meeting_summary`
 * credits through the intelligence module's paid call (reserved before the model is asked, kept
 * with the summary in one transaction, refunded on any failure). The summary replaces the
 * meeting's previous one (`meetings.summary`, shown as `latest_summary` by every meeting read).
 *
 * A transcript longer than one request carries (`MAX_SUMMARY_INPUT_CHARS`) is summarised in two
 * steps for the same one charge: notes on each part (`meeting-summary-part@v1`, parts split at line
 * ends, a few asked at once), then the summary of the whole meeting from those notes in order.
 * Beyond `MAX_SUMMARY_PARTS` parts the rest is cut and the last part says so.
 *
 * Everything that can refuse the call without the model (another organization's meeting, no
 * transcript) does so before the reservation, so a refusal never touches the ledger.
 */
import { and, eq, sql } from 'drizzle-orm';
import { ApiError, NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { meetings, meetingTranscripts, type StoredMeetingSummary } from '../../db/schema';
import { tenantWhere } from '../../db/tenant';
import type { AiProvider, Generation } from '../../providers/ai/interface';
import { meetingSummaryPartPrompt, meetingSummaryPrompt, paidGenerations, type PaidCall } from '../intelligence';
import type { StoredTranscript } from './transcripts';

/** What one request to the model carries of a transcript, in characters (about 25 000 tokens). */
export const MAX_SUMMARY_INPUT_CHARS = 100_000;
/** Parts a long transcript is summarised in, at most: 1 200 000 characters, about a day of speech. */
export const MAX_SUMMARY_PARTS = 12;
/** Parts asked of the provider at once (a Worker keeps at most 6 connections open). */
const PARTS_AT_ONCE = 4;
const CUT_NOTE = '[the rest of the transcript was cut]';

/**
 * `text` in parts of at most `maxChars` characters, split at line ends (a longer line is split
 * inside), in order; beyond `maxParts` the rest is left out and `cut` says so.
 */
export function transcriptParts(text: string, maxChars: number, maxParts: number): { parts: string[]; cut: boolean } {
  const parts: string[] = [];
  let current: string | null = null;
  for (let line of text.split('\n')) {
    while (line.length > maxChars) {
      if (current !== null) parts.push(current);
      current = null;
      parts.push(line.slice(0, maxChars));
      line = line.slice(maxChars);
    }
    if (current !== null && current.length + 1 + line.length <= maxChars) current = `${current}\n${line}`;
    else {
      if (current !== null) parts.push(current);
      current = line;
    }
  }
  if (current !== null && current.trim() !== '') parts.push(current);
  return { parts: parts.slice(0, maxParts), cut: parts.length > maxParts };
}

/** `work` on every item, at most `atOnce` at a time, results in item order; the first failure rejects. */
async function eachAtMost<T, R>(
  items: T[],
  atOnce: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  return results;
}

/** The summary's generation: one request when the transcript fits, else the notes on every part, then the whole from them. */
async function summarise(
  provider: AiProvider,
  title: string,
  text: string,
  detail: SummaryDetail,
): Promise<Generation> {
  const { parts, cut } = transcriptParts(text, MAX_SUMMARY_INPUT_CHARS, MAX_SUMMARY_PARTS);
  if (parts.length <= 1) return provider.generate(meetingSummaryPrompt, { title, transcript: text, detail });
  const last = parts.length - 1;
  const notes = await eachAtMost(parts, PARTS_AT_ONCE, async (part, index) => {
    const generation = await provider.generate(meetingSummaryPartPrompt, {
      title,
      part: index + 1,
      parts: parts.length,
      text: index === last && cut ? `${part}\n${CUT_NOTE}` : part,
    });
    return generation.text;
  });
  const transcript = cut ? `${parts.join('\n')}\n${CUT_NOTE}` : text;
  return provider.generate(meetingSummaryPrompt, { title, transcript, detail, partNotes: notes });
}

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
  return { title: found.title, transcript: body.text, transcriptAt: isoTimestamp(found.transcriptAt) as string };
}

export async function generateMeetingSummary(
  call: PaidCall,
  bucket: R2Bucket,
  meetingId: number,
  detail: SummaryDetail,
) {
  const { title, transcript, transcriptAt } = await transcriptOf(call, bucket, meetingId);
  return paidGenerations(
    call,
    'meeting_summary',
    (provider) => summarise(provider, title, transcript, detail),
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
