/**
 * Reading a transcript into speaker/time segments, from the three forms meeting tools export:
 *   - WebVTT (`WEBVTT` header; cues `00:01:02.500 --> 00:01:05.000`; the speaker in a voice tag
 *     `<v Ada Lovelace>` or as a `Name: ` prefix);
 *   - SubRip (numbered cues, `00:01:02,500 --> 00:01:05,000`; the speaker as a `Name: ` prefix);
 *   - plain text, one utterance a line, `Name: text`, optionally after a `[hh:mm:ss]` stamp.
 * Both caption formats are small and line-based; this is the whole of what we use of them (no
 * styling, regions or positions), so no parser library is worth its weight here. A malformed
 * timing is refused with the line it is on, never guessed.
 */
import { ValidationFailed } from '../../core/errors';
import type { TranscriptFormat } from '../../db/schema';

export interface TranscriptSegment {
  speaker: string | null;
  /** Milliseconds from the start of the recording (null in plain text without stamps). */
  start_ms: number | null;
  end_ms: number | null;
  text: string;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  segments: TranscriptSegment[];
  /** The transcript as readable text: one `Speaker: text` line per segment. */
  text: string;
}

/** At most this many segments (a ten-hour meeting with a cue every second). */
export const MAX_SEGMENTS = 36_000;

const TIMING = /^((?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})\s+-->\s+((?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})(?:\s.*)?$/;
const SPEAKER_PREFIX = /^([^\s:<>[\]][^:<>[\]]{0,59}?):\s+(.+)$/;
const TEXT_STAMP = /^\[?((?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?)\]?\s+(.*)$/;

function milliseconds(stamp: string): number {
  const [clock, fraction = '0'] = stamp.split(/[.,]/);
  const parts = clock.split(':').map(Number);
  while (parts.length < 3) parts.unshift(0);
  const [hours, minutes, seconds] = parts;
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + Number(fraction.padEnd(3, '0'));
}

/** The format the content is written in, when the uploader did not say. */
export function detectFormat(content: string): TranscriptFormat {
  const head = content.replace(/^\uFEFF/, '').trimStart();
  if (/^WEBVTT(?:[ \t]|\r?\n|$)/.test(head)) return 'vtt';
  if (/^\d+\r?\n(?:\d{1,2}:)?\d{1,2}:\d{2},\d{1,3}\s+-->/.test(head)) return 'srt';
  return 'text';
}

/** `field`: the input a refusal names (`file` for an upload, `transcript` for a webhook delivery). */
function refuse(field: string, message: string): never {
  throw ValidationFailed.field(field, message);
}

function speakerAndText(payload: string): { speaker: string | null; text: string } {
  const voice = /^<v(?:\.[\w.-]+)?\s+([^>]+)>([\s\S]*?)(?:<\/v>)?$/.exec(payload);
  if (voice) return { speaker: voice[1].trim(), text: stripTags(voice[2]) };
  const clean = stripTags(payload);
  const prefixed = SPEAKER_PREFIX.exec(clean);
  return prefixed ? { speaker: prefixed[1].trim(), text: prefixed[2].trim() } : { speaker: null, text: clean };
}

function stripTags(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cues of WebVTT or SubRip: blocks separated by blank lines, each with one timing line. */
function parseCues(content: string, format: 'vtt' | 'srt', field: string): TranscriptSegment[] {
  const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const segments: TranscriptSegment[] = [];
  let index = 0;
  if (format === 'vtt') {
    // The header block (WEBVTT and its optional text) ends at the first blank line.
    while (index < lines.length && lines[index].trim() !== '') index++;
  }
  while (index < lines.length) {
    while (index < lines.length && lines[index].trim() === '') index++;
    if (index >= lines.length) break;
    const blockStart = index;
    const block: string[] = [];
    while (index < lines.length && lines[index].trim() !== '') block.push(lines[index++]);
    if (format === 'vtt' && /^(NOTE|STYLE|REGION)(\s|$)/.test(block[0])) continue;
    const timingAt = block.findIndex((line) => line.includes('-->'));
    if (timingAt < 0 || timingAt > 1) refuse(field, `line ${blockStart + 1}: a cue without a timing line`);
    const timing = TIMING.exec(block[timingAt].trim());
    if (!timing)
      refuse(field, `line ${blockStart + timingAt + 1}: malformed cue timing "${block[timingAt].slice(0, 60)}"`);
    const start = milliseconds(timing[1]);
    const end = milliseconds(timing[2]);
    if (end < start) refuse(field, `line ${blockStart + timingAt + 1}: the cue ends before it starts`);
    const { speaker, text } = speakerAndText(block.slice(timingAt + 1).join('\n'));
    if (text) segments.push({ speaker, start_ms: start, end_ms: end, text });
  }
  return segments;
}

function parsePlain(content: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  for (const raw of content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const stamped = TEXT_STAMP.exec(line);
    const start = stamped ? milliseconds(stamped[1]) : null;
    const { speaker, text } = speakerAndText(stamped ? stamped[2] : line);
    if (text) segments.push({ speaker, start_ms: start, end_ms: null, text });
  }
  return segments;
}

/** Parses content of the given (or detected) format; 422 naming `field` when it is empty or malformed. */
export function parseTranscript(content: string, format?: TranscriptFormat, field = 'file'): ParsedTranscript {
  if (content.includes('\u0000')) refuse(field, 'must be text (it holds a NUL byte)');
  const chosen = format ?? detectFormat(content);
  const segments = chosen === 'text' ? parsePlain(content) : parseCues(content, chosen, field);
  if (segments.length === 0) refuse(field, 'holds no transcript text');
  if (segments.length > MAX_SEGMENTS) refuse(field, `holds more than ${MAX_SEGMENTS} segments`);
  const text = segments.map((segment) => (segment.speaker ? `${segment.speaker}: ${segment.text}` : segment.text));
  return { format: chosen, segments, text: text.join('\n') };
}

/** Distinct speakers in order of first appearance. */
export function speakersOf(segments: TranscriptSegment[]): string[] {
  return [...new Set(segments.flatMap((segment) => (segment.speaker ? [segment.speaker] : [])))];
}

/** The end of the last timed segment, or null when nothing is timed. */
export function durationOf(segments: TranscriptSegment[]): number | null {
  let end: number | null = null;
  for (const segment of segments) {
    const last = segment.end_ms ?? segment.start_ms;
    if (last !== null && (end === null || last > end)) end = last;
  }
  return end;
}
