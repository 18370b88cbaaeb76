/**
 * Shapes of the integrations routes: connected apps (every kind of connection, never a secret),
 * connecting a CRM or team-chat account, the CRM's properties, and CRM imports with their status.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, timestamp, timestampInput, tokenLifetimeSeconds } from '../../core/schemas';
import { CONNECTION_STATES, CRM_IMPORT_PHASES } from '../../db/schema';
import { JOB_STATUSES } from '../../jobs/job-status';
import { CHAT_CONNECTION_PROVIDERS } from '../../providers/chat/connect-check';
import { CRM_OBJECT_TYPES, CRM_PROVIDERS } from '../../providers/crm/interface';
import { ENRICHMENT_PROVIDERS } from '../../providers/enrichment/connect-check';

export const CONNECTABLE_KINDS = ['crm', 'chat', 'enrichment'] as const;
export type ConnectableKind = (typeof CONNECTABLE_KINDS)[number];
export const PROVIDERS_OF: Record<ConnectableKind, readonly string[]> = {
  crm: CRM_PROVIDERS,
  chat: CHAT_CONNECTION_PROVIDERS,
  enrichment: ENRICHMENT_PROVIDERS,
};

export const ConnectedAppSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The connection’s id' }),
    kind: z
      .string()
      .openapi({ description: 'What it connects: `mail`, `crm`, `chat`, `enrichment` (later kinds too)' }),
    provider: z.string().openapi({
      description:
        'mail: gmail, outlook, smtp, local; crm: hubspot, local; chat: chat_a (Slack), chat_b (Teams), local',
    }),
    identity: z.string().openapi({ description: 'The account: an address, a CRM portal, a chat workspace or user' }),
    display_name: z.string().nullable().openapi({ description: 'A readable name of the account' }),
    state: z.enum(CONNECTION_STATES).openapi({ description: 'active, needs_reconnect or disabled' }),
    last_success_at: timestamp('When the provider last accepted a call').nullable(),
    last_error: z.string().nullable().openapi({ description: 'Why it last failed, in plain words' }),
    scopes: z
      .array(z.string())
      .openapi({ description: 'The scopes the credential was granted, as given when connected' }),
    owner_id: z.number().int().nullable().openapi({ description: 'The user who connected it' }),
    created_at: timestamp().openapi({ description: 'When it was connected' }),
    updated_at: timestamp().openapi({ description: 'When it last changed' }),
  })
  .openapi('ConnectedApp', {
    description: 'A connection of the organization to an outside service; its credentials are never returned',
    example: {
      id: 3,
      kind: 'crm',
      provider: 'hubspot',
      identity: 'portal 62515',
      display_name: 'app.hubspot.com',
      state: 'active',
      last_success_at: '2026-01-15T09:30:00.000Z',
      last_error: null,
      scopes: ['crm.objects.contacts.read', 'crm.objects.companies.read'],
      owner_id: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const connectedAppFilters = {
  kind: z
    .string()
    .trim()
    .max(20, 'must be at most 20 characters')
    .optional()
    .openapi({ description: 'Only this kind (mail, crm, chat, enrichment)' }),
  provider: z
    .string()
    .trim()
    .max(20, 'must be at most 20 characters')
    .optional()
    .openapi({ description: 'Only this provider' }),
  state: z
    .enum(CONNECTION_STATES, { error: `must be one of: ${CONNECTION_STATES.join(', ')}` })
    .optional()
    .openapi({ description: 'Only connections in this state' }),
};

const scope = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const ConnectBody = z
  .object({
    kind: z
      .enum(CONNECTABLE_KINDS, { error: 'must be one of: crm, chat, enrichment' })
      .openapi({ description: 'crm, chat or enrichment (the provider lead enrichment uses)' }),
    provider: z.string().trim().min(1, 'is required').max(20, 'must be at most 20 characters').openapi({
      description:
        'crm: hubspot or local (the offline data set); chat: chat_a (Slack), chat_b (Teams) or local; enrichment: apollo or local (no network)',
      example: 'local',
    }),
    access_token: z.string().min(1, 'is required').max(8_192, 'must be at most 8192 characters').optional().openapi({
      description:
        'hubspot: a private app token or OAuth access token; chat_a: a Slack bot token (xoxb-…); chat_b: a Microsoft Graph token; apollo: an Apollo API key. Required except for local; checked with one call to the provider, sealed at rest, never returned',
    }),
    refresh_token: z.string().min(1, 'is required').max(8_192, 'must be at most 8192 characters').optional().openapi({
      description:
        "chat_b and hubspot only: the OAuth refresh token, so the access token is renewed when it expires (Microsoft Graph: granted with `offline_access`, about an hour, a rotated one kept; HubSpot OAuth: 30 minutes, renewed at HubSpot's token endpoint with the server's HUBSPOT_CLIENT_ID). Not for a HubSpot private app token, which does not expire. Sealed at rest, never returned",
    }),
    expires_in: tokenLifetimeSeconds.optional().openapi({
      description:
        'with refresh_token only: seconds until the access token expires, as the OAuth token response said (default 3600 for chat_b, 1800 for hubspot)',
      example: 3599,
    }),
    scopes: z
      .array(scope)
      .max(50, 'at most 50 scopes')
      .optional()
      .openapi({
        description: 'The scopes the token was granted (shown in the list; the provider enforces them)',
        example: ['crm.objects.contacts.read'],
      }),
  })
  .openapi('ConnectAppRequest', {
    description:
      'A CRM, team-chat or enrichment account to connect (beyond the spec); checked with the provider before it is stored',
    example: { kind: 'crm', provider: 'local' },
  });

export const CrmPropertiesQuery = z.object({
  all: z
    .enum(['0', '1'], { error: 'must be 0 or 1' })
    .default('0')
    .openapi({ description: '0 (default): the commonly mapped properties; 1: every property', example: '1' }),
  connection_id: positiveId.optional().openapi({
    type: 'integer',
    description: 'The CRM connection (default: the most recently connected active one)',
  }),
});

export const CrmPropertySchema = z
  .object({
    object_type: z.enum(CRM_OBJECT_TYPES).openapi({ description: 'contacts (mapped to leads) or companies' }),
    name: z.string().openapi({ description: 'The property’s internal name: the key of a mapping entry' }),
    label: z.string().openapi({ description: 'The label the CRM shows' }),
    type: z.string().openapi({ description: 'The CRM’s value type (string, number, date, datetime, enumeration, …)' }),
    common: z.boolean().openapi({ description: 'Whether it is one of the commonly mapped properties' }),
    suggested_field: z.string().nullable().openapi({ description: 'The lead or company field it usually maps to' }),
  })
  .openapi('CrmProperty', {
    description: 'A property of the connected CRM’s contacts or companies',
    example: {
      object_type: 'contacts',
      name: 'firstname',
      label: 'First Name',
      type: 'string',
      common: true,
      suggested_field: 'first_name',
    },
  });

const mappingEntries = (side: string) =>
  z
    .record(
      z.string().max(100, 'CRM property names must be at most 100 characters'),
      z
        .string()
        .max(100, 'must be at most 100 characters')
        .openapi({ description: `A ${side} field` }),
    )
    .refine((value) => Object.keys(value).length <= 100, 'at most 100 entries')
    .optional();

export const CrmImportBody = z
  .object({
    mapping: z
      .object({
        lead: mappingEntries('lead').openapi({
          description:
            'CRM contact property → lead field (first_name, last_name, email, … as on POST /api/lead/add; `full_name`; `custom_fields.<key>`). Absent: contacts are not imported',
          example: { firstname: 'first_name', lastname: 'last_name', email: 'email' },
        }),
        company: mappingEntries('company').openapi({
          description:
            'CRM company property → company field (company_name, website, industry_type, …). Absent: companies are not imported',
          example: { name: 'company_name', domain: 'website' },
        }),
      })
      .openapi({ description: 'Which CRM property fills which field, per side; at least one side' }),
    from: timestampInput(
      { offset: 'optional', dateOnly: true },
      'Only records the CRM changed at or after this instant',
    ).optional(),
    to: timestampInput(
      { offset: 'optional', dateOnly: true },
      'Only records the CRM changed at or before this instant',
    ).optional(),
    limit: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(1_000_000, 'must be at most 1000000')
      .optional()
      .openapi({ description: 'At most this many records of each object type (default: all)', example: 500 }),
    connection_id: positiveId.optional().openapi({
      type: 'integer',
      description: 'The CRM connection (default: the most recently connected active one)',
    }),
  })
  .openapi('CrmImportRequest', {
    description: 'An import from the connected CRM: companies first, then contacts as leads',
    example: {
      mapping: {
        lead: { firstname: 'first_name', lastname: 'last_name', email: 'email', company: 'company' },
        company: { name: 'company_name', domain: 'website' },
      },
      from: '2026-01-01T00:00:00Z',
      limit: 500,
    },
  });

const counts = z
  .object({
    created: z.number().int().openapi({ description: 'Leads and companies created' }),
    updated: z.number().int().openapi({
      description: 'Existing ones updated (found by the CRM record id, email, profile URL, domain or name)',
    }),
    skipped: z
      .number()
      .int()
      .openapi({ description: 'Records left out (outside the date window, or a key another record holds)' }),
    failed: z.number().int().openapi({ description: 'Records refused (their errors are listed)' }),
  })
  .openapi({ description: 'What the records became so far' });

export const CrmImportJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The import job’s id' }),
    provider: z.string().openapi({ description: 'The CRM: hubspot or local' }),
    connection_id: z.number().int().nullable().openapi({ description: 'The connection it reads through' }),
    status: z.enum(JOB_STATUSES).openapi({ description: 'queued, running, completed, failed or cancelled' }),
    phase: z.enum(CRM_IMPORT_PHASES).openapi({ description: 'companies, then contacts, then done' }),
    mapping: z
      .object({
        lead: z.record(z.string(), z.string()).openapi({ description: 'CRM contact property → lead field' }),
        company: z.record(z.string(), z.string()).openapi({ description: 'CRM company property → company field' }),
      })
      .openapi({ description: 'The mapping as validated' }),
    from: timestamp('The window’s start, if any').nullable(),
    to: timestamp('The window’s end, if any').nullable(),
    limit: z.number().int().nullable().openapi({ description: 'Records per object type at most, if set' }),
    counts,
    processed: z.number().int().openapi({ description: 'Records read from the CRM so far' }),
    total: z.number().int().nullable().openapi({ description: 'Records to read, when the CRM says (null: unknown)' }),
    progress: z.number().int().openapi({ description: 'Percent done (0 to 100); 100 once completed' }),
    error: z.string().nullable().openapi({ description: 'Why it failed, or the last retry note' }),
    created_by: z.number().int().nullable().openapi({ description: 'Who started it' }),
    started_at: timestamp('When a worker first took it').nullable(),
    finished_at: timestamp('When it ended').nullable(),
    created_at: timestamp().openapi({ description: 'When it was queued' }),
    updated_at: timestamp().openapi({ description: 'When it last changed' }),
  })
  .openapi('CrmImportJob', {
    description: 'An import from the connected CRM',
    example: {
      id: 7,
      provider: 'local',
      connection_id: 3,
      status: 'running',
      phase: 'contacts',
      mapping: {
        lead: { email: 'email', firstname: 'first_name', lastname: 'last_name' },
        company: { name: 'company_name' },
      },
      from: null,
      to: null,
      limit: null,
      counts: { created: 640, updated: 12, skipped: 0, failed: 9 },
      processed: 700,
      total: 3600,
      progress: 19,
      error: null,
      created_by: 1,
      started_at: '2026-01-15T09:30:01.000Z',
      finished_at: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:09.000Z',
    },
  });

export const CrmImportErrorSchema = z
  .object({
    object_type: z.enum(['contact', 'company']).openapi({ description: 'What the CRM record is' }),
    crm_record_id: z.string().openapi({ description: 'The record’s id in the CRM' }),
    outcome: z
      .enum(['error', 'skipped', 'merged'])
      .openapi({ description: 'error (refused), skipped or merged into another record' }),
    field: z.string().nullable().openapi({ description: 'The field at fault, for an error' }),
    message: z.string().openapi({ description: 'What happened, in plain words' }),
    record_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The lead or company it merged into or collided with' }),
  })
  .openapi('CrmImportRecordOutcome', {
    description: 'A CRM record that was not simply created or updated',
    example: {
      object_type: 'contact',
      crm_record_id: '500053',
      outcome: 'error',
      field: 'email',
      message: 'email: must be a valid email address',
      record_id: null,
    },
  });

export const CrmImportStatusSchema = CrmImportJobSchema.extend({
  errors: z
    .array(CrmImportErrorSchema)
    .openapi({ description: 'The first 50 errors, in the order met (outcome error)' }),
  merged: z
    .number()
    .int()
    .openapi({ description: 'Records merged into a lead or company another record also became (duplicates)' }),
}).openapi('CrmImportStatus', {
  description: 'An import’s status, counts, progress and first errors',
  example: {
    id: 7,
    provider: 'local',
    connection_id: 3,
    status: 'completed',
    phase: 'done',
    mapping: { lead: { email: 'email', firstname: 'first_name', lastname: 'last_name' }, company: {} },
    from: null,
    to: null,
    limit: 100,
    counts: { created: 95, updated: 2, skipped: 0, failed: 3 },
    processed: 100,
    total: 100,
    progress: 100,
    error: null,
    created_by: 1,
    started_at: '2026-01-15T09:30:01.000Z',
    finished_at: '2026-01-15T09:30:04.000Z',
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:04.000Z',
    errors: [
      {
        object_type: 'contact',
        crm_record_id: '500053',
        outcome: 'error',
        field: 'email',
        message: 'email: must be a valid email address',
        record_id: null,
      },
    ],
    merged: 2,
  },
});
