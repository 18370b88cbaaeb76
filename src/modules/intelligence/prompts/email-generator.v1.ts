/**
 * email-generator v1: writes (or rewrites) one email from the rep's instruction, an optional draft
 * subject and body, and the lead's context. Answers JSON `{ subject, body }`, validated with zod.
 */
import type { Prompt } from '../../../providers/ai/interface';

export interface EmailGeneratorVars {
  instruction: string;
  subject: string;
  body: string;
  context: string;
}

export const emailGeneratorPrompt: Prompt<EmailGeneratorVars> = {
  id: 'email-generator',
  version: 1,
  system:
    'You write short, plain sales emails. Follow the instruction. If a draft is given, improve it and keep its intent. Use only facts from the context. Answer with a JSON object {"subject": string (at most 120 characters), "body": string (plain text, at most 300 words)} and nothing else.',
  user: ({ instruction, subject, body, context }) =>
    [
      `Instruction: ${instruction}`,
      context && `Context: ${context}`,
      subject && `Draft subject: ${subject}`,
      body && `Draft body:\n${body}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  local: ({ instruction, subject, body, context }) =>
    JSON.stringify({
      subject: (subject || instruction).slice(0, 120),
      body: [
        body ||
          `Hello,\n\n${instruction.charAt(0).toUpperCase()}${instruction.slice(1)}${/[.!?]$/.test(instruction) ? '' : '.'}`,
        context && `(${context})`,
        'Best regards',
      ]
        .filter(Boolean)
        .join('\n\n'),
    }),
  json: true,
  maxTokens: 700,
};
