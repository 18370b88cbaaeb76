/**
 * The failures the enrich route declares besides the shared ones: the organization's enrichment
 * connection cannot be used (409), the provider is down or throttling (503 with Retry-After).
 */
import { z } from '@hono/zod-openapi';
import { conflictResponse, ErrorEnvelope } from '../../core/routes';

const connectionDetails = z.object({
  connection_id: z.number().int().openapi({ description: 'The enrichment connection' }),
  provider: z.string().openapi({ description: 'Its provider' }),
});

export const enrichmentConflict = conflictResponse(
  'EnrichmentConnectionConflict',
  'The organization’s enrichment connection cannot be used: its key was refused (connection_needs_reconnect) or it is disabled (connection_disabled)',
  [
    {
      code: 'connection_needs_reconnect',
      details: connectionDetails,
      example: { connection_id: 1, provider: 'apollo' },
    },
    { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 1, provider: 'apollo' } },
  ],
);

export const enrichmentUnavailable = {
  description:
    'The enrichment provider is unavailable or throttling (error.code provider_unavailable: retry after Retry-After seconds), or the server cannot open the stored key (credentials_key_missing)',
  headers: {
    'Retry-After': { description: 'Seconds to wait (provider_unavailable only)', schema: { type: 'integer' as const } },
  },
  content: { 'application/json': { schema: ErrorEnvelope } },
};
