/**
 * AI email drafts (spec "AI tools and email drafts"): generate one for a lead, bulk-generate (a
 * job), list a lead's drafts, approve, send; edit, reject, regenerate and the bulk job's progress
 * beyond the spec. Writing text costs `email_draft` credits (2 a draft).
 */
import { z } from '@hono/zod-openapi';
import { accepted, created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { insufficientCreditsResponse } from '../credits';
import { accountConflict, OUTGOING_EXAMPLE, OutgoingSchema } from '../mail';
import { startBulkDrafts, viewBulkJob } from './bulk';
import {
  BulkGenerateBody,
  BulkJobSchema,
  DRAFT_EXAMPLE,
  DraftSchema,
  draftNotApprovedResponse,
  draftStateResponse,
  GenerateDraftBody,
  MAX_BULK_LEADS,
  RegenerateDraftBody,
  SendDraftBody,
  UpdateDraftBody,
} from './draft-schemas';
import { sendDraft } from './draft-send';
import {
  approveDraft,
  DraftListQuery,
  editDraft,
  generateDraft,
  listDrafts,
  regenerateDraft,
  rejectDraft,
} from './drafts';

export const draftRoutes = createRouter();
const tags = ['AI'];

const WRITES =
  'The text is written by the configured AI provider from the lead’s name, title, company, industry and location (never its notes), as a subject and a body (checked); the draft records the provider, model and prompt version. Costs 2 credits (`email_draft`), reserved first, refunded when the provider fails (503 `provider_unavailable`, with Retry-After).';

const draftParam = idParam('draft_id');

const SendResult = z
  .object({
    draft: DraftSchema,
    message: OutgoingSchema,
  })
  .openapi('SentDraft', {
    description: 'The draft, now queued, and the message it was recorded as',
    example: { draft: { ...DRAFT_EXAMPLE, status: 'queued' }, message: OUTGOING_EXAMPLE },
  });

draftRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-email/generate/{lead_id}',
    operationId: 'generateAiEmailDraft',
    tags,
    summary: 'Write an email draft to a lead (AI)',
    description: `Writes a draft to the lead, in the voice of \`persona\` when given, in state \`draft\`: it must be approved before it can be sent. ${WRITES}`,
    auth: 'bearer',
    // The reservation commits before the model is asked, so a slow model holds no lock.
    transaction: false,
    request: { params: idParam('lead_id'), body: jsonBody(GenerateDraftBody) },
    responses: { 201: envelope(DraftSchema, 'Draft written'), 402: insufficientCreditsResponse },
  }),
  async (c) =>
    created(
      c,
      await generateDraft({ ctx: c.var.tenant, env: c.env }, c.req.valid('param').lead_id, c.req.valid('json').persona),
      'Draft written',
    ),
);

draftRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-email/bulk-generate',
    operationId: 'bulkGenerateAiEmailDrafts',
    tags,
    summary: 'Write a draft to each of up to 500 leads (AI, queued job)',
    description: `Starts a job that writes one draft per lead (duplicates count once) and answers 202 with it; follow it at \`GET /api/ai-email/jobs/{id}\`. More than ${MAX_BULK_LEADS} ids is a 422; an id that is not a live lead of the organization is a 404 naming it, before any work. Each lead is charged 2 credits (\`email_draft\`) when its draft is written; a lead the balance no longer covers, or that was deleted meanwhile, is listed in \`item_errors\` and the rest complete. A redelivered job message writes and charges nothing twice.`,
    auth: 'bearer',
    request: { body: jsonBody(BulkGenerateBody) },
    responses: { 202: envelope(BulkJobSchema, 'Drafts job queued') },
  }),
  async (c) => accepted(c, await startBulkDrafts(c.var.tenant, c.req.valid('json')), 'Drafts job queued'),
);

draftRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/ai-email/jobs/{id}',
    operationId: 'viewAiEmailBulkJob',
    tags,
    summary: 'A bulk draft job’s progress (beyond the spec)',
    description:
      'The job of `POST /api/ai-email/bulk-generate`: its state, leads done, drafts written and the leads that got none, with why. Beyond the spec.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(BulkJobSchema, 'The job') },
  }),
  async (c) => ok(c, await viewBulkJob(c.var.tenant, c.req.valid('param').id)),
);

draftRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/ai-email/drafts/lead/{lead_id}',
    operationId: 'listAiEmailDrafts',
    tags,
    summary: 'A lead’s email drafts',
    description:
      'The drafts written to the lead, newest first by default, with the standard list parameters (`search_value` on the subject) and `status` (comma-separated). A lead of another organization, or a deleted one, is a 404.',
    auth: 'bearer',
    request: { params: idParam('lead_id'), query: DraftListQuery },
    responses: { 200: listEnvelope(DraftSchema) },
  }),
  async (c) => list(c, await listDrafts(c.var.tenant, c.req.valid('param').lead_id, c.req.valid('query'))),
);

draftRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/ai-email/draft/{draft_id}/approve',
    operationId: 'approveAiEmailDraft',
    tags,
    summary: 'Approve a draft for sending',
    description:
      'Approves a draft in state `draft`, recording who approved it and when; only an approved draft can be sent. Any other state is a 409 naming it.',
    auth: 'bearer',
    request: { params: draftParam },
    responses: { 200: envelope(DraftSchema, 'Draft approved'), 409: draftStateResponse },
  }),
  async (c) => ok(c, await approveDraft(c.var.tenant, c.req.valid('param').draft_id), 'Draft approved'),
);

draftRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-email/draft/{draft_id}/send',
    operationId: 'sendAiEmailDraft',
    tags,
    summary: 'Send an approved draft to its lead',
    description:
      'Sends the approved draft to the lead’s email address from the mail account `config_id`, through the mail sending path: the suppression list, the tracking pixel and click-tracked links (opens and clicks become intent signals on the lead), List-Unsubscribe with One-Click, queued and delivered once by the mail-send job. The draft becomes `queued`, then `sent` or `failed` as its message does. A draft that is not approved is a 409 `draft_not_approved` naming its state: nothing is ever sent without an approval. A lead without an email is a 422.',
    auth: 'bearer',
    idempotency: true,
    request: { params: draftParam, body: jsonBody(SendDraftBody) },
    responses: {
      202: envelope(SendResult, 'Draft queued for sending'),
      409: {
        description: `${draftNotApprovedResponse.description}; or ${accountConflict.description}`,
        content: {
          'application/json': {
            schema: z.union([
              draftNotApprovedResponse.content['application/json'].schema,
              accountConflict.content['application/json'].schema,
            ]),
          },
        },
      },
    },
  }),
  async (c) =>
    accepted(
      c,
      await sendDraft(
        { ctx: c.var.tenant, env: c.env, origin: new URL(c.req.url).origin },
        c.req.valid('param').draft_id,
        c.req.valid('json').config_id,
      ),
      'Draft queued for sending',
    ),
);

draftRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/ai-email/draft/{draft_id}',
    operationId: 'updateAiEmailDraft',
    tags,
    summary: 'Edit a draft’s text (beyond the spec)',
    description:
      'Changes the subject and/or body of a draft in state `draft` or `approved`. An approved draft returns to `draft` and needs a new approval: an approval is of the text that is sent. Beyond the spec.',
    auth: 'bearer',
    request: { params: draftParam, body: jsonBody(UpdateDraftBody) },
    responses: { 200: envelope(DraftSchema, 'Draft updated'), 409: draftStateResponse },
  }),
  async (c) =>
    ok(c, await editDraft(c.var.tenant, c.req.valid('param').draft_id, c.req.valid('json')), 'Draft updated'),
);

draftRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/ai-email/draft/{draft_id}/reject',
    operationId: 'rejectAiEmailDraft',
    tags,
    summary: 'Reject a draft (beyond the spec)',
    description:
      'Rejects a draft in state `draft` or `approved`, recording who and when; a rejected draft cannot be sent (regenerate it to try again). Beyond the spec.',
    auth: 'bearer',
    request: { params: draftParam },
    responses: { 200: envelope(DraftSchema, 'Draft rejected'), 409: draftStateResponse },
  }),
  async (c) => ok(c, await rejectDraft(c.var.tenant, c.req.valid('param').draft_id), 'Draft rejected'),
);

draftRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/ai-email/draft/{draft_id}/regenerate',
    operationId: 'regenerateAiEmailDraft',
    tags,
    summary: 'Rewrite a draft (AI; beyond the spec)',
    description: `Writes new text for a draft in state \`draft\`, \`approved\` or \`rejected\` (in \`persona\`, else its own), which returns to \`draft\` and needs an approval. A queued or sent draft is a 409. ${WRITES} Beyond the spec.`,
    auth: 'bearer',
    transaction: false,
    request: { params: draftParam, body: jsonBody(RegenerateDraftBody) },
    responses: {
      200: envelope(DraftSchema, 'Draft rewritten'),
      402: insufficientCreditsResponse,
      409: draftStateResponse,
    },
  }),
  async (c) =>
    ok(
      c,
      await regenerateDraft(
        { ctx: c.var.tenant, env: c.env },
        c.req.valid('param').draft_id,
        c.req.valid('json').persona,
      ),
      'Draft rewritten',
    ),
);
