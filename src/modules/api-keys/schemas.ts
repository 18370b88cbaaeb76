/**
 * Request and response shapes of API key management. The plaintext key appears in the create
 * response only; listings show its prefix.
 */
import { z } from '@hono/zod-openapi';
import { API_KEY_SCOPES } from '../../core/auth/api-key-cache';
import { isValidIpOrCidr } from '../../core/auth/ip-allow-list';
import { text, timestamp, timestampInput } from '../../core/schemas';

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$/, 'must be a domain such as example.com or *.example.com');

const SCOPES_MEANING =
  'leads:write: POST /api/v1/lead and POST /api/v1/intent-signal; leads:read: GET /api/v1/lead/lead-list (every lead of the organization)';

const scope = z.enum(API_KEY_SCOPES, { error: `must be one of ${API_KEY_SCOPES.join(', ')}` }).openapi({
  description: `A scope: ${SCOPES_MEANING}`,
});

export const AddApiKeyBody = z
  .object({
    name: text(1, 100).openapi({ description: 'A label to tell keys apart, 1 to 100 characters' }),
    allowed_domains: z.array(domain).max(50).optional().openapi({
      description:
        'Hosts the calling page may have (Origin or Referer header), e.g. example.com or *.example.com; at most 50. Omitted or empty: any caller',
    }),
    allowed_ips: z
      .array(z.string().trim().max(64).refine(isValidIpOrCidr, 'must be an IP address or CIDR range'))
      .max(50)
      .optional()
      .openapi({
        description: 'IP addresses or CIDR ranges the caller must come from; at most 50. Omitted or empty: any address',
      }),
    scopes: z
      .array(scope)
      .min(1, 'must name at least one scope')
      .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope')
      .optional()
      .openapi({
        description: `What the key may call (${SCOPES_MEANING}); calling anything else answers 403 insufficient_scope. A key placed in a web page should hold leads:write only. Omitted: both`,
        example: ['leads:write'],
      }),
    expires_at: timestampInput({ offset: 'required' })
      .refine((value) => value.getTime() > Date.now(), 'must be in the future')
      .nullish()
      .openapi({
        description:
          'When the key stops working (ISO 8601 with offset, in the future); after it the key answers 403 api_key_expired. Omitted or null: never',
      }),
  })
  .openapi('AddApiKeyRequest', {
    description: 'A new API key and its restrictions',
    example: {
      name: 'Website form',
      allowed_domains: ['example.com'],
      scopes: ['leads:write'],
      expires_at: '2027-01-01T00:00:00Z',
    },
  });
export type AddApiKeyInput = z.infer<typeof AddApiKeyBody>;

export const ApiKeySchema = z
  .object({
    id: z.number().int().openapi({ description: 'The key’s id (for revoking it)' }),
    name: z.string().openapi({ description: 'The key’s label' }),
    prefix: z.string().openapi({ description: 'First characters of the key, to tell keys apart' }),
    allowed_domains: z.array(z.string()).openapi({ description: 'Hosts the calling page may have; empty: any caller' }),
    allowed_ips: z
      .array(z.string())
      .openapi({ description: 'IP addresses or CIDR ranges allowed; empty: any address' }),
    scopes: z.array(z.enum(API_KEY_SCOPES)).openapi({
      description: `What the key may call, in alphabetical order (${SCOPES_MEANING})`,
    }),
    expires_at: timestamp('When the key stops working; null: never').nullable(),
    last_used_at: timestamp(
      'When the key last authenticated a request (updated at most once a minute); null: never used',
    ).nullable(),
    created_at: timestamp('When the key was created'),
  })
  .openapi('ApiKey', {
    description: 'An API key, without its secret',
    example: {
      id: 3,
      name: 'Website form',
      prefix: 'lm_live_Xy3k9Q',
      allowed_domains: ['example.com'],
      allowed_ips: [],
      scopes: ['leads:write'],
      expires_at: null,
      last_used_at: '2026-01-16T10:00:00.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({
    description: 'The whole key, for the x-api-key header: shown in this response only (only its hash is stored)',
    example: 'lm_live_…',
  }),
}).openapi({
  description: 'The new key, with its secret',
  example: {
    id: 3,
    name: 'Website form',
    prefix: 'lm_live_Xy3k9Q',
    allowed_domains: ['example.com'],
    allowed_ips: [],
    scopes: ['leads:write'],
    expires_at: null,
    last_used_at: null,
    created_at: '2026-01-15T09:30:00.000Z',
    key: 'lm_live_Xy3k9QeT1v…',
  },
});
