/**
 * A provider call made while a client waits (a synchronous route), with its failure turned into
 * the route's answer: 401/403 marks the connection needs_reconnect (committed on its own, whatever
 * the request does next) and answers 409 `connection_needs_reconnect`; 429/5xx answers 503
 * `provider_unavailable` with Retry-After; a 404 is a 404. Queued work handles failures itself
 * (retry with backoff), see modules/mail/send-job.ts.
 */
import { markNeedsReconnect, type ConnectionRow, type IndependentWriter } from './connections';
import { ConnectionNeedsReconnect, ProviderFailure, routeErrorOf } from './failures';

export async function callProvider<T>(
  writer: IndependentWriter,
  connection: ConnectionRow,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    if (error.kind === 'auth') {
      await writer.run(connection.organizationId, (tx) => markNeedsReconnect(tx, connection, error.reason));
      throw new ConnectionNeedsReconnect(connection);
    }
    throw routeErrorOf(error, what);
  }
}
