/**
 * Exports end to end: create (202), the queue handler writing CSV or XLSX to R2 in a multipart
 * upload, list with progress, download to the owning organization only, the import/export round
 * trip between organizations, filters and the clients definition, and 20 000 rows.
 */
import { eq, sql } from 'drizzle-orm';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { companies, contacts, exportJobs } from '../src/db/schema';
import { openXlsxRows } from '../src/modules/imports/xlsx-reader';
import { fileRangeSource } from '../src/core/zip-directory';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import {
  asOrganization,
  csvOf,
  deliverJobs,
  download,
  exportAndWait,
  importAndWait,
} from './cross-tenant/fixtures/jobs';
import { createCompany, createContact } from './helpers/accounts';

/**
 * Columns that differ between organizations: ids and times, and the scores, which each
 * organization computes itself. An import ignores the file's score columns and asks for its
 * leads' scoring, which runs as soon as the import commits; the originals here were never scored.
 */
const VOLATILE = new Set(['id', 'created_at', 'updated_at', 'score', 'fit_score', 'engagement_score', 'score_factors']);

/** Rows of a CSV export as objects without the columns that differ between organizations. */
function comparableRows(csv: string) {
  const parsed = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
  return parsed.data
    .map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !VOLATILE.has(key))))
    .sort((a, b) => (a.email ?? '').localeCompare(b.email ?? ''));
}

async function exportCsv(owner: SignedUp, body: Record<string, unknown>) {
  const job = await exportAndWait(owner, body);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const response = await download(owner, job.id);
  expect(response.status).toBe(200);
  return { job, text: await response.text(), response };
}

async function xlsxRows(bytes: ArrayBuffer): Promise<string[][]> {
  const sheet = await openXlsxRows(fileRangeSource(new Blob([bytes])));
  const rows: string[][] = [];
  for await (const row of sheet.rows) rows.push(row.cells);
  return rows;
}

const SAMPLE = [
  [
    'First Name',
    'Last Name',
    'Email',
    'Phone',
    'Company',
    'City',
    'Country',
    'Status',
    'Priority',
    'Source',
    'Tags',
    'Estimated Value',
    'Notes',
    'Budget',
  ],
  [
    'Ada',
    'Lovelace',
    'ada@engine.example',
    '+44 20 7946 0000',
    'Analytical Engines',
    'London',
    'UK',
    'Converted',
    'Urgent',
    'Referral',
    'VIP, Hot',
    '1500.5',
    'Likes "notes", commas\nand lines',
    '10k',
  ],
  [
    'Grace',
    'Hopper',
    'grace@navy.example',
    '=1+2',
    'Navy',
    'Arlington',
    'USA',
    'Qualified',
    'High',
    'Website',
    'Partner',
    '',
    '',
    '',
  ],
  [
    'Alan',
    'Turing',
    'alan@bletchley.example',
    '',
    'Bletchley',
    'Bletchley',
    'UK',
    'Converted',
    '',
    '',
    '',
    '99',
    '',
    '5k',
  ],
  ['Edsger', 'Dijkstra', '', '+31 20 000', '', 'Austin', 'USA', '', 'Low', 'Direct', '', '', 'no email', ''],
];

describe('exports', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Exporter'), signupOrganization('Receiver')]);
    const job = await importAndWait(owner, csvOf(SAMPLE));
    expect(job).toMatchObject({ status: 'completed', created: 4, failed: 0 });
  });

  it('answers 202 with a queued job and writes a CSV the owner downloads as an attachment', async () => {
    const created = await call('POST', '/api/exports/create', { token: owner.token, body: { export_type: 'leads' } });
    expect(created.status, created.text).toBe(202);
    expect(created.body.data).toMatchObject({
      export_type: 'leads',
      format: 'csv',
      status: 'queued',
      filters: {},
      download_url: null,
    });
    const { job, text, response } = await exportCsv(owner, { export_type: 'leads' });
    expect(job).toMatchObject({
      status: 'completed',
      total: 4,
      processed: 4,
      percentage: 100,
      download_url: `/api/exports/download/${job.id}`,
    });
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="leads-export-${job.id}.csv"`);
    const rows = comparableRows(text);
    expect(rows).toHaveLength(4);
    expect(rows.find((row) => row.email === 'ada@engine.example')).toMatchObject({
      first_name: 'Ada',
      status: '5',
      status_text: 'Converted',
      priority: '4',
      priority_text: 'Urgent',
      lead_source_text: 'Referral',
      tags: 'Hot, VIP',
      estimated_value: '1500.5',
      notes: 'Likes "notes", commas\nand lines',
      custom_fields: '{"Budget":"10k"}',
    });
    // Formula-like text is guarded with an apostrophe in the CSV (and unguarded again on import).
    expect(rows.find((row) => row.email === 'grace@navy.example')?.phone_number).toBe("'=1+2");
  });

  it('re-imports an exported file into another organization with the same rows (CSV and XLSX)', async () => {
    const original = await exportCsv(owner, { export_type: 'leads' });
    const imported = await importAndWait(other, original.text, { name: 'from-a.csv' });
    expect(imported).toMatchObject({ status: 'completed', created: 4, failed: 0 });
    const copy = await exportCsv(other, { export_type: 'leads' });
    expect(comparableRows(copy.text)).toEqual(comparableRows(original.text));

    const third = await signupOrganization('Third');
    const xlsx = await exportAndWait(owner, { export_type: 'leads', format: 'xlsx' });
    const file = await download(owner, xlsx.id);
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const bytes = await file.arrayBuffer();
    expect((await xlsxRows(bytes))[0]).toEqual(expect.arrayContaining(['first_name', 'email', 'custom_fields']));
    const fromXlsx = await importAndWait(third, new Uint8Array(bytes), { name: 'from-a.xlsx' });
    expect(fromXlsx).toMatchObject({ status: 'completed', format: 'xlsx', created: 4, failed: 0 });
    expect(comparableRows((await exportCsv(third, { export_type: 'leads' })).text)).toEqual(
      comparableRows(original.text),
    );
  });

  it('applies the lead list filters, and exports as clients only leads with the Converted status', async () => {
    const uk = await exportCsv(owner, { export_type: 'leads', filters: { country: 'uk', priority: '4,1' } });
    expect(comparableRows(uk.text).map((row) => row.email)).toEqual(['ada@engine.example']);
    expect(uk.job.filters).toEqual({ country: 'uk', priority: '4,1' });
    const clients = await exportCsv(owner, { export_type: 'clients' });
    expect(comparableRows(clients.text).map((row) => row.email)).toEqual([
      'ada@engine.example',
      'alan@bletchley.example',
    ]);
    const none = await exportCsv(owner, { export_type: 'clients', filters: { search_value: 'grace' } });
    expect(none.job.total).toBe(0);
    expect(comparableRows(none.text)).toEqual([]);
    expect(none.text.startsWith('id,first_name,last_name,email')).toBe(true);
    // A UTF-8 byte-order mark, so spreadsheet programs read the text as UTF-8.
    const raw = new Uint8Array(await (await download(owner, none.job.id)).arrayBuffer());
    expect([...raw.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('refuses an unknown export type, unknown or malformed filters and an unknown format with 422', async () => {
    for (const [body, field] of [
      [{ export_type: 'deals' }, 'export_type'],
      [{ export_type: 'leads', filters: { colour: 'red' } }, 'filters'],
      [{ export_type: 'leads', filters: { created_from: '2025-02-30' } }, 'filters.created_from'],
      [{ export_type: 'companies', filters: { country: 'UK' } }, 'filters'],
      [{ export_type: 'contacts', filters: { lead_score: 'high' } }, 'filters.lead_score'],
      [{ export_type: 'leads', format: 'pdf' }, 'format'],
      // A range that ends before it starts, as the lists refuse it (it would export an empty file).
      [{ export_type: 'leads', filters: { start_date: '2026-03-02', end_date: '2026-03-01' } }, 'filters.start_date'],
      [
        { export_type: 'companies', filters: { start_date: '2026-03-02', end_date: '2026-03-01' } },
        'filters.start_date',
      ],
      [
        { export_type: 'clients', filters: { created_from: '2026-03-02', created_to: '2026-03-01' } },
        'filters.created_from',
      ],
    ] as const) {
      const response = await call('POST', '/api/exports/create', { token: owner.token, body });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });

  it('exports companies and contacts', async () => {
    const [company] = await asOrganization(owner.orgId, (tx) =>
      tx.select().from(companies).where(eq(companies.companyName, 'Navy')),
    );
    await asOrganization(owner.orgId, (tx) =>
      tx.insert(contacts).values({
        organizationId: owner.orgId,
        name: 'Rear Admiral',
        email: 'ra@navy.example',
        companyId: company.id,
        designation: 'Officer',
      }),
    );
    const companyRows = comparableRows((await exportCsv(owner, { export_type: 'companies' })).text);
    expect(companyRows.map((row) => row.company_name).sort()).toEqual(['Analytical Engines', 'Bletchley', 'Navy']);
    const contactRows = comparableRows(
      (await exportCsv(owner, { export_type: 'contacts', filters: { search_value: 'navy' } })).text,
    );
    expect(contactRows).toEqual([
      expect.objectContaining({
        name: 'Rear Admiral',
        email: 'ra@navy.example',
        company_id: String(company.id),
        designation: 'Officer',
      }),
    ]);
  });

  it('writes every company and contact field, and applies each list’s own filters', async () => {
    const firm = await signupOrganization('Firmographics');
    const acme = await createCompany(firm, {
      company_name: 'Acme Rockets',
      industry_type: 'Aerospace',
      website: 'https://www.acme-rockets.example/about',
      technologies: 'react, postgres',
      assigned_to: String(firm.userId),
    });
    await createCompany(firm, { company_name: 'Bakery Ltd', industry_type: 'Food' });
    await createContact(firm, {
      name: 'Wile Coyote',
      company_id: acme,
      email: 'wile@acme-rockets.example',
      tags: ['vip', 'emea'],
    });
    await createContact(firm, { name: 'Road Runner', company_id: acme, tags: ['apac'] });

    const companyFile = await exportCsv(firm, { export_type: 'companies', filters: { industry: 'aerospace' } });
    const companyHeader = companyFile.text
      .replace(/^\uFEFF/, '')
      .split('\r\n')[0]
      .split(',');
    expect(companyHeader).toEqual(
      expect.arrayContaining(['website_domain', 'technologies', 'assigned_to', 'created_by']),
    );
    expect(companyHeader).not.toContain('enrichment');
    expect(comparableRows(companyFile.text)).toEqual([
      expect.objectContaining({
        company_name: 'Acme Rockets',
        website_domain: 'acme-rockets.example',
        technologies: 'react, postgres',
        assigned_to: String(firm.userId),
      }),
    ]);

    const contactFile = await exportCsv(firm, { export_type: 'contacts', filters: { tags: 'emea' } });
    expect(comparableRows(contactFile.text)).toEqual([
      expect.objectContaining({ name: 'Wile Coyote', tags: 'vip, emea', company_id: String(acme) }),
    ]);
    const mine = await exportCsv(firm, { export_type: 'contacts', filters: { company_id: String(acme), my: 'true' } });
    expect(
      comparableRows(mine.text)
        .map((row) => row.name)
        .sort(),
    ).toEqual(['Road Runner', 'Wile Coyote']);
  });

  it('answers 409 export_not_ready until the export is completed, and 404 to another organization', async () => {
    const [queued] = await asOrganization(owner.orgId, (tx) =>
      tx
        .insert(exportJobs)
        .values({ organizationId: owner.orgId, exportType: 'leads', createdBy: owner.userId })
        .returning({ id: exportJobs.id }),
    );
    const early = await download(owner, queued.id);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ success: false, error: { type: 'conflict', code: 'export_not_ready' } });
    const done = await exportAndWait(owner, { export_type: 'leads' });
    const foreign = await download(other, done.id);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ success: false, error: { type: 'not_found' } });
    const theirList = await call('GET', '/api/exports/list', { token: other.token, query: { limit: 100 } });
    expect(theirList.body.data.map((job: { id: number }) => job.id)).not.toContain(done.id);
  });

  it('lists exports with status and progress, filtered by type', async () => {
    const response = await call('GET', '/api/exports/list', {
      token: owner.token,
      query: { export_type: 'clients', status: 'completed' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toBe(2);
    expect(response.body.data[0]).toMatchObject({
      export_type: 'clients',
      status: 'completed',
      percentage: 100,
      error: null,
    });
  });

  it('creates one export for a create retried with its Idempotency-Key (a client that timed out)', async () => {
    const org = await signupOrganization('Retrying exporter');
    const send = () =>
      call('POST', '/api/exports/create', {
        token: org.token,
        headers: { 'idempotency-key': 'export-leads-1' },
        body: { export_type: 'leads', format: 'xlsx' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(202);
    const retried = await send();
    expect(retried.status, retried.text).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.data.id).toBe(first.body.data.id);
    const listed = await call('GET', '/api/exports/list', { token: org.token });
    expect(listed.body.total).toBe(1);
  });

  it('treats a redelivered message of a completed export as done', async () => {
    const done = await exportAndWait(owner, { export_type: 'companies' });
    const result = await deliverJobs([{ kind: 'export', orgId: owner.orgId, jobId: done.id }], 2);
    expect(result.explicitAcks).toHaveLength(1);
    const again = await call('GET', '/api/exports/list', { token: owner.token, query: { limit: 100 } });
    expect(again.body.data.find((job: { id: number }) => job.id === done.id)).toEqual(done);
  });

  it('exports 20 000 leads as CSV and as XLSX within the limits', async () => {
    const bulk = await signupOrganization('Bulk');
    const count = 20_000;
    await asOrganization(bulk.orgId, (tx) =>
      tx.execute(sql`
        insert into leads (organization_id, first_name, last_name, email, phone_number, company, city, status, custom_fields)
        select ${bulk.orgId}, 'First' || n, 'Last' || n, 'bulk-' || n || '@example.com', '+1555' || lpad(n::text, 7, '0'), 'Company ' || (n % 50),
          'City ' || (n % 7), 1, jsonb_build_object('n', n)
        from generate_series(1, ${count}) as n`),
    );
    let started = Date.now();
    const csv = await exportCsv(bulk, { export_type: 'leads' });
    console.log(
      `[timing] CSV export of ${count} leads: ${((Date.now() - started) / 1000).toFixed(1)} s, ${csv.text.length} bytes`,
    );
    expect(csv.job).toMatchObject({ status: 'completed', total: count, processed: count });
    expect(csv.text.trimEnd().split('\r\n')).toHaveLength(count + 1);

    started = Date.now();
    const xlsx = await exportAndWait(bulk, { export_type: 'leads', format: 'xlsx' });
    const bytes = await (await download(bulk, xlsx.id)).arrayBuffer();
    console.log(
      `[timing] XLSX export of ${count} leads: ${((Date.now() - started) / 1000).toFixed(1)} s, ${bytes.byteLength} bytes`,
    );
    expect(xlsx).toMatchObject({ status: 'completed', total: count, processed: count });
    const rows = await xlsxRows(bytes);
    expect(rows).toHaveLength(count + 1);
    expect(rows[count]).toEqual(expect.arrayContaining([`bulk-${count}@example.com`]));
  }, 300_000);
});
