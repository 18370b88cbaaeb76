/**
 * The failures a voice route declares besides the shared ones.
 */
import { z } from '@hono/zod-openapi';
import { conflictResponse, ErrorEnvelope, paymentRequiredResponse } from '../../core/routes';

/** The 402 of the routes that debit the calling wallet (the body `debitWallet` answers). */
export const insufficientBalance = paymentRequiredResponse(
  'InsufficientBalance',
  'The calling wallet does not cover it (error.code insufficient_balance; error.details: balance, required, currency): nothing was bought or placed',
  {
    code: 'insufficient_balance',
    details: z.object({
      balance: z.number().openapi({ description: 'What the wallet holds, in currency units', example: 0.5 }),
      required: z.number().openapi({ description: 'What was needed, in currency units', example: 1.15 }),
      currency: z.string().openapi({ description: 'The wallet’s currency (ISO 4217)', example: 'USD' }),
    }),
    example: { balance: 0.5, required: 1.15, currency: 'USD' },
  },
);

export const numberConflict = conflictResponse(
  'PhoneNumberConflict',
  'The organization already has this number (number_owned)',
  [
    {
      code: 'number_owned',
      details: z.object({ phone_number: z.string().openapi({ description: 'The number, E.164' }) }),
      example: { phone_number: '+14155550100' },
    },
  ],
);

export const voiceProviderUnavailable = {
  description:
    'The voice provider is unavailable or throttling (error.code provider_unavailable: retry after Retry-After seconds), or the server cannot use stored credentials (credentials_key_missing)',
  headers: {
    'Retry-After': { description: 'Seconds to wait (provider_unavailable only)', schema: { type: 'integer' as const } },
  },
  content: { 'application/json': { schema: ErrorEnvelope } },
};

export const numberFailedConflict = conflictResponse(
  'PhoneNumberFailedConflict',
  'The number’s purchase failed (number_failed): buy it again first',
  [{ code: 'number_failed' }],
);

export const agentCallConflict = conflictResponse(
  'AgentCallConflict',
  'The call cannot be placed: the connected account has no agent platform (agent_platform_missing) or the organization has no number to call from (no_phone_number)',
  [{ code: 'agent_platform_missing' }, { code: 'no_phone_number' }],
);

export const voiceTokenConflict = conflictResponse(
  'VoiceTokenConflict',
  'The connected Twilio account has no API key or TwiML App for browser calling (browser_calling_not_configured)',
  [{ code: 'browser_calling_not_configured' }],
);

export const callsInProgressConflict = conflictResponse(
  'VoiceCallsInProgressConflict',
  'Calls through the voice connection are still in progress (calls_in_progress; error.details.calls_in_progress counts them): nothing was disconnected. Disconnect after they end, or send force=true',
  [
    {
      code: 'calls_in_progress',
      details: z.object({
        calls_in_progress: z.number().int().openapi({ description: 'The calls through the connection not over yet' }),
      }),
      example: { calls_in_progress: 1 },
    },
  ],
);
