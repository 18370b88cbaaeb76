/**
 * The AI writing tools (spec "AI tools and email drafts"): `POST /api/ai-tools/magicpen` and
 * `POST /api/ai-tools/email-generator`. Each call costs `ai_tools` credits.
 */
import { ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import { insufficientCreditsResponse } from '../credits';
import { EmailGeneratorBody, EmailGeneratorResult, MagicpenBody, MagicpenResult } from './tool-schemas';
import { generateEmail, magicpen } from './tools';

export const aiToolRoutes = createRouter();
const tags = ['AI'];

const PAID =
  'Costs 1 credit (`ai_tools`, see `GET /api/credits/ai-features`): reserved before the model is asked, kept when it answers, refunded when it fails (503 `provider_unavailable`, with Retry-After). The answer records the provider, model and prompt version. A retry with the same `Idempotency-Key` (within 24 hours) is answered the first text again (`Idempotent-Replayed: true`) and charged nothing.';

aiToolRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-tools/magicpen',
    operationId: 'magicpen',
    tags,
    summary: 'Rewrite a note in clear sentences (AI)',
    description: `Rewrites \`noteText\` in clear, complete sentences, keeping its facts, with \`leadContext\` as background. ${PAID}`,
    auth: 'bearer',
    // The reservation commits before the model is asked, so a slow model holds no lock.
    transaction: false,
    // A paid call answering 200: a client's retry after a timeout must not pay twice.
    idempotency: true,
    request: { body: jsonBody(MagicpenBody) },
    responses: { 200: envelope(MagicpenResult, 'The rewritten note'), 402: insufficientCreditsResponse },
  }),
  async (c) => ok(c, await magicpen({ ctx: c.var.tenant, env: c.env }, c.req.valid('json')), 'Note rewritten'),
);

aiToolRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-tools/email-generator',
    operationId: 'generateEmailText',
    tags,
    summary: 'Write or improve an email (AI)',
    description: `Writes an email following \`prompt\`, improving \`emailSubject\`/\`emailBody\` when given, using \`leadContext\`. The model's answer must be a subject and a body (checked; anything else is a 503 and refunded). Nothing is stored or sent: to keep a draft for a lead, use \`POST /api/ai-email/generate/{lead_id}\`. ${PAID}`,
    auth: 'bearer',
    transaction: false,
    idempotency: true,
    request: { body: jsonBody(EmailGeneratorBody) },
    responses: { 200: envelope(EmailGeneratorResult, 'The written email'), 402: insufficientCreditsResponse },
  }),
  async (c) => ok(c, await generateEmail({ ctx: c.var.tenant, env: c.env }, c.req.valid('json')), 'Email written'),
);
