/**
 * Request and response shapes of the AI writing tools (magicpen, email-generator) and what every
 * AI answer records: provider, model, prompt version, credits.
 */
import { z } from '@hono/zod-openapi';
import { jsonObject, text } from '../../core/schemas';
import { AI_PROVIDERS } from '../../providers/ai/interface';

export const leadContext = z
  .union([
    text(1, 4000),
    jsonObject({ maxKeyLength: 100, maxChars: 4000 }).openapi({ description: 'Facts about the lead as key → value' }),
  ])
  .optional()
  .openapi({
    description:
      'What the tool may use about the lead: text (up to 4 000 characters) or an object of facts (up to 4 000 characters of JSON)',
    example: 'Grace Hopper, CTO at Navy Labs; asked about pricing',
  });

export const provenance = {
  provider: z.enum(AI_PROVIDERS).openapi({
    description: 'Who wrote it: local (templates, no model), openai (an OpenAI-compatible endpoint) or workers-ai',
    example: 'local',
  }),
  model: z
    .string()
    .openapi({ description: 'The model (local-template for the local provider)', example: 'local-template' }),
  prompt_version: z
    .string()
    .openapi({ description: 'The prompt and its version, `<id>@v<n>`', example: 'magicpen@v1' }),
};

export const chargeFields = {
  credits_charged: z.number().int().openapi({ description: 'Credits this call cost', example: 1 }),
  balance: z.number().int().openapi({ description: 'The organization’s credit balance after it', example: 999 }),
};

export const MagicpenBody = z
  .object({
    noteText: text(1, 10_000).openapi({
      description: 'The note to improve, 1 to 10 000 characters',
      example: 'call w/ grace, wants pricing by fri',
    }),
    leadContext,
  })
  .openapi('MagicpenRequest', {
    description: 'A note to rewrite',
    example: { noteText: 'call w/ grace, wants pricing by fri', leadContext: 'Grace Hopper, CTO at Navy Labs' },
  });

export const MagicpenResult = z
  .object({
    enhanced_text: z
      .string()
      .openapi({ description: 'The rewritten note', example: 'Call with Grace. She wants pricing by Friday.' }),
    ...provenance,
    ...chargeFields,
  })
  .openapi('MagicpenResult', {
    description: 'The rewritten note, where it came from and what it cost',
    example: {
      enhanced_text: 'Call with Grace. She wants pricing by Friday.',
      provider: 'local',
      model: 'local-template',
      prompt_version: 'magicpen@v1',
      credits_charged: 1,
      balance: 999,
    },
  });

export const EmailGeneratorBody = z
  .object({
    prompt: text(1, 2000).optional().openapi({
      description:
        'What the email should do, 1 to 2 000 characters. Required unless emailBody gives a draft to improve (then the draft is improved, keeping its intent)',
      example: 'Follow up on the pricing question',
    }),
    emailSubject: text(1, 255).optional().openapi({ description: 'A draft subject to improve', example: 'Pricing' }),
    emailBody: text(1, 20_000)
      .optional()
      .openapi({ description: 'A draft body to improve', example: 'Hi Grace, here is our pricing…' }),
    leadContext,
  })
  .refine((body) => body.prompt !== undefined || body.emailBody !== undefined, {
    message: 'is required unless emailBody gives a draft to improve',
    path: ['prompt'],
  })
  .openapi('EmailGeneratorRequest', {
    description: 'What to write, and optionally a draft to improve',
    example: {
      prompt: 'Follow up on the pricing question',
      leadContext: { name: 'Grace Hopper', company: 'Navy Labs' },
    },
  });

export const GeneratedEmail = z
  .object({
    subject: z.string().max(255).openapi({
      description: 'The subject, up to 120 characters asked of the model',
      example: 'Your pricing question',
    }),
    body: z.string().max(20_000).openapi({ description: 'The body, plain text', example: 'Hi Grace,\n\n…' }),
  })
  .openapi('GeneratedEmailText', {
    description: 'A written email',
    example: { subject: 'Your pricing question', body: 'Hi Grace,\n\n…' },
  });

/** What a model must answer for an email: checked with zod, never trusted as is. */
export const EmailAnswer = z.object({
  subject: z.string().trim().min(1).max(255),
  body: z.string().trim().min(1).max(20_000),
});

export const EmailGeneratorResult = z
  .object({ subject: GeneratedEmail.shape.subject, body: GeneratedEmail.shape.body, ...provenance, ...chargeFields })
  .openapi('EmailGeneratorResult', {
    description: 'The written email, where it came from and what it cost',
    example: {
      subject: 'Your pricing question',
      body: 'Hi Grace,\n\n…',
      provider: 'local',
      model: 'local-template',
      prompt_version: 'email-generator@v1',
      credits_charged: 1,
      balance: 998,
    },
  });
