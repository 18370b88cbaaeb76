/**
 * email-draft v1: a first outreach email to one lead, in the voice of an optional persona, from the
 * lead's firmographics only. Answers JSON `{ subject, body }`, validated with zod.
 */
import type { Prompt } from '../../../providers/ai/interface';
import { describeLead, greetingName, type LeadFacts } from './lead-context';

export interface EmailDraftVars {
  lead: LeadFacts;
  persona: string;
}

export const emailDraftPrompt: Prompt<EmailDraftVars> = {
  id: 'email-draft',
  version: 1,
  system:
    'You write a first outreach email from a sales rep to one lead. Be brief (under 150 words), specific to the lead, and end with one clear question. Use only the facts given; never invent numbers or claims. Answer with a JSON object {"subject": string (at most 120 characters), "body": string (plain text)} and nothing else.',
  user: ({ lead, persona }) =>
    `${persona ? `Write as: ${persona}\n\n` : ''}Lead:\n${describeLead(lead) || `Lead ${lead.id} (no details on file)`}`,
  local: ({ lead, persona }) => {
    const company = lead.company?.trim();
    const role = lead.job_title?.trim();
    const where = [lead.city, lead.country].filter(Boolean).join(', ');
    const subject = company ? `An idea for ${company}` : `An idea for you, ${greetingName(lead)}`;
    const opening = role && company ? `As ${role} at ${company}` : company ? `At ${company}` : 'In your role';
    const industry = lead.industry ? ` in ${lead.industry}` : '';
    const body = [
      `Hi ${greetingName(lead)},`,
      `${opening}${industry}, you are likely weighing how to follow up with every lead without losing the personal touch.${where ? ` Teams around ${where} have told us the same.` : ''}`,
      'Would a 20-minute call next week be useful to compare notes?',
      persona ? `Best regards,\n${persona}` : 'Best regards',
    ].join('\n\n');
    return JSON.stringify({ subject: subject.slice(0, 120), body });
  },
  json: true,
  maxTokens: 600,
};
