/**
 * The failures a chat route declares besides the shared ones: no chat connection or one that
 * cannot be used (409), the provider or the server's credentials key unavailable (503).
 */
import { z } from '@hono/zod-openapi';
import { conflictResponse, ErrorEnvelope } from '../../core/routes';

const connectionDetails = z.object({
  connection_id: z.number().int().openapi({ description: 'The chat connection' }),
  provider: z.string().openapi({ description: 'Its provider' }),
});

export const chatConflict = conflictResponse(
  'ChatConnectionConflict',
  'Team chat cannot be used: the organization has no connection for the provider (chat_not_connected), or it needs to be reconnected (connection_needs_reconnect) or is disabled (connection_disabled)',
  [
    {
      code: 'chat_not_connected',
      details: z.object({ provider: z.string().openapi({ description: 'chat_a or chat_b' }) }),
      example: { provider: 'chat_a' },
    },
    {
      code: 'connection_needs_reconnect',
      details: connectionDetails,
      example: { connection_id: 1, provider: 'chat_a' },
    },
    { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 1, provider: 'chat_a' } },
  ],
);

export const chatUnavailable = {
  description:
    'The chat provider is unavailable or throttling (error.code provider_unavailable: retry after Retry-After seconds, Slack’s or Graph’s own), or the server cannot use stored credentials (credentials_key_missing, oauth_client_missing)',
  headers: {
    'Retry-After': { description: 'Seconds to wait (provider_unavailable only)', schema: { type: 'integer' as const } },
  },
  content: { 'application/json': { schema: ErrorEnvelope } },
};

export const chatSubscriptionConflict = conflictResponse(
  'ChatSubscriptionConflict',
  'The channel already has a subscription (duplicate_subscription), or the provider has no usable connection (chat_not_connected, connection_needs_reconnect, connection_disabled)',
  [
    {
      code: 'duplicate_subscription',
      details: z.object({
        provider: z.string().openapi({ description: 'chat_a or chat_b' }),
        channel: z.string().openapi({ description: 'The channel' }),
      }),
      example: { provider: 'chat_a', channel: 'C0123ABCD' },
    },
    {
      code: 'chat_not_connected',
      details: z.object({ provider: z.string().openapi({ description: 'chat_a or chat_b' }) }),
      example: { provider: 'chat_a' },
    },
    {
      code: 'connection_needs_reconnect',
      details: connectionDetails,
      example: { connection_id: 1, provider: 'chat_a' },
    },
    { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 1, provider: 'chat_a' } },
  ],
);
