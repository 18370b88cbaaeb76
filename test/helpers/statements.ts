/**
 * Counts the statements a request sends on its own connection: each sequential statement is a
 * round trip between the Worker and the database's region, so budget tests assert on this.
 * Only connections that open inside the window count: an earlier request's after-response work
 * (an outbox row's delete in `waitUntil`) on its own connection is not this request's.
 * `roundTrips` leaves out what costs none: a BEGIN, SAVEPOINT or RELEASE goes out with the next
 * statement, and what the connection does not send at all (client.ts, `holdControl`).
 */
import { observeStatements } from '../../src/db/client';
import type { ApiResponse } from './api';

export async function statementsOf<R = ApiResponse<any>>(
  request: () => Promise<R>,
): Promise<{
  response: R;
  statements: string[];
  roundTrips: number;
  /** Each statement with whether it cost a round trip, to count a subset (`roundTripsOf`). */
  sent: { text: string; roundTrip: boolean }[];
}> {
  const statements: string[] = [];
  const sent: { text: string; roundTrip: boolean }[] = [];
  let roundTrips = 0;
  const own = new Set<number>();
  const stop = observeStatements((text, connection, first, _values, roundTrip = true) => {
    if (first) own.add(connection);
    if (!own.has(connection)) return;
    statements.push(text);
    sent.push({ text, roundTrip });
    if (roundTrip) roundTrips++;
  });
  try {
    const response = await request();
    return { response, statements, roundTrips, sent };
  } finally {
    stop();
  }
}

/**
 * The round trips of the statements `sent` that `mine` keeps: a request's own, without the work
 * after its response (an outbox row's delete once the message left) that a test leaves out.
 */
export function roundTripsOf(sent: { text: string; roundTrip: boolean }[], mine: (text: string) => boolean): number {
  return sent.filter((statement) => statement.roundTrip && mine(statement.text)).length;
}
