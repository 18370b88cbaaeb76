/**
 * meeting-summary v2: a summary of a meeting's transcript, brief (a few sentences) or detailed
 * (summary, decisions, action items). Plain text. The transcript is the stored one as text, one
 * `Speaker: text` line per segment (modules/meetings/transcript-parse.ts).
 *
 * v2: a transcript too long for one request reaches the model as the notes of its parts
 * (`partNotes`, written by meeting-summary-part), in order, instead of being cut at its
 * beginning's 100 000 characters as v1 did. A transcript that fits is sent as in v1.
 *
 * The local provider composes it from the whole transcript alone, parts or not: who spoke in how
 * many turns (a turn is a run of lines by one speaker), and the key lines, picked by what they
 * carry (numbers, money, dates, questions, decisions, commitments) and quoted in transcript order.
 * Brief: the turns and two key lines; detailed: the turns, five key lines, then the decisions and
 * the action items.
 */
import type { Prompt } from '../../../providers/ai/interface';

export interface MeetingSummaryVars {
  title: string;
  /** The whole transcript. A model is sent it only when there are no `partNotes`; the local template always reads it whole. */
  transcript: string;
  detail: 'brief' | 'detailed';
  /** The notes on each part of a transcript too long for one request, in transcript order. */
  partNotes?: string[];
}

export interface Line {
  speaker: string | null;
  text: string;
  /** The line as written (`Speaker: text`). */
  quoted: string;
}

const SPEAKER = /^([^:]{1,60}):\s+(.+)$/;
export const ACTION =
  /\b(i will|i'll|we will|we'll|will send|to do|action|follow up|follow-up|send|schedule|next step)\b/i;
const DECISION = /\b(agreed|agree|decided|decision|approved|confirmed|go ahead|sign(ed)? off|let'?s go with)\b/i;
const FIGURE = /(\d|\$|€|£|%|\b(monday|tuesday|wednesday|thursday|friday|budget|price|pricing|deadline)\b)/i;

export function linesOf(transcript: string): Line[] {
  return transcript
    .split(/\n+/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .map((quoted) => {
      const match = SPEAKER.exec(quoted);
      return match ? { speaker: match[1].trim(), text: match[2], quoted } : { speaker: null, text: quoted, quoted };
    });
}

/** Turns per speaker, in order of first appearance: `Ada (3 turns), Grace (2 turns)`. */
function turnsOf(lines: Line[]): { total: number; bySpeaker: string } {
  const counts = new Map<string, number>();
  let total = 0;
  let previous: string | null | undefined;
  for (const line of lines) {
    if (line.speaker === previous) continue;
    previous = line.speaker;
    total++;
    if (line.speaker) counts.set(line.speaker, (counts.get(line.speaker) ?? 0) + 1);
  }
  const bySpeaker = [...counts].map(([name, turns]) => `${name} (${turns} turn${turns === 1 ? '' : 's'})`).join(', ');
  return { total, bySpeaker };
}

/** What a line carries: the highest-scoring lines are the key ones (ties: the earlier). */
function weight(line: Line): number {
  return (
    (DECISION.test(line.text) ? 3 : 0) +
    (ACTION.test(line.text) ? 2 : 0) +
    (FIGURE.test(line.text) ? 2 : 0) +
    (line.text.includes('?') ? 1 : 0) +
    Math.min(2, Math.floor(line.text.length / 60))
  );
}

function keyLines(lines: Line[], count: number): Line[] {
  const picked = lines
    .map((line, index) => ({ line, index, weight: weight(line) }))
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index);
  return picked.map((entry) => entry.line);
}

const bullets = (lines: Line[]) => (lines.length ? lines.map((line) => `- ${line.quoted}`).join('\n') : '- none');

function localSummary({ title, transcript, detail }: MeetingSummaryVars): string {
  const lines = linesOf(transcript);
  const turns = turnsOf(lines);
  const who = turns.bySpeaker ? ` by ${turns.bySpeaker}` : '';
  const head = `${title}: ${turns.total} speaker turn${turns.total === 1 ? '' : 's'}${who}.`;
  if (detail === 'brief') {
    const key = keyLines(lines, 2);
    return [head, ...key.map((line) => line.quoted)].join(' ');
  }
  return [head, ...detailSections(lines)].join('\n\n');
}

/** The detailed sections of some lines: five key lines, then the decisions and the action items, quoted. */
export function detailSections(lines: Line[]): string[] {
  return [
    `Key lines:\n${bullets(keyLines(lines, 5))}`,
    `Decisions:\n${bullets(lines.filter((line) => DECISION.test(line.text)))}`,
    `Action items:\n${bullets(lines.filter((line) => ACTION.test(line.text)))}`,
  ];
}

export const meetingSummaryPrompt: Prompt<MeetingSummaryVars> = {
  id: 'meeting-summary',
  version: 2,
  system:
    'You summarise sales meeting transcripts. Use only what the transcript says. A long meeting may come as notes on its parts, in order, instead of its transcript: summarise the whole meeting from them, using only what they say. For "brief": at most 3 sentences. For "detailed": a short summary paragraph, then "Decisions:" and "Action items:" as bullet lists (write "none" when there are none).',
  user: ({ title, transcript, detail, partNotes }) =>
    partNotes && partNotes.length > 1
      ? `Detail: ${detail}\nMeeting: ${title}\n\nThe transcript was too long to send whole. These are notes on its ${partNotes.length} parts, in order:\n\n${partNotes.map((notes, index) => `Part ${index + 1}:\n${notes.trim()}`).join('\n\n')}`
      : `Detail: ${detail}\nMeeting: ${title}\n\nTranscript:\n${transcript}`,
  local: localSummary,
  maxTokens: 900,
};
