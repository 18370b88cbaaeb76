/**
 * Target accounts (ABM): the account CRUD, stakeholders, outreach plans, the bulk email (sent through
 * the organization’s mail account) and the ABM reports. HTTP only. No route declares roles: any user
 * of the organization works accounts.
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok, wholeList } from '../../core/http';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { DeletedId } from '../../core/schemas';
import { sendBulkEmail } from './bulk-email';
import { addOutreachPlan, listOutreachPlans, OutreachPlanListQuery } from './outreach-plans';
import { AbmFunnel, EngagedAccount } from './report-schemas';
import { abmFunnel, TopEngagedQuery, topEngagedAccounts } from './reports';
import {
  AddOutreachPlanBody,
  AddStakeholderBody,
  CreateTargetAccountBody,
  OutreachPlanView,
  SendBulkEmailBody,
  StakeholderView,
  TargetAccountDetail,
  TargetAccountView,
  UpdateTargetAccountBody,
} from './schemas';
import {
  createTargetAccount,
  deleteTargetAccount,
  listTargetAccounts,
  readTargetAccount,
  TargetAccountListQuery,
  updateTargetAccount,
} from './service';
import { addStakeholder } from './stakeholders';

export const targetAccountRoutes = createRouter();
const tags = ['Target accounts'];

const duplicateTargetAccount = conflictResponse(
  'DuplicateTargetAccountConflict',
  'The company is already a target account of the organization; error.details.target_account_id is that account',
  [
    {
      code: 'duplicate_target_account',
      details: z.object({
        target_account_id: z.number().int().openapi({ description: 'The existing target account', example: 8 }),
        company_id: z.number().int().openapi({ description: 'The company', example: 3 }),
      }),
      example: { target_account_id: 8, company_id: 3 },
    },
  ],
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/target-accounts',
    operationId: 'listTargetAccounts',
    tags,
    summary: 'Target accounts with their health, filtered by health band, tier, owner and company name',
    description:
      'Target accounts of the organization (of live companies) with their health, computed in the same statement. `health` (cold, warm, hot), `tier`, `owner_id` and `search` (company name) filter; `sort` (e.g. `-health_score`) orders, overriding `order_by`/`order_in`.',
    auth: 'bearer',
    request: { query: TargetAccountListQuery },
    responses: { 200: listEnvelope(TargetAccountView) },
  }),
  async (c) => list(c, await listTargetAccounts(c.var.tenant, c.req.valid('query'))),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/target-accounts',
    operationId: 'createTargetAccount',
    tags,
    summary: 'Target a company of the organization as an account',
    description:
      'Targets a live company of the organization (404 otherwise, as deals treat their lead_id). `owner_id` must be a user of the organization (422). A company is targeted at most once: a second time is a 409 naming the existing account.',
    auth: 'bearer',
    request: { body: jsonBody(CreateTargetAccountBody) },
    responses: { 201: envelope(TargetAccountView, 'Target account created'), 409: duplicateTargetAccount },
  }),
  async (c) => created(c, await createTargetAccount(c.var.tenant, c.req.valid('json')), 'Target account created'),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/target-accounts/{id}',
    operationId: 'viewTargetAccount',
    tags,
    summary: 'One target account with its health and stakeholders',
    description: 'One target account of the organization with its health and its stakeholders (oldest first).',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(TargetAccountDetail, 'Target account') },
  }),
  async (c) => ok(c, await readTargetAccount(c.var.tenant, c.req.valid('param').id), 'Target account'),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/api/target-accounts/{id}',
    operationId: 'updateTargetAccount',
    tags,
    summary: 'Change a target account’s owner, tier, ICP fit score or status',
    description: 'Changes the fields sent; `owner_id` must be a user of the organization (422), null clears it.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateTargetAccountBody) },
    responses: { 200: envelope(TargetAccountDetail, 'Target account updated') },
  }),
  async (c) =>
    ok(
      c,
      await updateTargetAccount(c.var.tenant, c.req.valid('param').id, c.req.valid('json')),
      'Target account updated',
    ),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/target-accounts/{id}',
    operationId: 'deleteTargetAccount',
    tags,
    summary: 'Stop targeting a company',
    description:
      'Deletes the target account with its stakeholders and outreach plans; the company, its contacts and leads stay.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Target account deleted') },
  }),
  async (c) => ok(c, await deleteTargetAccount(c.var.tenant, c.req.valid('param').id), 'Target account deleted'),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/target-accounts/{id}/contacts',
    operationId: 'addTargetAccountStakeholder',
    tags,
    summary: 'Add a contact of the account’s company as a stakeholder (idempotent)',
    description:
      '`contact_id` must be a live contact of the account’s company (422 `contact_id` otherwise). Adding a contact that is already a stakeholder is not an error: it answers the existing record (200), with its role replaced when `stakeholder_role` is given; a new stakeholder answers 201.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(AddStakeholderBody) },
    responses: {
      200: envelope(StakeholderView, 'Already a stakeholder'),
      201: envelope(StakeholderView, 'Stakeholder added'),
    },
  }),
  async (c) => {
    const { stakeholder, inserted } = await addStakeholder(c.var.tenant, c.req.valid('param').id, c.req.valid('json'));
    return inserted ? created(c, stakeholder, 'Stakeholder added') : ok(c, stakeholder, 'Already a stakeholder');
  },
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/target-accounts/{id}/send-bulk-email',
    operationId: 'sendTargetAccountBulkEmail',
    tags,
    summary: 'Email the account’s stakeholders or chosen contacts from the organization’s mail account (202 queued)',
    description:
      'Validates the email and its recipients (`contact_ids`: live contacts of the account’s company with an email, 422 `contact_ids` naming the others; absent: every stakeholder with an email), then sends from the caller’s own active mail account, else the organization’s oldest (422 `mail_not_configured` while there is none: nothing is recorded or queued). `individual`: one message per recipient, each recorded as that contact’s outreach activity with the account; `bcc`: each recipient gets a Bcc copy of their own (no other recipient shown). Every message carries a signed one-click List-Unsubscribe (RFC 8058), the open pixel and click-rewritten links; addresses on the suppression list are skipped and listed in `suppressed`. The subject and body take merge fields, filled per recipient: {{first_name}}, {{last_name}}, {{full_name}}, {{email}}, {{company}}, {{job_title}}, {{sender_name}}, with a fallback after `|` ({{first_name | there}}); an unknown field, or one a recipient has no value for and no fallback, is a 422 naming `subject` or `body` (and the contact ids), and nothing is recorded. The queue delivers the messages (see POST /api/inbox/send).',
    auth: 'bearer',
    idempotency: true,
    request: { params: idParam(), body: jsonBody(SendBulkEmailBody) },
    responses: {
      202: envelope(
        z
          .object({
            queued: z.number().int().openapi({ description: 'Messages queued for sending' }),
            suppressed: z
              .array(z.string())
              .openapi({ description: 'Recipients skipped: they are on the suppression list' }),
            config_id: z.number().int().openapi({ description: 'The mail account they are sent from' }),
          })
          .openapi({ description: 'What was queued' }),
        'Emails queued',
      ),
    },
  }),
  async (c) => {
    // The messages are the request's last statement: their insert carries its COMMIT.
    const compose = { ctx: c.var.tenant, env: c.env, origin: new URL(c.req.url).origin, lastStatement: true };
    const result = await sendBulkEmail(compose, c.req.valid('param').id, c.req.valid('json'));
    return c.json({ success: true as const, message: 'Emails queued', data: result }, 202);
  },
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/target-accounts/{id}/outreach-plans',
    operationId: 'listOutreachPlans',
    tags,
    summary: 'The account’s outreach plans',
    description:
      'Outreach plans of one target account, with the standard list parameters (`order_by` id, scheduled_at or created_at; `search_value` matches the notes and the contact’s name).',
    auth: 'bearer',
    request: { params: idParam(), query: OutreachPlanListQuery },
    responses: { 200: listEnvelope(OutreachPlanView) },
  }),
  async (c) => list(c, await listOutreachPlans(c.var.tenant, c.req.valid('param').id, c.req.valid('query'))),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/target-accounts/{id}/outreach-plans',
    operationId: 'addOutreachPlan',
    tags,
    summary: 'Plan an outreach step to a contact of the account’s company',
    description:
      '`contact_id` must be a live contact of the account’s company, a stakeholder or not (422 `contact_id`); `assigned_to` a user of the organization (422), the caller when absent.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(AddOutreachPlanBody) },
    responses: { 201: envelope(OutreachPlanView, 'Outreach planned') },
  }),
  async (c) =>
    created(c, await addOutreachPlan(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Outreach planned'),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/reports/abm/funnel',
    operationId: 'abmFunnel',
    tags,
    summary: 'Target accounts by stage: targeted, engaged, opportunity, customer, with conversion',
    description:
      'Over the target accounts that are not archived: how many are at each stage (customer: a won deal on the account’s leads; opportunity: an open deal; engaged: an intent signal in 30 days or a meeting in its window; targeted: otherwise), how many reached each stage or a later one, and the conversion between consecutive stages. One SQL statement.',
    auth: 'bearer',
    responses: { 200: envelope(AbmFunnel, 'ABM funnel') },
  }),
  async (c) => ok(c, await abmFunnel(c.var.tenant), 'ABM funnel'),
);

targetAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/reports/abm/top-engaged',
    operationId: 'abmTopEngaged',
    tags,
    summary: 'The most engaged target accounts, with the reasons',
    description:
      'Target accounts that are not archived, by health score (highest first; then the latest intent signal, then id), each with the reasons of its score. One SQL statement.',
    auth: 'bearer',
    request: { query: TopEngagedQuery },
    responses: {
      200: listEnvelope(EngagedAccount, 'Most engaged accounts', {
        whole: true,
        rows: 'The accounts, most engaged first (at most `limit`)',
      }),
    },
  }),
  async (c) => {
    const { limit } = c.req.valid('query');
    return list(c, wholeList(await topEngagedAccounts(c.var.tenant, limit), limit), 'Most engaged accounts');
  },
);
