/**
 * Request and response shapes of API key management. The plaintext key appears in the create
 * response only; listings show its prefix.
 */
import { z } from '@hono/zod-openapi';
import { isValidIpOrCidr } from '../../core/auth/ip-allow-list';
import { text, timestamp } from '../../core/schemas';

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$/, 'must be a domain such as example.com or *.example.com');

export const AddApiKeyBody = z
  .object({
    name: text(1, 100),
    allowed_domains: z.array(domain).max(50).optional(),
    allowed_ips: z
      .array(z.string().trim().max(64).refine(isValidIpOrCidr, 'must be an IP address or CIDR range'))
      .max(50)
      .optional(),
    expires_at: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
      .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
      .nullish(),
  })
  .openapi('AddApiKeyRequest');
export type AddApiKeyInput = z.infer<typeof AddApiKeyBody>;

export const ApiKeySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    prefix: z.string().openapi({ description: 'First characters of the key, to tell keys apart' }),
    allowed_domains: z.array(z.string()),
    allowed_ips: z.array(z.string()),
    expires_at: timestamp().nullable(),
    last_used_at: timestamp().nullable(),
    created_at: timestamp(),
  })
  .openapi('ApiKey');

export const CreatedApiKeySchema = ApiKeySchema.extend({ key: z.string().openapi({ example: 'lm_live_…' }) });
