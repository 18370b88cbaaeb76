/**
 * Voice routes (spec "Voice and calling"): numbers, their users, the calling wallet, and (beyond
 * the spec) the operator's wallet top-up (core/auth/operator.ts) and the admin's Twilio connection. Another organization's number or
 * user is a 404.
 */
import { runAsOrganization } from '../../core/auth/operator';
import { accepted, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { requestOrigin } from './origin';
import { connectVoice, disconnectVoice, readVoiceConnection, readWallet, topUpWallet } from './account';
import { assignNumber, availableNumbers, numberList, purchaseNumber } from './numbers';
import {
  AssignNumberBody,
  AvailableNumberSchema,
  AvailableNumbersQuery,
  DisconnectVoiceQuery,
  PhoneNumberSchema,
  PurchaseNumberBody,
  TopUpBody,
  VoiceConnectionBody,
  VoiceConnectionSchema,
  VoiceDisconnectedSchema,
  WalletSchema,
  WalletTopUpSchema,
} from './schemas';
import {
  callsInProgressConflict,
  insufficientBalance,
  numberConflict,
  numberFailedConflict,
  voiceProviderUnavailable,
} from './responses';

export const voiceRoutes = createRouter();
const tags = ['Voice'];

voiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/voice/available-numbers',
    operationId: 'listAvailableNumbers',
    tags,
    summary: 'Numbers the provider offers for purchase',
    description:
      'Searches the provider’s offer (Twilio AvailablePhoneNumbers, US; or the local simulator’s fixed 555-01xx numbers): `type` local, mobile or toll_free (default local), `areaCode` (3 digits), `contains` (digits), `limit` 1 to 50 (default 20). Each comes with the monthly price the wallet is debited on purchase. The whole answer is one page.',
    auth: 'bearer',
    request: { query: AvailableNumbersQuery },
    responses: { 200: listEnvelope(AvailableNumberSchema), 503: voiceProviderUnavailable },
  }),
  async (c) => list(c, await availableNumbers(c.var.tenant, c.env, c.req.valid('query'))),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/voice/my-numbers',
    operationId: 'listMyNumbers',
    tags,
    summary: 'The organization’s phone numbers with their assigned users',
    description:
      'Every number the organization bought (pending, active, or failed and refunded) with `assigned_user_ids`, with the standard list parameters (`search_value` matches the number).',
    auth: 'bearer',
    request: { query: numberList.query },
    responses: { 200: listEnvelope(PhoneNumberSchema) },
  }),
  async (c) => list(c, await numberList.run(c.var.tenant, c.req.valid('query'))),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/voice/purchase-number',
    operationId: 'purchaseNumber',
    tags,
    summary: 'Buy a phone number (paid from the calling wallet)',
    description:
      '`phoneNumber` in E.164 (checked with libphonenumber-js; 422 otherwise), optional `friendlyName` and `type` (default local). In one transaction the number is recorded `pending` and its monthly price debited from the wallet: a wallet that does not cover it is a 402 `insufficient_balance` and nothing is bought; a number the organization already has is a 409 `number_owned`. The provider purchase is queued (answer 202): the number becomes `active`, or `failed` with the price refunded to the wallet when the provider refuses it. It spends the organization’s money, so only admins and managers buy numbers, as only they assign them.',
    auth: 'bearer',
    roles: ['admin', 'manager'],
    request: { body: jsonBody(PurchaseNumberBody) },
    responses: {
      202: envelope(PhoneNumberSchema, 'Number paid; the purchase is queued'),
      402: insufficientBalance,
      409: numberConflict,
    },
  }),
  async (c) =>
    accepted(c, await purchaseNumber(c.var.tenant, c.req.valid('json')), 'Number paid; the purchase is queued'),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/voice/assign-number',
    operationId: 'assignNumber',
    tags,
    summary: 'Choose who may call from a number',
    description:
      '`number_id` and `user_ids` (or one `user_id`): these users, and only these, may call from the number (agent calls prefer the caller’s own number). A number or user of another organization is a 404; a number whose purchase failed is a 409 `number_failed`.',
    auth: 'bearer',
    roles: ['admin', 'manager'],
    request: { body: jsonBody(AssignNumberBody) },
    responses: { 200: envelope(PhoneNumberSchema, 'Number assigned'), 409: numberFailedConflict },
  }),
  async (c) => ok(c, await assignNumber(c.var.tenant, c.req.valid('json')), 'Number assigned'),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/voice/wallet',
    operationId: 'viewVoiceWallet',
    tags,
    summary: 'The calling wallet’s balance (USD)',
    description:
      'The balance in USD, the sum of the wallet’s ledger (top-ups, number rentals, holds and charges of calls, refunds); never negative. `held` is what calls still running hold (the price of their longest duration), released when they end. With the prices in force.',
    auth: 'bearer',
    responses: { 200: envelope(WalletSchema) },
  }),
  async (c) => ok(c, await readWallet(c.var.tenant)),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/voice/wallet/top-up',
    operationId: 'topUpVoiceWallet',
    tags,
    summary: 'Add money to an organization’s calling wallet (the service operator only; beyond the spec)',
    description:
      'Records a top-up of `amount` USD (0.01 to 10000) in the calling wallet of the organization `organization_id`, with an optional `note`, credited to nobody of it; answers that wallet. No payment is taken here: the operator records what the organization paid elsewhere. The wallet is what the organization has paid the service for calls and numbers at the service’s prices, so funding it is the operator’s act, never the organization’s own: the route takes the operator key (the Worker secret OPERATOR_API_KEY, as `Authorization: Bearer` or `X-Operator-Key`), never a tenant credential; an organization’s admin gets 403 `operator_only`. A deployment without the secret answers 404. Honours `Idempotency-Key`: a top-up retried with its key after a lost answer counts once and answers the first top-up again (`Idempotent-Replayed: true`); the key is the operator’s under the organization named, so the same key for another organization is another top-up. Beyond the spec (which has only `GET /api/voice/wallet`).',
    auth: 'operator',
    transaction: false,
    request: { body: jsonBody(TopUpBody) },
    responses: { 200: envelope(WalletTopUpSchema, 'Wallet topped up') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    return runAsOrganization(c, body.organization_id, async (tenant) => {
      const wallet = await topUpWallet(tenant, body);
      return ok(c, { organization_id: body.organization_id, ...wallet }, 'Wallet topped up');
    });
  },
);

voiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/voice/connection',
    operationId: 'connectVoice',
    tags,
    summary: 'Connect the organization’s Twilio account (admin; beyond the spec)',
    description:
      'Stores the Twilio account (`account_sid`, `auth_token`), optionally an API key and TwiML App for browser calling, and Vapi’s key, number id and webhook secret for agent calls; every secret is sealed (AES-GCM under CREDENTIALS_KEY) and never returned. Before anything is stored the account is checked with Twilio (GET /2010-04-01/Accounts/{AccountSid}.json): credentials Twilio refuses are a 422 naming `auth_token`, an unknown or suspended/closed account a 422 naming `account_sid`, Twilio down or throttling a 503 `provider_unavailable` with Retry-After; nothing is stored then. Connecting the account already connected reconnects it in place (new credentials and settings, the same `id`), so calls, numbers and jobs made through it carry on; connecting another account disconnects the previous one as `DELETE /api/voice/connection` does, refused with 409 `calls_in_progress` while calls through it are in progress unless `force: true`. The answer names the webhook URLs to configure at Twilio (status callbacks) and Vapi (server URL). Without a connection the organization uses the local simulator. Beyond the spec.',
    auth: 'bearer',
    roles: ['admin'],
    request: { body: jsonBody(VoiceConnectionBody) },
    responses: {
      200: envelope(VoiceConnectionSchema, 'Voice account connected'),
      409: callsInProgressConflict,
      503: voiceProviderUnavailable,
    },
  }),
  async (c) =>
    ok(c, await connectVoice(c.var.tenant, c.env, requestOrigin(c), c.req.valid('json')), 'Voice account connected'),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/voice/connection',
    operationId: 'getVoiceConnection',
    tags,
    summary: 'The organization’s Twilio connection (admin; beyond the spec)',
    description:
      'The voice connection as `POST /api/voice/connection` answered it: the Twilio account SID, whether browser calling (voice tokens) and agent calling (Vapi) are set up, and the webhook URLs to configure at Twilio and Vapi. Never a secret: the auth token, API key secret and Vapi key and webhook secret stay sealed. 404 when the organization has no connection: it calls through the local simulator. Beyond the spec.',
    auth: 'bearer',
    roles: ['admin'],
    responses: { 200: envelope(VoiceConnectionSchema, 'Voice connection') },
  }),
  async (c) => ok(c, await readVoiceConnection(c.var.tenant), 'Voice connection'),
);

voiceRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/voice/connection',
    operationId: 'disconnectVoice',
    tags,
    summary: 'Disconnect the organization’s Twilio account (admin; beyond the spec)',
    description:
      'Erases the connection’s sealed credentials at once; the organization calls through the local simulator again, and `GET /api/voice/connection` answers 404. Numbers bought through it stay recorded (and stay bought at Twilio: release them there). Number purchases and dials still queued through it fail, refunded, when their job runs. Twilio’s and Vapi’s reports are checked with the credentials, so a call through it still in progress (opened less than 4 hours ago, Twilio’s default time limit) could never hear how it ended: such calls make it a 409 `calls_in_progress` and nothing changes, unless `force=true`. Disconnected, every call still open through it is failed with nothing charged and its hold released (`calls_ended`). 404 when there is no connection. Beyond the spec.',
    auth: 'bearer',
    roles: ['admin'],
    // One statement (atomic alone): no transaction around it.
    transaction: false,
    request: { query: DisconnectVoiceQuery },
    responses: { 200: envelope(VoiceDisconnectedSchema, 'Voice account disconnected'), 409: callsInProgressConflict },
  }),
  async (c) =>
    ok(c, await disconnectVoice(c.var.tenant, c.req.valid('query').force === true), 'Voice account disconnected'),
);
