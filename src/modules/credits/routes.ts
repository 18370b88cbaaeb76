/**
 * The organization's credits (spec "AI tools and email drafts": `GET /api/credits` and
 * `GET /api/credits/ai-features`) and an admin's grant (beyond the spec).
 */
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
    summary: 'Add credits to the organization (admins only; beyond the spec)',
    description:
      'Adds credits as a grant row of the ledger, with an optional note, and answers the new balance. Beyond the spec: how an organization tops up before a billing integration exists.',
    auth: 'bearer',
    roles: ['admin'],
    transaction: false,
    request: { body: jsonBody(GrantCreditsBody) },
    responses: { 201: envelope(CreditGrantSchema, 'Credits granted') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const grant = await grantCredits(c.var.tenant, { amount: body.amount, note: body.note ?? 'admin grant' });
    return created(c, { id: grant.id, amount: body.amount, balance: grant.balance }, 'Credits granted');
  },
);
