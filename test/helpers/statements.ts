/**
 * Counts the statements a request sends on its own connection: each sequential statement is a
 * round trip between the Worker and the database's region, so budget tests assert on this.
 */
import { observeStatements } from '../../src/db/client';
import type { ApiResponse } from './api';

export async function statementsOf<T = any>(
  request: () => Promise<ApiResponse<T>>,
): Promise<{ response: ApiResponse<T>; statements: string[] }> {
  const statements: string[] = [];
  const stop = observeStatements((text) => statements.push(text));
  try {
    const response = await request();
    return { response, statements };
  } finally {
    stop();
  }
}
