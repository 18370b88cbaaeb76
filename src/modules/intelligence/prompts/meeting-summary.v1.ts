/**
 * meeting-summary v1: a summary of a meeting's transcript, brief (a few sentences) or detailed
 * (summary, decisions, action items). Plain text.
 */
import type { Prompt } from '../../../providers/ai/interface';

export interface MeetingSummaryVars {
  title: string;
  transcript: string;
  detail: 'brief' | 'detailed';
}

function lines(transcript: string): string[] {
  return transcript
    .split(/\n+/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
}

const ACTION = /\b(will|to do|action|follow up|follow-up|send|schedule|next step)\b/i;

export const meetingSummaryPrompt: Prompt<MeetingSummaryVars> = {
  id: 'meeting-summary',
  version: 1,
  system:
    'You summarise sales meeting transcripts. Use only what the transcript says. For "brief": at most 3 sentences. For "detailed": a short summary paragraph, then "Decisions:" and "Action items:" as bullet lists (write "none" when there are none).',
  user: ({ title, transcript, detail }) => `Detail: ${detail}\nMeeting: ${title}\n\nTranscript:\n${transcript}`,
  local: ({ title, transcript, detail }) => {
    const all = lines(transcript);
    const head = `${title}: ${all.length} transcript line${all.length === 1 ? '' : 's'}.`;
    if (detail === 'brief') return [head, ...all.slice(0, 2)].join(' ');
    const actions = all.filter((line) => ACTION.test(line));
    return [
      head,
      all.slice(0, 5).join(' '),
      `Action items:\n${actions.length ? actions.map((line) => `- ${line}`).join('\n') : '- none'}`,
    ].join('\n\n');
  },
  maxTokens: 900,
};
