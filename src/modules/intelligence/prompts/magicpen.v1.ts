/**
 * magicpen v1: rewrites a rep's rough note into clear, complete sentences, keeping every fact and
 * adding none. Bump `version` whenever the wording changes (docs/domains/intelligence.md lists them).
 */
import type { Prompt } from '../../../providers/ai/interface';

export interface MagicpenVars {
  note: string;
  context: string;
}

function sentences(note: string): string[] {
  return note
    .split(/\n+|(?<=[.!?])\s+/)
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .map((part) => (/[.!?]$/.test(part) ? part : `${part}.`));
}

export const magicpenPrompt: Prompt<MagicpenVars> = {
  id: 'magicpen',
  version: 1,
  system:
    'You edit sales notes. Rewrite the note in clear, complete, professional sentences. Keep every fact, name, number and date; add nothing that is not in the note or the context. Answer with the rewritten note only.',
  user: ({ note, context }) => `${context ? `Context: ${context}\n\n` : ''}Note:\n${note}`,
  local: ({ note, context }) => {
    const body = sentences(note).join(' ');
    return context ? `${body}\n\nContext: ${context}` : body;
  },
  // The rewrite is about as long as the note: room for twice its tokens (English runs about four
  // characters a token), never less than 800; 10 000 characters (the most noteText takes) ask 5 800.
  maxTokens: ({ note }) => 800 + Math.ceil(note.length / 2),
};
