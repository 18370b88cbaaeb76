/**
 * createLeadsBatch, the one creation path (POST /api/lead/add and the spreadsheet import):
 * per-row reference errors, duplicates against live leads and within the batch (skipped or
 * merged), idempotent redelivery of an import batch, and a fixed number of statements.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/env';
import { openDatabase, withTenant } from '../src/db/client';
import { actorContext, type TenantContext } from '../src/db/tenant';
import { AddLeadBody } from '../src/modules/leads/schemas';
import { createLeadsBatch, type BatchOptions, type BatchRow } from '../src/modules/leads/create-leads';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let org: SignedUp;
let tags: Record<string, number>;

function row(rowNumber: number, fields: Record<string, unknown>) {
  return { rowNumber, input: AddLeadBody.parse({ first_name: 'Row', last_name: `Number ${rowNumber}`, ...fields }) };
}

/** The app's own database handle, as the queue consumer uses it. */
const handle = openDatabase(readConfig(env));

async function inTenant<T>(work: (ctx: TenantContext) => Promise<T>): Promise<T> {
  return withTenant(handle.db, org.orgId, (tx) =>
    work({ db: tx, orgId: org.orgId, ...actorContext({ kind: 'user', userId: org.userId, role: 'admin' }) }),
  );
}

async function batch(rows: BatchRow[], options: BatchOptions) {
  return inTenant((ctx) => createLeadsBatch(ctx, rows, options));
}

async function view(id: number) {
  return (await call('GET', `/api/lead/view/${id}`, { token: org.token })).body.data;
}

beforeAll(async () => {
  org = await signupOrganization('Batch');
  const lookups = await call('GET', '/api/custom-lookups/list', {
    token: org.token,
    query: { type: 'tags', limit: 100 },
  });
  tags = Object.fromEntries(lookups.body.data.map((tag: { name: string; id: number }) => [tag.name, tag.id]));
});

afterAll(() => handle.close());

describe('createLeadsBatch', () => {
  it('creates valid rows and reports each invalid reference by row and field', async () => {
    const result = await batch(
      [
        row(2, { email: uniqueEmail('ok'), company: 'Batch Co', tags: [tags.Hot], priority: 2 }),
        row(3, { status: 77 }),
        row(4, { tags: [tags.VIP, 999_999], assigned_to: 999_999 }),
        row(5, { company: 'batch co' }),
      ],
      { onDuplicate: 'skip' },
    );
    expect(result).toMatchObject({ created: 2, updated: 0, skipped: [], merged: [] });
    expect(result.errors).toEqual([
      { rowNumber: 3, field: 'status', message: expect.any(String) },
      { rowNumber: 4, field: 'tags.1', message: expect.any(String) },
      { rowNumber: 4, field: 'assigned_to', message: expect.any(String) },
    ]);
    const [first, second] = await Promise.all(result.createdLeads.map((created) => view(created.leadId)));
    expect(first).toMatchObject({ status: 1, priority_text: 'Medium', tags: [{ name: 'Hot' }] });
    expect(second.company_id).toBe(first.company_id);
  });

  it('skips duplicates of live leads and of earlier rows, naming the lead they duplicate', async () => {
    const existing = uniqueEmail('exists');
    const created = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Old', last_name: 'Lead', email: existing },
    });
    const fresh = uniqueEmail('fresh');
    const result = await batch(
      [row(1, { email: existing.toUpperCase() }), row(2, { email: fresh }), row(3, { email: fresh })],
      { onDuplicate: 'skip' },
    );
    expect(result.created).toBe(1);
    const freshId = result.createdLeads[0].leadId;
    expect(result.skipped).toEqual([
      { rowNumber: 1, leadId: created.body.data.id, field: 'email' },
      { rowNumber: 3, leadId: freshId, field: 'email', earlierRow: 2 },
    ]);
  });

  it('merges duplicates into the existing lead: given values win, custom fields merge, tags add up', async () => {
    const email = uniqueEmail('merge');
    const lead = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Old', last_name: 'Name', email, city: 'Paris', tags: [tags.Hot], custom_fields: { a: 1 } },
      })
    ).body.data;
    const result = await batch(
      [
        row(7, { email, first_name: 'New', job_title: 'CTO', tags: [tags.VIP], custom_fields: { b: 2 } }),
        row(8, { email, custom_fields: { c: 3 }, assigned_to: org.userId }),
      ],
      { onDuplicate: 'merge' },
    );
    expect(result).toMatchObject({
      created: 0,
      updated: 1,
      merged: [
        { rowNumber: 7, leadId: lead.id },
        { rowNumber: 8, leadId: lead.id },
      ],
    });
    const merged = await view(lead.id);
    expect(merged).toMatchObject({
      first_name: 'Row',
      city: 'Paris',
      job_title: 'CTO',
      assigned_to: org.userId,
      custom_fields: { a: 1, b: 2, c: 3 },
    });
    expect(merged.tags.map((tag: { name: string }) => tag.name)).toEqual(['Hot', 'VIP']);
    const feed = await call('GET', '/api/feed/list', {
      token: org.token,
      query: { model_type: 'lead', model_id: lead.id },
    });
    expect(feed.body.data[0]).toMatchObject({ action: 'merged', changes: { job_title: { from: null, to: 'CTO' } } });
  });

  it('reports a merge row whose email and profile URL two leads hold as skipped, naming the second, and merges the rest', async () => {
    const email = uniqueEmail('split');
    const url = `https://www.linkedin.com/in/${crypto.randomUUID()}`;
    const add = (body: Record<string, unknown>) =>
      call('POST', '/api/lead/add', { token: org.token, body: { first_name: 'Old', last_name: 'Lead', ...body } });
    const byEmail = (await add({ email, city: 'Paris' })).body.data;
    const byProfile = (await add({ email: uniqueEmail('split-b'), profile_url: url })).body.data;
    const other = (await add({ email: uniqueEmail('split-c') })).body.data;
    const result = await batch(
      [row(2, { email, profile_url: url, city: 'Rome' }), row(3, { email: other.email, city: 'Oslo' })],
      { onDuplicate: 'merge' },
    );
    expect(result).toMatchObject({
      created: 0,
      updated: 1,
      skipped: [{ rowNumber: 2, leadId: byProfile.id, field: 'profile_url' }],
      merged: [{ rowNumber: 3, leadId: other.id }],
      errors: [],
    });
    expect(await view(byEmail.id)).toMatchObject({ city: 'Paris', profile_url: null });
    expect(await view(other.id)).toMatchObject({ city: 'Oslo' });
  });

  it('folds repeated new emails into the row that creates the lead when merging', async () => {
    const email = uniqueEmail('fold');
    const result = await batch([row(1, { email, city: 'Oslo' }), row(2, { email, country: 'Norway' })], {
      onDuplicate: 'merge',
    });
    expect(result.created).toBe(1);
    expect(result.merged).toEqual([
      { rowNumber: 2, leadId: result.createdLeads[0].leadId, field: 'email', earlierRow: 1 },
    ]);
    expect(await view(result.createdLeads[0].leadId)).toMatchObject({ city: 'Oslo', country: 'Norway' });
  });

  it('skips a row matched to its lead by the caller (a CRM record) whose profile URL an earlier row of the batch creates a lead with', async () => {
    const own = (
      await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Own', last_name: 'Record', email: uniqueEmail('crm-own') },
      })
    ).body.data;
    const url = `https://www.linkedin.com/in/${crypto.randomUUID()}`;
    const result = await batch(
      [
        row(2, { email: uniqueEmail('crm-new'), profile_url: url }),
        { ...row(3, { email: own.email, profile_url: url, city: 'Rome' }), holderId: own.id },
        row(4, { email: uniqueEmail('crm-other') }),
      ],
      { onDuplicate: 'merge' },
    );
    const createdByRow2 = result.createdLeads.find((created) => created.rowNumber === 2)?.leadId;
    expect(result).toMatchObject({
      created: 2,
      updated: 0,
      skipped: [{ rowNumber: 3, leadId: createdByRow2, field: 'profile_url', earlierRow: 2 }],
      merged: [],
      errors: [],
    });
    expect(await view(own.id)).toMatchObject({ profile_url: null, city: null });
  });

  it('creates nothing twice when an import batch is delivered again', async () => {
    const job = await inTenant(async (ctx) => {
      const file = await ctx.db.execute<{ id: string }>(
        sql`insert into stored_files (organization_id, storage_key, file_name, content_type, size_bytes, category) values (${org.orgId}, 'k', 'f.csv', 'text/csv', 1, 'import') returning id`,
      );
      const created = await ctx.db.execute<{ id: string }>(
        sql`insert into import_jobs (organization_id, type, file_id, file_name) values (${org.orgId}, 'leads', ${file.rows[0].id}, 'f.csv') returning id`,
      );
      return Number(created.rows[0].id);
    });
    const rows = [row(10, { email: uniqueEmail('imp') }), row(11, {}), row(12, { email: uniqueEmail('imp') })];
    const first = await batch(rows, { importJobId: job, onDuplicate: 'skip' });
    const again = await batch(rows, { importJobId: job, onDuplicate: 'skip' });
    expect(first.created).toBe(3);
    expect(again).toMatchObject({ created: 0, skipped: [], errors: [] });
    const count = await inTenant((ctx) =>
      ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from leads where import_job_id = ${job}`),
    );
    expect(count.rows[0].n).toBe(3);
  });

  it('runs a fixed number of statements whatever the batch size', async () => {
    async function statementsFor(size: number): Promise<number> {
      const rows = Array.from({ length: size }, (_, index) =>
        row(index + 1, {
          email: uniqueEmail('n'),
          company: `Co ${index % 7}`,
          tags: [tags.Cold],
          assigned_to: org.userId,
        }),
      );
      return inTenant(async (ctx) => {
        let statements = 0;
        const counting = new Proxy(ctx.db, {
          get(target, property, receiver) {
            const value = Reflect.get(target, property, receiver);
            if (
              ['execute', 'select', 'insert', 'update', 'delete'].includes(String(property)) &&
              typeof value === 'function'
            ) {
              return (...args: unknown[]) => {
                statements += 1;
                return value.apply(target, args);
              };
            }
            return value;
          },
        });
        const result = await createLeadsBatch({ ...ctx, db: counting }, rows, { onDuplicate: 'skip' });
        expect(result.created).toBe(size);
        return statements;
      });
    }
    expect(await statementsFor(500)).toBe(await statementsFor(2));
  });
});
