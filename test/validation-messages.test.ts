/**
 * The plain validation messages of src/core/validation-messages.ts, as callers see them:
 * `${field}: ${message}` in the failure envelope, the same wording on every route, and a message
 * written in a schema kept over the plain default. The bad-input sweep checks that zod's own
 * English ("Invalid input", "expected", "received") reaches no caller.
 */
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import '../src/core/validation-messages';
import { call, type SignedUp, signupOrganization } from './helpers/api';

type Options = { body?: unknown; query?: Record<string, string | number> };

describe('plain validation messages on the routes', () => {
  let org: SignedUp;

  beforeAll(async () => {
    org = await signupOrganization('Messages');
  });

  async function failure(method: string, path: string, options: Options) {
    const response = await call(method, path, { token: org.token, ...options });
    return { status: response.status, message: response.body?.error?.message, code: response.body?.error?.code };
  }

  it('says a missing field is required, in a body and in a query', async () => {
    expect(await failure('POST', '/api/lead/note/add', { body: { title: 'Call back' } })).toEqual({
      status: 422,
      message: 'lead_id: is required',
      code: 'lead_id',
    });
    expect(await failure('POST', '/api/lead/note/add', { body: { lead_id: 1 } })).toMatchObject({
      message: 'title: is required',
    });
    expect(await failure('POST', '/api/lead/custom-field', { body: { field_name: 'x' } })).toMatchObject({
      status: 422,
      message: 'lead_id: is required',
    });
    expect(await failure('GET', '/api/lead/note/list', { query: {} })).toEqual({
      status: 400,
      message: 'lead_id: is required',
      code: 'lead_id',
    });
  });

  it('names the type a value of the wrong type must have', async () => {
    expect(await failure('POST', '/api/lead/note/add', { body: { lead_id: 'abc', title: 'Call back' } })).toEqual({
      status: 422,
      message: 'lead_id: must be a number',
      code: 'lead_id',
    });
    expect(await failure('GET', '/api/lead/note/list', { query: { lead_id: 'abc' } })).toMatchObject({
      status: 400,
      message: 'lead_id: must be a number',
    });
    expect(await failure('GET', '/api/lead/list', { query: { page: 'two' } })).toMatchObject({
      message: 'page: must be a number',
    });
    expect(await failure('POST', '/api/lead/note/add', { body: { lead_id: 1, title: 5 } })).toMatchObject({
      message: 'title: must be a string',
    });
    expect(await failure('POST', '/api/lead/note/add', { body: { lead_id: 1.5, title: 'x' } })).toMatchObject({
      message: 'lead_id: must be an integer',
    });
    expect(await failure('GET', '/api/lead/list', { query: { limit: '1.5' } })).toMatchObject({
      message: 'limit: must be an integer',
    });
    expect(await failure('POST', '/api/custom-lookups/update/1', { body: { is_active: 'yes' } })).toMatchObject({
      status: 422,
      message: 'is_active: must be true or false',
    });
    expect(
      await failure('POST', '/api/lead/add', { body: { first_name: 'Ada', last_name: 'Lovelace', tags: 'x' } }),
    ).toMatchObject({ message: 'tags: must be a list' });
    expect(await failure('POST', '/api/lead/note/add', { body: [1] })).toMatchObject({
      message: 'body: must be an object',
    });
  });

  it('lists the allowed values of an enum', async () => {
    expect(await failure('POST', '/api/exports/create', { body: { export_type: 'leads', format: 'pdf' } })).toEqual({
      status: 422,
      message: 'format: must be one of: csv, xlsx',
      code: 'format',
    });
    expect(await failure('POST', '/api/exports/create', { body: { export_type: 'planets' } })).toMatchObject({
      message: 'export_type: must be one of: leads, companies, contacts, clients',
    });
    expect(await failure('GET', '/api/lead/list', { query: { order_in: 'UP' } })).toMatchObject({
      status: 400,
      message: 'order_in: must be one of: ASC, DESC',
    });
  });

  it('gives the bound a value is outside of', async () => {
    expect(await failure('GET', '/api/lead/list', { query: { search_value: 'x'.repeat(201) } })).toEqual({
      status: 400,
      message: 'search_value: must be at most 200 characters',
      code: 'search_value',
    });
    expect(await failure('POST', '/api/lead/note/add', { body: { lead_id: 0, title: 'x' } })).toMatchObject({
      message: 'lead_id: must be greater than 0',
    });
  });

  it('keeps a message written in the schema', async () => {
    expect(
      await failure('POST', '/api/lead/add', { body: { first_name: 'Ada', last_name: 'L', email: 'ada@example.com' } }),
    ).toMatchObject({ status: 422, message: 'last_name: must be at least 2 characters' });
    expect(
      await failure('POST', '/api/lead/custom-field', { body: { lead_id: 'abc', field_name: 'x' } }),
    ).toMatchObject({ message: 'lead_id: must be a whole number' });
    expect(
      await failure('POST', '/api/lead/add', { body: { first_name: 'Ada', last_name: 'Lovelace', email: 'nope' } }),
    ).toMatchObject({ message: 'email: must be a valid email address' });
  });
});

describe('plain validation messages of the error map', () => {
  const messageOf = (schema: z.ZodType, value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? null : result.error.issues[0].message;
  };

  it('words formats, sizes and unions plainly', () => {
    expect(messageOf(z.email(), 'nope')).toBe('must be a valid email address');
    expect(messageOf(z.iso.date(), '2026-13-01')).toBe('must be a date (YYYY-MM-DD)');
    expect(messageOf(z.iso.datetime(), 'soon')).toBe('must be a date-time (ISO 8601, e.g. 2026-01-31T09:30:00Z)');
    expect(messageOf(z.url(), 'not a url')).toBe('must be a valid URL');
    expect(messageOf(z.string().min(3), 'ab')).toBe('must be at least 3 characters');
    expect(messageOf(z.string().min(1), '')).toBe('must not be empty');
    expect(messageOf(z.string().length(4), 'abc')).toBe('must be exactly 4 characters');
    expect(messageOf(z.array(z.number()).min(2), [1])).toBe('must have at least 2 items');
    expect(messageOf(z.array(z.number()).max(1), [1, 2])).toBe('must have at most 1 item');
    expect(messageOf(z.number().min(5), 4)).toBe('must be at least 5');
    expect(messageOf(z.number().lt(5), 5)).toBe('must be less than 5');
    expect(messageOf(z.number().multipleOf(5), 7)).toBe('must be a multiple of 5');
    expect(messageOf(z.literal('yes'), 'no')).toBe('must be yes');
    expect(messageOf(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 })).toBe('has unknown fields: b, c');
    expect(messageOf(z.union([z.number(), z.boolean()]), 'x')).toBe('must be a number or true or false');
    expect(messageOf(z.union([z.number(), z.boolean()]), undefined)).toBe('is required');
    expect(messageOf(z.object({}), null)).toBe('must be an object');
    expect(messageOf(z.string(), null)).toBe('must be a string');
  });

  it('leaves a message the schema gives alone', () => {
    expect(messageOf(z.string().min(3, 'too short for a name'), 'ab')).toBe('too short for a name');
    expect(messageOf(z.number({ error: 'give a count' }), 'x')).toBe('give a count');
    expect(
      messageOf(
        z.string().refine(() => false, 'not today'),
        'x',
      ),
    ).toBe('not today');
  });
});
