/**
 * The failures a mail route declares besides the shared ones: the account cannot be used (409),
 * the provider or the server's credentials key is unavailable (503 with Retry-After).
 */
import { z } from '@hono/zod-openapi';
import { conflictResponse, ErrorEnvelope } from '../../core/routes';

const connectionDetails = z.object({
  connection_id: z.number().int().openapi({ description: 'The mail configuration' }),
  provider: z.string().openapi({ description: 'Its provider' }),
});

export const accountConflict = conflictResponse(
  'MailAccountConflict',
  'The mail account cannot be used: it needs to be reconnected (connection_needs_reconnect: its credentials were refused, or its mail service refused to send as its address; the message says which; update it with a new password) or is disabled (connection_disabled)',
  [
    {
      code: 'connection_needs_reconnect',
      details: connectionDetails,
      example: { connection_id: 1, provider: 'gmail' },
    },
    { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 1, provider: 'gmail' } },
  ],
);

export const providerUnavailable = {
  description:
    'The mail provider is unavailable or throttling (error.code provider_unavailable: retry after Retry-After seconds), or the server cannot use stored credentials (credentials_key_missing, oauth_client_missing)',
  headers: {
    'Retry-After': { description: 'Seconds to wait (provider_unavailable only)', schema: { type: 'integer' as const } },
  },
  content: { 'application/json': { schema: ErrorEnvelope } },
};
