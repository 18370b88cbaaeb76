/**
 * The AI writing tools (spec "AI tools and email drafts"): magicpen rewrites a note,
 * email-generator writes or improves an email. Each call is charged `ai_tools` (credits/prices.ts)
 * and stores nothing but its ledger rows.
 */
import type { z } from '@hono/zod-openapi';
import { structuredOutput } from '../../providers/ai/structured';
import { paidGeneration, type PaidCall } from './generation';
import { emailGeneratorPrompt } from './prompts/email-generator.v1';
import { contextText } from './prompts/lead-context';
import { magicpenPrompt } from './prompts/magicpen.v1';
import { EmailAnswer, type EmailGeneratorBody, type MagicpenBody } from './tool-schemas';

export function magicpen(call: PaidCall, input: z.output<typeof MagicpenBody>) {
  return paidGeneration(
    call,
    'ai_tools',
    magicpenPrompt,
    { note: input.noteText, context: contextText(input.leadContext) },
    async (_tx, generation, charge) => ({
      enhanced_text: generation.text.trim(),
      provider: generation.provider,
      model: generation.model,
      prompt_version: generation.prompt_version,
      credits_charged: charge.credits_charged,
      balance: charge.balance,
    }),
  );
}

/** The instruction when only a draft is given: improve it, keeping its intent. */
const IMPROVE_DRAFT = 'Improve this draft email: keep its intent, make it clearer and shorter';

export function generateEmail(call: PaidCall, input: z.output<typeof EmailGeneratorBody>) {
  return paidGeneration(
    call,
    'ai_tools',
    emailGeneratorPrompt,
    {
      instruction: input.prompt ?? IMPROVE_DRAFT,
      subject: input.emailSubject ?? '',
      body: input.emailBody ?? '',
      context: contextText(input.leadContext),
    },
    async (_tx, generation, charge) => {
      const email = structuredOutput(generation, EmailAnswer);
      return {
        subject: email.subject,
        body: email.body,
        provider: generation.provider,
        model: generation.model,
        prompt_version: generation.prompt_version,
        credits_charged: charge.credits_charged,
        balance: charge.balance,
      };
    },
  );
}
