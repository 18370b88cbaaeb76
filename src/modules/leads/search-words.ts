/**
 * The daily measure of how common each word is in large organizations' lead search documents
 * (lead_search_words), which searches use to leave common words out of the trigram index
 * condition (filters.ts, drizzle/0060_lead_search_words_sql.sql). One set-based statement for
 * every organization with at least 10 000 live leads, over a sample of its 20 000 newest; run by
 * the tables' owner on the cron's connection. A word that became common since the last run only
 * makes a search slower until the next one, never different.
 */
import { sql } from 'drizzle-orm';
import { withOwnDatabase, type Queryable } from '../../db/client';
import { readConfig, type Bindings } from '../../env';

export interface SearchWordsOptions {
  /** Organizations with fewer live leads get no rows: their posting lists are short. */
  minLeads?: number;
  /** How many of an organization's newest live leads are read. */
  sampleSize?: number;
}

/** Rewrites lead_search_words; returns how many organizations were measured. */
export async function refreshSearchWords(db: Queryable, options: SearchWordsOptions = {}): Promise<number> {
  const { minLeads = 10_000, sampleSize = 20_000 } = options;
  const result = await db.execute<{ organizations: number }>(
    sql`select refresh_lead_search_words(${minLeads}::integer, ${sampleSize}::integer) as organizations`,
  );
  return Number(result.rows[0]?.organizations ?? 0);
}

/** The daily cron's entry, on its own connection. */
export async function runSearchWordsRefresh(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), (db) => refreshSearchWords(db));
}
