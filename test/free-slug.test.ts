/**
 * insertWithFreeSlug under contention that outlasts the numbered candidates (base, base-2 …): the
 * user is still created, with a random suffix, never a 500 after a fixed number of tries.
 */
import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/core/errors';
import { failureBody, toApiError } from '../src/core/http';
import { insertWithFreeSlug, SLUG_PATTERN } from '../src/modules/booking/settings';

const dialect = new PgDialect();

describe('insertWithFreeSlug', () => {
  it('still creates the user when every numbered candidate is taken by concurrent writers: a random-suffixed slug', async () => {
    const tried: { sql: string; params: unknown[] }[] = [];
    const row = await insertWithFreeSlug('Ada', 'Lovelace', async (slug: SQL<string>) => {
      tried.push(dialect.sqlToQuery(slug));
      // 12 candidates in a row taken by others (more than the old bound of 10), then one is free.
      return tried.length <= 12 ? [] : [{ id: 1, slug }];
    });
    expect(row).toMatchObject({ id: 1 });
    expect(tried.length).toBe(13);
    expect(tried[0].sql).toContain('free_booking_slug');
    const last = tried[12].params[0] as string;
    expect(last).toMatch(/^ada-lovelace-[a-z0-9]{8}$/);
    expect(last).toMatch(SLUG_PATTERN);
    const randoms = tried.filter((query) => !query.sql.includes('free_booking_slug')).map((query) => query.params[0]);
    expect(new Set(randoms).size).toBe(randoms.length);
  });

  it('keeps a random slug of a long name within 40 characters', async () => {
    let chosen = '';
    let calls = 0;
    await insertWithFreeSlug('Maximiliana Bartholomea', 'Featherstonehaugh-Cholmondeley', async (slug: SQL<string>) => {
      calls++;
      chosen = dialect.sqlToQuery(slug).params[0] as string;
      return calls < 5 ? [] : [{ slug }];
    });
    expect(chosen.length).toBeLessThanOrEqual(40);
    expect(chosen).toMatch(SLUG_PATTERN);
  });
});

describe('insertWithFreeSlug, when the insert never writes', () => {
  it('stops after 20 candidates with a 500 that says what failed and that nothing was created, not the bare internal error', async () => {
    let tries = 0;
    const failure = await insertWithFreeSlug('Ada', 'Lovelace', async () => {
      tries++;
      return [];
    }).catch((error: unknown) => error);
    expect(tries).toBe(20);
    expect(failure).toBeInstanceOf(ApiError);
    const body = failureBody(toApiError(failure));
    expect(body.error).toMatchObject({ type: 'internal_error', code: 'booking_slug_unavailable' });
    expect(body.error.message).toContain('No booking slug could be chosen for the new user');
    expect(body.error.message).toContain('"ada-lovelace"');
    expect(body.error.message).toContain('nothing was created');
    expect((failure as ApiError).status).toBe(500);
  });
});
