/**
 * Shapes of the voice routes: numbers, assignments, the wallet, calls, transcripts and tokens.
 * Every request string is bounded; money is in currency units (USD) on the wire.
 */
import { z } from '@hono/zod-openapi';
import { booleanFlag, operatorOrganizationId, positiveId, text, timestamp } from '../../core/schemas';
import { CALL_STATUSES, NUMBER_STATUSES, NUMBER_TYPES } from '../../db/schema';

const numberType = z
  .enum(NUMBER_TYPES, { error: `must be one of ${NUMBER_TYPES.join(', ')}` })
  .openapi({ description: 'local, mobile or toll_free', example: 'local' });

export const callStatus = z.enum(CALL_STATUSES).openapi('CallStatus', {
  description:
    'The provider’s call status: queued (waiting to be dialled, also for its turn under the provider’s calls-per-second rate), ringing, in-progress (answered), then one of completed, busy, failed, no-answer, canceled',
  example: 'completed',
});

const digits = (max: number, description: string, example: string) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .regex(/^\d+$/, 'must be digits only')
    .optional()
    .openapi({ description, example });

export const AvailableNumbersQuery = z.object({
  areaCode: digits(3, 'Area code the numbers start with (US: 3 digits)', '415'),
  contains: digits(10, 'Digits the number contains', '0101'),
  type: numberType.default('local'),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 50' })
    .int('must be a whole number from 1 to 50')
    .min(1, 'must be a whole number from 1 to 50')
    .max(50, 'must be a whole number from 1 to 50')
    .default(20)
    .openapi({ description: 'At most this many numbers (1 to 50, default 20)', type: 'integer', example: 10 }),
});

export const AvailableNumberSchema = z
  .object({
    phone_number: z.string().openapi({ description: 'The number in E.164' }),
    friendly_name: z.string().openapi({ description: 'The number formatted for people' }),
    type: numberType,
    locality: z.string().nullable().openapi({ description: 'City, when the provider tells' }),
    region: z.string().nullable().openapi({ description: 'State or region, when the provider tells' }),
    iso_country: z.string().openapi({ description: 'ISO 3166-1 alpha-2 country' }),
    monthly_price: z.number().openapi({ description: 'What the wallet is debited on purchase, per month, in USD' }),
    currency: z.literal('USD').openapi({ description: 'Always USD' }),
  })
  .openapi('AvailableNumber', {
    description: 'A number the provider offers for purchase',
    example: {
      phone_number: '+14155550100',
      friendly_name: '(415) 555-0100',
      type: 'local',
      locality: 'San Francisco',
      region: 'CA',
      iso_country: 'US',
      monthly_price: 1.15,
      currency: 'USD',
    },
  });

export const PhoneNumberSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The number’s id (read-only)' }),
    phone_number: z.string().openapi({ description: 'E.164' }),
    friendly_name: z.string().nullable().openapi({ description: 'A name for people' }),
    type: numberType,
    provider: z.string().openapi({ description: 'local (the simulator) or twilio' }),
    status: z.enum(NUMBER_STATUSES).openapi({
      description:
        'pending (paid, the provider purchase queued), active (the provider has it), failed (the purchase failed; the price was refunded), suspended (a month’s rental the wallet could not cover: not used for calls; active again once a top-up lets the monthly run charge it)',
    }),
    failure_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the purchase failed, or which month’s rental is unpaid (suspended)' }),
    monthly_price: z
      .number()
      .openapi({ description: 'Debited on purchase (that calendar month) and on the 1st of each later month, in USD' }),
    currency: z.literal('USD').openapi({ description: 'Always USD' }),
    assigned_user_ids: z.array(z.number().int()).openapi({ description: 'Users who may call from it' }),
    created_at: timestamp('When it was bought'),
  })
  .openapi('PhoneNumber', {
    description: 'A phone number of the organization',
    example: {
      id: 1,
      phone_number: '+14155550100',
      friendly_name: 'Sales line',
      type: 'local',
      provider: 'local',
      status: 'active',
      failure_reason: null,
      monthly_price: 1.15,
      currency: 'USD',
      assigned_user_ids: [3],
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const PurchaseNumberBody = z
  .object({
    phoneNumber: z
      .string({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .max(20, 'must be at most 20 characters')
      .openapi({
        description: 'The number to buy, in E.164 (e.g. +14155550100), from available-numbers',
        example: '+14155550100',
      }),
    friendlyName: text(1, 64)
      .optional()
      .openapi({ description: 'A name for people (1 to 64 characters)', example: 'Sales line' }),
    type: numberType.optional(),
  })
  .openapi('PurchaseNumberRequest', {
    description: 'A number to buy',
    example: { phoneNumber: '+14155550100', friendlyName: 'Sales line' },
  });

export const AssignNumberBody = z
  .object({
    number_id: positiveId.openapi({ type: 'integer', description: 'The number (of this organization)', example: 1 }),
    user_ids: z
      .array(positiveId.openapi({ type: 'integer' }))
      .min(1, 'must name at least one user')
      .max(100, 'must name at most 100 users')
      .optional()
      .openapi({ description: 'Users who may call from it (replaces the current ones)', example: [3, 4] }),
    user_id: positiveId
      .optional()
      .openapi({ type: 'integer', description: 'One user (instead of user_ids)', example: 3 }),
  })
  .openapi('AssignNumberRequest', {
    description: 'Who may call from a number',
    example: { number_id: 1, user_ids: [3, 4] },
  });

export const WalletSchema = z
  .object({
    balance: z
      .number()
      .openapi({ description: 'What the organization can spend on calls and numbers, in USD (never negative)' }),
    held: z.number().openapi({
      description: 'Part of the spending so far held for calls still running (released when they end), in USD',
    }),
    currency: z.literal('USD').openapi({ description: 'Always USD' }),
    call_price_per_minute: z.number().openapi({ description: 'What a started minute of an agent call costs, in USD' }),
    agent_call_max_minutes: z
      .number()
      .int()
      .openapi({ description: 'The longest an agent call may run; its price is held when it is placed' }),
    number_monthly_prices: z
      .object({
        local: z.number().openapi({ description: 'A local number, per month' }),
        mobile: z.number().openapi({ description: 'A mobile number, per month' }),
        toll_free: z.number().openapi({ description: 'A toll-free number, per month' }),
      })
      .openapi({ description: 'What buying a number debits, in USD' }),
  })
  .openapi('VoiceWallet', {
    description: 'The calling wallet, derived from its ledger',
    example: {
      balance: 18.5,
      held: 0.5,
      currency: 'USD',
      call_price_per_minute: 0.05,
      agent_call_max_minutes: 10,
      number_monthly_prices: { local: 1.15, mobile: 1.15, toll_free: 2.15 },
    },
  });

export const TopUpBody = z
  .object({
    organization_id: operatorOrganizationId('The organization whose wallet is topped up'),
    amount: z
      .number({ error: 'must be an amount in USD' })
      .min(0.01, 'must be at least 0.01')
      .max(10_000, 'must be at most 10000')
      .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, 'must have at most 2 decimals')
      .openapi({ description: 'USD to add (0.01 to 10000, at most 2 decimals)', example: 20 }),
    note: text(1, 200).optional().openapi({ description: 'Why (for the ledger)', example: 'Invoice 2026-001' }),
  })
  .openapi('WalletTopUpRequest', {
    description: 'Money added to one organization’s calling wallet',
    example: { organization_id: 12, amount: 20, note: 'Invoice 2026-001' },
  });

export const WalletTopUpSchema = WalletSchema.extend({
  organization_id: z.number().int().openapi({ description: 'The organization whose wallet was topped up' }),
}).openapi('VoiceWalletTopUp', {
  description: 'The calling wallet of the organization topped up, after the top-up',
  example: {
    organization_id: 12,
    balance: 38.5,
    held: 0.5,
    currency: 'USD',
    call_price_per_minute: 0.05,
    agent_call_max_minutes: 10,
    number_monthly_prices: { local: 1.15, mobile: 1.15, toll_free: 2.15 },
  },
});

export const VoiceTokenSchema = z
  .object({
    token: z.string().openapi({ description: 'The Twilio Access Token (JWT) for @twilio/voice-sdk’s Device' }),
    identity: z.string().openapi({ description: 'The client identity calls to this user ring' }),
    expires_at: timestamp('When it expires (at most an hour)'),
    provider: z
      .string()
      .openapi({ description: 'twilio, or local (a token of the same shape no Twilio service accepts)' }),
  })
  .openapi('VoiceToken', {
    description: 'A browser calling token',
    example: { token: 'eyJ…', identity: 'user-3', expires_at: '2026-01-15T10:30:00.000Z', provider: 'twilio' },
  });

export const AgentCallBody = z
  .object({
    system_prompt: text(1, 4_000).openapi({
      description: 'What the agent is told to do (1 to 4000 characters)',
      example: 'You qualify inbound leads for Acme.',
    }),
    lead_id: positiveId
      .optional()
      .openapi({ type: 'integer', description: 'The lead to call (or contact_id)', example: 12 }),
    contact_id: positiveId.optional().openapi({ type: 'integer', description: 'The contact to call (or lead_id)' }),
    first_message: text(1, 1_000)
      .optional()
      .openapi({ description: 'What the agent says first', example: 'Hi, this is Acme calling.' }),
    voice_id: text(1, 100).optional().openapi({ description: 'The platform’s voice id', example: 'Elliot' }),
    language: z
      .string()
      .trim()
      .max(16, 'must be at most 16 characters')
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or en-US')
      .optional()
      .openapi({ description: 'BCP 47 language tag of the conversation (default en)', example: 'en-US' }),
  })
  .openapi('AgentCallRequest', {
    description: 'What the AI agent calls about, and whom',
    example: {
      system_prompt: 'You qualify inbound leads for Acme.',
      lead_id: 12,
      first_message: 'Hi, this is Acme calling.',
    },
  });

const turn = z
  .object({
    speaker: z
      .enum(['agent', 'customer', 'user'])
      .openapi({ description: 'Who spoke: the AI agent, the person called, or our user' }),
    text: z.string().openapi({ description: 'What was said' }),
    at_sec: z.number().int().openapi({ description: 'Seconds from the start of the call' }),
  })
  .openapi('TranscriptTurn', {
    description: 'One speaker turn',
    example: { speaker: 'agent', text: 'Hi, this is Acme calling.', at_sec: 0 },
  });

export const CallSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The call’s id (read-only)' }),
    user_id: z.number().int().nullable().openapi({
      description: 'The user who placed it (a call to one of our numbers: the number’s first assigned user)',
    }),
    lead_id: z.number().int().nullable().openapi({ description: 'The lead called' }),
    contact_id: z.number().int().nullable().openapi({ description: 'The contact called' }),
    company_id: z.number().int().nullable().openapi({ description: 'The company of the lead or contact' }),
    direction: z.enum(['inbound', 'outbound']).openapi({ description: 'inbound or outbound' }),
    kind: z.enum(['agent', 'browser']).openapi({
      description:
        'agent (an AI voice agent) or browser (a person’s own call: placed from the browser with the voice token, or a call to one of the organization’s numbers)',
    }),
    from_number: z.string().openapi({ description: 'E.164 of the calling side' }),
    to_number: z.string().openapi({ description: 'E.164 of the called side' }),
    status: callStatus,
    provider: z.string().openapi({ description: 'local (the simulator), twilio or vapi' }),
    started_at: timestamp('When it was dialled').nullable(),
    answered_at: timestamp('When it was answered').nullable(),
    ended_at: timestamp('When it ended').nullable(),
    duration_sec: z.number().int().nullable().openapi({ description: 'Seconds from answer to end' }),
    transcript: z
      .array(turn)
      .nullable()
      .openapi({ description: 'Speaker turns, once the call ended (also at /transcript)' }),
    price: z.number().nullable().openapi({
      description:
        'What the call cost, in USD, once it ended, charged to the wallet (a call the organization did not place and the wallet could not cover is charged what the wallet held)',
    }),
    currency: z.literal('USD').openapi({ description: 'Always USD' }),
    has_recording: z.boolean().openapi({ description: 'Whether GET /api/call/{id}/recording has a link' }),
    failure_reason: z.string().nullable().openapi({ description: 'Why it failed, when it did' }),
    created_at: timestamp('When it was asked for'),
  })
  .openapi('Call', {
    description: 'A call',
    example: {
      id: 7,
      user_id: 3,
      lead_id: 12,
      contact_id: null,
      company_id: null,
      direction: 'outbound',
      kind: 'agent',
      from_number: '+14155550100',
      to_number: '+14155550142',
      status: 'completed',
      provider: 'local',
      started_at: '2026-01-15T09:30:00.000Z',
      answered_at: '2026-01-15T09:30:02.000Z',
      ended_at: '2026-01-15T09:30:47.000Z',
      duration_sec: 45,
      transcript: [{ speaker: 'agent', text: 'Hi, this is Acme calling.', at_sec: 0 }],
      price: 0.05,
      currency: 'USD',
      has_recording: true,
      failure_reason: null,
      created_at: '2026-01-15T09:29:58.000Z',
    },
  });

export const TranscriptSchema = z
  .object({
    call_id: z.number().int().openapi({ description: 'The call' }),
    turns: z.array(turn).openapi({ description: 'Speaker turns in order' }),
  })
  .openapi('CallTranscript', {
    description: 'A call’s transcript',
    example: { call_id: 7, turns: [{ speaker: 'agent', text: 'Hi, this is Acme calling.', at_sec: 0 }] },
  });

export const RecordingLinkSchema = z
  .object({
    url: z
      .string()
      .openapi({ description: 'A link that downloads the WAV recording without credentials, until expires_at' }),
    expires_at: timestamp('When the link stops working (15 minutes)'),
    content_type: z.string().openapi({ description: 'audio/wav' }),
  })
  .openapi('CallRecordingLink', {
    description: 'A short-lived link to a call’s recording',
    example: {
      url: '/api/v1/call/recording/eyJ2Ijox….abc',
      expires_at: '2026-01-15T09:45:00.000Z',
      content_type: 'audio/wav',
    },
  });

export const VoiceConnectionBody = z
  .object({
    account_sid: z
      .string()
      .trim()
      .max(34, 'must be at most 34 characters')
      .regex(/^AC[0-9a-f]{32}$/, 'must be a Twilio account SID (AC + 32 hex digits)')
      .openapi({ description: 'Twilio account SID', example: 'AC0123456789abcdef0123456789abcdef' }),
    auth_token: z
      .string()
      .min(1, 'is required')
      .max(128, 'must be at most 128 characters')
      .openapi({ description: 'Twilio auth token (signs Twilio’s webhooks; never returned)' }),
    api_key_sid: z
      .string()
      .trim()
      .max(34, 'must be at most 34 characters')
      .regex(/^SK[0-9a-f]{32}$/, 'must be a Twilio API key SID (SK + 32 hex digits)')
      .optional()
      .openapi({ description: 'API key that signs browser voice tokens' }),
    api_key_secret: z
      .string()
      .min(1, 'is required')
      .max(128, 'must be at most 128 characters')
      .optional()
      .openapi({ description: 'Its secret (never returned)' }),
    twiml_app_sid: z
      .string()
      .trim()
      .max(34, 'must be at most 34 characters')
      .regex(/^AP[0-9a-f]{32}$/, 'must be a TwiML App SID (AP + 32 hex digits)')
      .optional()
      .openapi({ description: 'TwiML App the browser’s outgoing calls run' }),
    vapi_api_key: z
      .string()
      .min(1, 'is required')
      .max(256, 'must be at most 256 characters')
      .optional()
      .openapi({ description: 'Vapi private API key: agent calls (never returned)' }),
    vapi_phone_number_id: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(100, 'must be at most 100 characters')
      .optional()
      .openapi({ description: 'The Vapi id of the number agent calls come from' }),
    vapi_webhook_secret: z
      .string()
      .min(8, 'must be at least 8 characters')
      .max(256, 'must be at most 256 characters')
      .optional()
      .openapi({ description: 'HMAC secret of the Vapi server credential (x-vapi-signature)' }),
    force: z.boolean().optional().openapi({
      description:
        'Connecting another account while calls through the current one are in progress: true fails those calls now (else 409 calls_in_progress)',
    }),
  })
  .openapi('VoiceConnectionRequest', {
    description: 'The Twilio account (and optionally Vapi) to connect',
    example: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: '…' },
  });

export const VoiceConnectionSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The connection' }),
    provider: z.string().openapi({ description: 'twilio' }),
    account_sid: z.string().openapi({ description: 'The Twilio account' }),
    browser_calling: z
      .boolean()
      .openapi({ description: 'Whether voice tokens can be issued (API key and TwiML App given)' }),
    agent_calling: z
      .boolean()
      .openapi({ description: 'Whether agent calls go to Vapi (its key, number and webhook secret given)' }),
    status_callback_url: z.string().openapi({
      description: 'Where Twilio posts call status and recording events: set it on the TwiML App and numbers',
    }),
    voice_url: z.string().openapi({
      description:
        'Our Voice URL, answering TwiML: set it as the Voice URL of the TwiML App and of numbers bought outside the API',
    }),
    agent_webhook_url: z.string().openapi({ description: 'Vapi’s server URL for end-of-call reports' }),
  })
  .openapi('VoiceConnection', {
    description: 'The organization’s Twilio account (never its secrets)',
    example: {
      id: 4,
      provider: 'twilio',
      account_sid: 'AC0123456789abcdef0123456789abcdef',
      browser_calling: true,
      agent_calling: true,
      status_callback_url: 'https://api.example.com/api/v1/voice/twilio/1',
      voice_url: 'https://api.example.com/api/v1/voice/twilio/1/voice',
      agent_webhook_url: 'https://api.example.com/api/v1/voice/vapi/1',
    },
  });

export const DisconnectVoiceQuery = z.object({
  force: booleanFlag.optional().openapi({
    description:
      'true: disconnect even though calls through the connection are in progress, failing them now (else 409 calls_in_progress)',
  }),
});

export const VoiceDisconnectedSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The connection disconnected' }),
    calls_ended: z.number().int().openapi({
      description:
        'Calls through it that were still open and are now failed (nothing charged, any hold released): those in progress with force=true, and any open longer than a call can last',
    }),
  })
  .openapi('VoiceDisconnected', {
    description: 'The voice connection this request disconnected',
    example: { id: 4, calls_ended: 0 },
  });
