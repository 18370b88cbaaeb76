/**
 * meeting-summary-part v1: notes on one part of a transcript too long for one request, in plain
 * text, for the meeting-summary prompt to summarise the whole meeting from (modules/meetings/
 * summaries.ts splits the transcript at line ends). The notes keep what a summary needs: topics,
 * figures, decisions, and action items with their owners, with the speakers' names.
 *
 * The local provider composes them from the part alone: its key lines, then its decisions and its
 * action items, quoted as written (`Speaker: text`). The local summary reads the whole transcript
 * itself, so these notes are what a reader of the part would keep, not what the summary is built on.
 */
import type { Prompt } from '../../../providers/ai/interface';
import { detailSections, linesOf } from './meeting-summary.v2';

export interface MeetingSummaryPartVars {
  title: string;
  /** 1-based. */
  part: number;
  parts: number;
  text: string;
}

function localNotes({ part, parts, text }: MeetingSummaryPartVars): string {
  const lines = linesOf(text);
  return [
    `Part ${part} of ${parts}: ${lines.length} line${lines.length === 1 ? '' : 's'}.`,
    ...detailSections(lines),
  ].join('\n\n');
}

export const meetingSummaryPartPrompt: Prompt<MeetingSummaryPartVars> = {
  id: 'meeting-summary-part',
  version: 1,
  system:
    'You take notes on one part of a long sales meeting transcript. A summary of the whole meeting will be written later from the notes on every part, without the transcript, so keep everything it needs from this part and nothing the part does not say: the topics discussed, figures (prices, quantities, dates, deadlines), decisions, and action items with who owns them. Name the speakers. Plain text, at most 300 words.',
  user: ({ title, part, parts, text }) => `Meeting: ${title}\nPart ${part} of ${parts}\n\nTranscript part:\n${text}`,
  local: localNotes,
  maxTokens: 600,
};
