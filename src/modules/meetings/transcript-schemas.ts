/**
 * Wire shapes of meeting transcripts: the upload form, the transcript with its segments, the
 * meeting-tool webhook's delivery and the endpoints an organization registers for its tools.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, text, timestamp, webUrl } from '../../core/schemas';
import { TRANSCRIPT_FORMATS, WEBHOOK_MEETING_TOOLS } from '../../db/schema';
import { fileField } from '../files';

/** 5 MB: a ten-hour meeting's WebVTT is under 2 MB. */
export const MAX_TRANSCRIPT_BYTES = 5 * 1024 * 1024;
/** What a webhook delivery may carry inline (the JSON body limit is 1 MB). */
export const MAX_WEBHOOK_TRANSCRIPT_CHARS = 900_000;

const formatField = z.enum(TRANSCRIPT_FORMATS, { error: 'must be text, vtt or srt' }).optional().openapi({
  description:
    '`text`, `vtt` (WebVTT) or `srt` (SubRip); when omitted, read from the content (a `WEBVTT` header, numbered SubRip cues, else plain text)',
});

export const TranscriptUploadForm = z
  .object({
    file: fileField(
      `The transcript: plain text (\`Speaker: words\` lines, optionally after a \`[hh:mm:ss]\` stamp), WebVTT (speakers from \`<v Name>\` or a \`Name: \` prefix) or SubRip; UTF-8, at most ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB (larger: 413)`,
    ),
    format: formatField,
  })
  .openapi('MeetingTranscriptUploadRequest', {
    description: 'A multipart form with the transcript file',
    example: { file: '(binary)', format: 'vtt' },
  });

export const TranscriptSegmentSchema = z
  .object({
    speaker: z.string().nullable().openapi({ description: 'Who spoke (null when the transcript does not say)' }),
    start_ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Start, in milliseconds from the start of the recording (null: not timed)' }),
    end_ms: z.number().int().nullable().openapi({ description: 'End, in milliseconds (null: not timed)' }),
    text: z.string().openapi({ description: 'What was said' }),
  })
  .openapi('MeetingTranscriptSegment', {
    description: 'One utterance of the transcript',
    example: { speaker: 'Ada Lovelace', start_ms: 1500, end_ms: 4000, text: 'Thanks for joining.' },
  });

export const TranscriptSchema = z
  .object({
    meeting_id: z.number().int().openapi({ description: 'The meeting' }),
    transcript: z
      .string()
      .openapi({ description: 'The whole transcript as text, one `Speaker: words` line a segment' }),
    format: z.enum(TRANSCRIPT_FORMATS).openapi({ description: 'The format it arrived in' }),
    source: z
      .string()
      .openapi({ description: '`upload`, or the meeting tool that delivered it (`tool_a`, `tool_b`, `tool_c`)' }),
    speakers: z.array(z.string()).openapi({ description: 'Distinct speakers, in order of first appearance' }),
    duration_ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'End of the last timed segment (null when nothing is timed)' }),
    segments: z.array(TranscriptSegmentSchema).openapi({ description: 'The utterances, in order' }),
    created_at: timestamp('When this transcript arrived (a new one replaces the previous)'),
  })
  .openapi('MeetingTranscript', {
    description: 'A meeting’s transcript and its speaker/time segments',
    example: {
      meeting_id: 7,
      transcript: 'Ada Lovelace: Thanks for joining.',
      format: 'vtt',
      source: 'upload',
      speakers: ['Ada Lovelace'],
      duration_ms: 4000,
      segments: [{ speaker: 'Ada Lovelace', start_ms: 1500, end_ms: 4000, text: 'Thanks for joining.' }],
      created_at: '2026-03-09T10:00:00.000Z',
    },
  });

export const WebhookToolParams = z.object({
  tool: z.enum(WEBHOOK_MEETING_TOOLS, { error: 'must be tool_a, tool_b or tool_c' }).openapi({
    param: { name: 'tool', in: 'path' },
    description: 'The meeting tool',
    example: 'tool_a',
  }),
  token: z
    .string()
    .regex(/^mtw_[A-Za-z0-9_-]{20,64}$/, 'must be a webhook token (mtw_…)')
    .openapi({
      param: { name: 'token', in: 'path' },
      description: 'The endpoint’s public token, from POST /api/meeting-tools/webhooks/add',
      example: 'mtw_3q2x9cZJ0oJmW1kq8nQ4Tg',
    }),
});

export const TranscriptDeliveryBody = z
  .object({
    meeting_id: positiveId
      .optional()
      .openapi({ type: 'integer', description: 'Our meeting id (give this or meeting_url)' }),
    meeting_url: webUrl()
      .optional()
      .openapi({ description: 'The meeting’s join URL, as stored on the meeting (give this or meeting_id)' }),
    format: formatField,
    transcript: z
      .string()
      .min(1, 'is required')
      .max(MAX_WEBHOOK_TRANSCRIPT_CHARS, `must be at most ${MAX_WEBHOOK_TRANSCRIPT_CHARS} characters`)
      .openapi({ description: 'The transcript text (plain, WebVTT or SubRip)' }),
  })
  .refine((body) => body.meeting_id !== undefined || body.meeting_url !== undefined, {
    message: 'give meeting_id or meeting_url',
    path: ['meeting_id'],
  })
  .openapi('MeetingToolTranscriptDelivery', {
    description: 'A finished transcript, posted by the meeting tool',
    example: { meeting_id: 7, format: 'vtt', transcript: 'WEBVTT\n\n00:00:01.500 --> 00:00:04.000\n<v Ada>Hello\n' },
  });

export const DeliveryResultSchema = z
  .object({
    meeting_id: z.number().int().nullable().openapi({ description: 'The meeting the transcript was stored for' }),
    duplicate: z
      .boolean()
      .openapi({ description: 'true: this delivery id was received before; nothing was changed this time' }),
  })
  .openapi('MeetingToolDeliveryResult', {
    description: 'What became of the delivery',
    example: { meeting_id: 7, duplicate: false },
  });

export const AddEndpointBody = z
  .object({
    tool: z
      .enum(WEBHOOK_MEETING_TOOLS, { error: 'must be tool_a, tool_b or tool_c' })
      .openapi({ description: 'The meeting tool that will post transcripts' }),
  })
  .openapi('AddMeetingToolWebhookRequest', {
    description: 'Which tool the endpoint is for',
    example: { tool: 'tool_a' },
  });

const endpointFields = {
  id: z.number().int().openapi({ description: 'The endpoint’s id' }),
  tool: z.enum(WEBHOOK_MEETING_TOOLS).openapi({ description: 'The meeting tool' }),
  url: z.string().openapi({
    description:
      'The URL the tool posts to, masked: its token shortened to `mtw_…` and its last 4 characters. The whole URL is answered only when the endpoint is added; only a hash of its token is kept. To learn it again, add a new endpoint and delete this one.',
  }),
  created_at: timestamp('When the endpoint was added'),
};

export const EndpointSchema = z.object(endpointFields).openapi('MeetingToolWebhook', {
  description:
    'A webhook endpoint of a meeting tool (its URL, masked here, and its secret are shown whole only once, when added)',
  example: {
    id: 3,
    tool: 'tool_a',
    url: '/api/v1/meeting-tools/tool_a/webhook/mtw_…nQ4T',
    created_at: '2026-03-09T10:00:00.000Z',
  },
});

export const NewEndpointSchema = z
  .object({
    ...endpointFields,
    url: z.string().openapi({
      description:
        'Where the tool posts (path; prefix it with the API’s origin), shown whole only in this answer: give it to the tool. Its token is kept only hashed; lists show it masked.',
    }),
    secret: text(1, 100).openapi({
      description:
        'The signing secret (`whsec_` + base64), shown only in this answer: give it to the tool. Deliveries are signed as Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`',
    }),
  })
  .openapi('NewMeetingToolWebhook', {
    description: 'The endpoint just added, with its whole URL and its signing secret (both shown once)',
    example: {
      id: 3,
      tool: 'tool_a',
      url: '/api/v1/meeting-tools/tool_a/webhook/mtw_3q2x9cZJ0oJmW1kq8nQ4Tg',
      created_at: '2026-03-09T10:00:00.000Z',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    },
  });
