/**
 * The organization's credits (spec "AI tools and email drafts": `GET /api/credits` and
 * `GET /api/credits/ai-features`) and the operator's grant (beyond the spec; core/auth/operator.ts).
 */
import { runAsOrganization } from '../../core/auth/operator';
import { created, list, ok, wholeList } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { grantCredits } from './ledger';
import { CREDIT_FEATURES, FEATURE_PRICES } from './prices';
import { CreditGrantSchema, CreditSummarySchema, FeaturePriceSchema, GrantCreditsBody } from './schemas';
import { creditSummary } from './usage';

export const creditRoutes = createRouter();
const tags = ['Credits'];

creditRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/credits',
    operationId: 'getCredits',
    tags,
    summary: 'The organization’s credit balance and this month’s use',
    description:
      'The balance (granted, less settled and reserved credits), the credits held by calls still running, and this calendar month’s (UTC) use per feature. The balance is derived from the credits ledger (grants, reservations, settlements, refunds); a refunded call costs nothing. New organizations start with a grant of 1000 credits.',
    auth: 'bearer',
    responses: { 200: envelope(CreditSummarySchema, 'The credit balance') },
  }),
  async (c) => ok(c, await creditSummary(c.var.tenant)),
);

creditRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/credits/ai-features',
    operationId: 'listCreditPrices',
    tags,
    summary: 'Price per paid feature',
    description:
      'Every paid feature (the AI tools, email drafts, AI dashboards, meeting summaries and lead enrichment) with its price in credits, from the one price table. The local AI provider costs the same as a real one. The list is answered whole.',
    auth: 'bearer',
    responses: { 200: listEnvelope(FeaturePriceSchema, 'Every paid feature', { whole: true }) },
  }),
  (c) => list(c, wholeList(CREDIT_FEATURES.map((feature) => FEATURE_PRICES[feature]))),
);

creditRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/credits/grant',
    operationId: 'grantCredits',
    tags,
    summary: 'Add credits to an organization (the service operator only; beyond the spec)',
    description:
      'Adds credits to the organization `organization_id` as a grant row of its ledger, with an optional note, and answers its new balance. Beyond the spec: how the operator tops an organization up before a billing integration exists. The AI spend behind credits is paid by the operator, so granting is an operator action: the route takes the operator key (the Worker secret OPERATOR_API_KEY, as `Authorization: Bearer` or `X-Operator-Key`), never a tenant credential; an organization’s admin gets 403 `operator_only`. A deployment without the secret answers 404. Honours `Idempotency-Key`: a grant retried with its key after a lost answer grants once and answers the first grant again (`Idempotent-Replayed: true`); the key is the operator’s under the organization named, so the same key for another organization is another grant.',
    auth: 'operator',
    transaction: false,
    request: { body: jsonBody(GrantCreditsBody) },
    responses: { 201: envelope(CreditGrantSchema, 'Credits granted') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    // Credited to nobody of the organization: the operator granted it (created_by stays null).
    return runAsOrganization(c, body.organization_id, async (tenant) => {
      const done = await grantCredits(tenant, { amount: body.amount, note: body.note ?? 'operator grant' });
      return created(
        c,
        { id: done.id, organization_id: body.organization_id, amount: body.amount, balance: done.balance },
        'Credits granted',
      );
    });
  },
);
