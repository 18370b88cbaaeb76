/**
 * Lead imports end to end: upload (202), the queue consumer (configured in wrangler.toml and
 * run by miniflare) parsing CSV and XLSX, header mapping, per-row errors, duplicates skipped
 * or merged, refusals, and a consumer that crashes mid-file and is retried by the queue.
 */
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { importJobs, leads, leadTags, lookups } from '../src/db/schema';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import {
  asOrganization,
  csvOf,
  deliverJobs,
  importAndWait,
  leadRows,
  runJob,
  unqueuedImportJob,
  uploadImport,
} from './cross-tenant/fixtures/jobs';
import { bucketFailingAfter } from './helpers/failing-bucket';
import { analyzeTable, plannedRows } from './helpers/leads';

async function leadsOf(orgId: number) {
  return asOrganization(orgId, (tx) =>
    tx.select().from(leads).where(eq(leads.organizationId, orgId)).orderBy(leads.id),
  );
}

async function jobRows(owner: SignedUp, jobId: number) {
  const response = await call('GET', `/api/import-job/${jobId}/rows`, {
    token: owner.token,
    query: { order_by: 'row_number', order_in: 'ASC', limit: 100 },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data as {
    row_number: number;
    outcome: string;
    field: string | null;
    message: string;
    lead_id: number | null;
  }[];
}

async function jobState(orgId: number, jobId: number) {
  const [job] = await asOrganization(orgId, (tx) => tx.select().from(importJobs).where(eq(importJobs.id, jobId)));
  return job;
}

describe('lead imports', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Importer'), signupOrganization('Other')]);
  });

  it('answers 202 at once with a queued job, which the queue consumer completes', async () => {
    const response = await uploadImport(owner, csvOf(leadRows(3, 'smoke')));
    expect(response.status, response.text).toBe(202);
    expect(response.body.data).toMatchObject({
      status: 'queued',
      type: 'lead',
      format: 'csv',
      duplicate_mode: 'skip',
      processed: 0,
      percentage: 0,
    });
    const job = await runJob(owner, 'import', response.body.data.id);
    expect(job).toMatchObject({
      status: 'completed',
      total: 3,
      total_is_estimate: false,
      processed: 3,
      created: 3,
      updated: 0,
      skipped: 0,
      failed: 0,
      percentage: 100,
      error: null,
    });
    expect(job.finished_at).toEqual(expect.any(String));
  });

  it('maps headers case-insensitively, resolves labels and tag names, and keeps unknown columns as custom fields', async () => {
    const csv = csvOf([
      [
        'FIRST NAME',
        'last-name',
        'E-Mail',
        'Mobile',
        'Company Name',
        'Title',
        'Zip Code',
        'Lead Status',
        'Priority',
        'Source',
        'Tags',
        'Favourite Colour',
        'custom_fields',
        'id',
        'score',
      ],
      [
        'Grace',
        'Hopper',
        'Grace@Navy.MIL',
        '+1 555 0100',
        'Navy',
        'Rear Admiral',
        '20001',
        'qualified',
        'High',
        'Referral',
        'VIP, hot',
        'blue',
        '{"tier":"gold","seats":3}',
        '77',
        '99',
      ],
    ]);
    const job = await importAndWait(owner, csv);
    expect(job).toMatchObject({ status: 'completed', created: 1, failed: 0 });
    const lead = (await leadsOf(owner.orgId)).find((row) => row.importJobId === job.id);
    expect(lead).toMatchObject({
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'Grace@navy.mil',
      phoneNumber: '+1 555 0100',
      company: 'Navy',
      jobTitle: 'Rear Admiral',
      pinCode: '20001',
      status: 3,
      priority: 3,
      leadSource: 2,
      score: 0,
      importRow: 2,
      customFields: { 'Favourite Colour': 'blue', tier: 'gold', seats: 3 },
    });
    const tagNames = await asOrganization(owner.orgId, (tx) =>
      tx
        .select({ name: lookups.name })
        .from(leadTags)
        .innerJoin(lookups, eq(lookups.id, leadTags.tagId))
        .where(eq(leadTags.leadId, lead!.id)),
    );
    expect(tagNames.map((tag) => tag.name).sort()).toEqual(['Hot', 'VIP']);
  });

  it('reads semicolon-separated CSV with a BOM, quoted line breaks and blank lines', async () => {
    const email = `semi-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const csv = `\uFEFFName;Email;Notes\r\n\r\nAda Lovelace;${email};"first line\r\nsecond; line"\r\n`;
    const job = await importAndWait(owner, csv);
    expect(job).toMatchObject({ status: 'completed', created: 1, total: 1 });
    const lead = (await leadsOf(owner.orgId)).find((row) => row.email === email);
    expect(lead).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', notes: 'first line\r\nsecond; line' });
  });

  it('records each refused row with its row number, field and message, and imports the rest', async () => {
    const csv = csvOf([
      ['First Name', 'Last Name', 'Email', 'Status', 'Tags', 'Assigned To', 'custom_fields'],
      ['Good', 'Row', `good-${crypto.randomUUID().slice(0, 8)}@example.com`, '', '', '', ''],
      ['Bad', 'Email', 'not-an-email', '', '', '', ''],
      ['A', 'Short', '', '', '', '', ''],
      ['Unknown', 'Status', '', 'Sleeping', '', '', ''],
      ['Unknown', 'Tag', '', '', 'Nonexistent', '', ''],
      ['Nobody', 'Assigned', '', '', '', '999999999', ''],
      ['Broken', 'Custom', '', '', '', '', '[1,2]'],
    ]);
    const job = await importAndWait(owner, csv);
    expect(job).toMatchObject({ status: 'completed', total: 7, processed: 7, created: 1, failed: 6 });
    const rows = await jobRows(owner, job.id);
    // row_number is the file line: the header is line 1, the good row line 2.
    expect(rows.map((row) => [row.row_number, row.outcome, row.field])).toEqual([
      [3, 'error', 'email'],
      [4, 'error', 'first_name'],
      [5, 'error', 'status'],
      [6, 'error', 'tags'],
      [7, 'error', 'assigned_to'],
      [8, 'error', 'custom_fields'],
    ]);
    expect(rows[0].message).toMatch(/email/i);
    expect(rows[1].message).toMatch(/at least 2 characters/);
    const errorsOnly = await call('GET', `/api/import-job/${job.id}/rows`, {
      token: owner.token,
      query: { outcome: 'duplicate_skipped' },
    });
    expect(errorsOnly.body.total).toBe(0);
  });

  it('numbers rows by file line as a spreadsheet shows them: header line 1, empty lines and multi-line cells counted as rows', async () => {
    // Line 3 is bad; line 4 is empty; line 5 holds a quoted cell with a line break (one row); line 6 is bad.
    const csv = [
      'First Name,Last Name,Email',
      'Good,Row,',
      'Bad,Email,not-an-email',
      ',,',
      'Multi,Line,"not-an-email',
      'either"',
      'Also,Bad,still-not-an-email',
      '',
    ].join('\r\n');
    const job = await importAndWait(owner, csv);
    expect(job).toMatchObject({ status: 'completed', total: 4, created: 1, failed: 3 });
    const rows = await jobRows(owner, job.id);
    expect(rows.map((row) => [row.row_number, row.field])).toEqual([
      [3, 'email'],
      [5, 'email'],
      [6, 'email'],
    ]);
    const imported = (await leadsOf(owner.orgId)).filter((row) => row.importJobId === job.id);
    expect(imported.map((row) => [row.importRow, row.firstName])).toEqual([[2, 'Good']]);
  });

  it('skips rows whose email a lead already has, and merges them into that lead when asked', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const base = csvOf([
      ['First Name', 'Last Name', 'Email', 'City'],
      ['Ann', 'One', `ann-${tag}@example.com`, 'Oslo'],
      ['Bob', 'Two', `bob-${tag}@example.com`, 'Bergen'],
    ]);
    expect(await importAndWait(owner, base)).toMatchObject({ created: 2 });
    const again = csvOf([
      ['First Name', 'Last Name', 'Email', 'City', 'Shoe Size'],
      ['Ann', 'One', `ANN-${tag}@example.com`, 'Paris', '38'],
      ['Bob', 'Two', `bob-${tag}@example.com`, '', '44'],
      ['Cy', 'Three', `cy-${tag}@example.com`, 'Rome', ''],
      ['Cy', 'Again', `cy-${tag}@example.com`, 'Milan', ''],
    ]);
    const skipped = await importAndWait(owner, again);
    expect(skipped).toMatchObject({ status: 'completed', created: 1, skipped: 3, updated: 0, failed: 0 });
    const skipRows = await jobRows(owner, skipped.id);
    expect(skipRows.map((row) => [row.row_number, row.outcome])).toEqual([
      [2, 'duplicate_skipped'],
      [3, 'duplicate_skipped'],
      [5, 'duplicate_skipped'],
    ]);
    const before = await leadsOf(owner.orgId);
    const ann = before.find((row) => row.email === `ann-${tag}@example.com`)!;
    expect(skipRows[0].lead_id).toBe(ann.id);
    expect(ann.city).toBe('Oslo');

    const merged = await importAndWait(owner, again, { duplicateMode: 'merge' });
    expect(merged).toMatchObject({ status: 'completed', duplicate_mode: 'merge', created: 0, updated: 3, failed: 0 });
    expect((await jobRows(owner, merged.id)).every((row) => row.outcome === 'duplicate_merged')).toBe(true);
    const after = await leadsOf(owner.orgId);
    expect(after.filter((row) => row.email?.endsWith(`${tag}@example.com`))).toHaveLength(3);
    expect(after.find((row) => row.id === ann.id)).toMatchObject({
      city: 'Paris',
      customFields: { 'Shoe Size': '38' },
    });
    expect(after.find((row) => row.email === `bob-${tag}@example.com`)).toMatchObject({
      city: 'Bergen',
      customFields: { 'Shoe Size': '44' },
    });
  });

  it('imports the first worksheet of an XLSX workbook (shared strings after the sheet, rich and inline text, sparse rows)', async () => {
    const email = `xlsx-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const shared = [
      'First Name',
      'Last Name',
      'Email',
      'Notes',
      'Ada',
      'Lovelace',
      email,
      'Tom &amp; Jerry',
      'grace@example.com',
    ];
    const workbook = zipSync({
      '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
      'xl/workbook.xml': strToU8(
        `<workbook ${main} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Leads" sheetId="1" r:id="rId7"/></sheets></workbook>`,
      ),
      'xl/_rels/workbook.xml.rels': strToU8(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Type="worksheet" Target="worksheets/data.xml"/></Relationships>',
      ),
      'xl/worksheets/data.xml': strToU8(
        `<worksheet ${main}><sheetData>` +
          '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="inlineStr"><is><t>Phone</t></is></c><c r="E1" t="s"><v>3</v></c></row>' +
          '<row r="2"><c r="A2" t="s"><v>4</v></c><c r="B2" t="s"><v>5</v></c><c r="C2" t="s"><v>6</v></c><c r="D2"><v>15551234567</v></c><c r="E2" t="s"><v>7</v></c></row>' +
          '<row r="4"><c r="A4" t="inlineStr"><is><r><t>Gr</t></r><r><t xml:space="preserve">ace</t></r></is></c><c r="B4" t="str"><f>"Hop"&amp;"per"</f><v>Hopper</v></c><c r="E4" t="s"><v>8</v></c></row>' +
          '</sheetData></worksheet>',
      ),
      'xl/sharedStrings.xml': strToU8(
        `<sst ${main} count="9">${shared.map((text, index) => (index === 7 ? `<si><r><t>Tom </t></r><r><t>&amp; Jerry</t></r><rPh><t>ignored</t></rPh></si>` : `<si><t>${text}</t></si>`)).join('')}</sst>`,
      ),
    });
    const job = await importAndWait(owner, workbook, { name: 'leads.xlsx' });
    expect(job).toMatchObject({ status: 'completed', format: 'xlsx', total: 2, created: 2, failed: 0 });
    const imported = (await leadsOf(owner.orgId)).filter((row) => row.importJobId === job.id);
    expect(
      imported.map((row) => [row.importRow, row.firstName, row.lastName, row.email, row.phoneNumber, row.notes]),
    ).toEqual([
      [2, 'Ada', 'Lovelace', email, '15551234567', 'Tom & Jerry'],
      [4, 'Grace', 'Hopper', null, null, 'grace@example.com'],
    ]);
  });

  it('refuses files that are neither CSV nor XLSX (by content), bad options and oversized files', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    for (const [body, name] of [
      [png, 'leads.csv'],
      [zipSync({ 'word/document.xml': strToU8('<w/>') }), 'leads.xlsx'],
      ['', 'empty.csv'],
    ] as const) {
      const response = await uploadImport(owner, body, { name });
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('file');
    }
    const badMode = await uploadImport(owner, csvOf(leadRows(1, 'mode')), { duplicateMode: 'overwrite' });
    expectFailure(badMode, 422, 'validation_error');
    expect(badMode.body.error.code).toBe('duplicate_mode');
    const noFile = new FormData();
    noFile.set('duplicate_mode', 'skip');
    const missing = await call('POST', '/api/lead/lead-imports', { token: owner.token, rawBody: noFile });
    expectFailure(missing, 422, 'validation_error');
    expect(missing.body.error.code).toBe('file');
    const huge = await uploadImport(owner, new Uint8Array(32 * 1024 * 1024 + 1).fill(0x61));
    expectFailure(huge, 413, 'payload_too_large');
  });

  it('fails a job whose file has no recognisable header row, saying why', async () => {
    const job = await importAndWait(owner, 'foo,bar\n1,2\n');
    expect(job).toMatchObject({ status: 'failed', created: 0 });
    expect(job.error).toMatch(/header row/);
  });

  it('resumes a consumer that crashed mid-file from its checkpoint, without duplicates', async () => {
    const count = 6_000;
    const tag = crypto.randomUUID().slice(0, 8);
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(count, `crash-${tag}`)));
    // The first read counts the rows (a first delivery checks the row cap); the crash hits the import's read.
    const crashingEnv = { ...env, FILES: bucketFailingAfter(env.FILES, 400 * 1024, 1) };
    const failed = await deliverJobs([{ kind: 'lead-import', orgId: owner.orgId, jobId }], 1, crashingEnv);
    expect(failed.retryMessages).toHaveLength(1);
    const crashed = await jobState(owner.orgId, jobId);
    expect(crashed.status).toBe('running');
    // The checkpoint is the file line of the last committed row: whole batches of 500 after the header line.
    expect(crashed.checkpointRow).toBeGreaterThan(1);
    expect(crashed.checkpointRow).toBeLessThan(count + 1);
    expect(crashed.checkpointRow % 500).toBe(1);
    expect(crashed.createdCount).toBe(crashed.checkpointRow - 1);
    expect(crashed.error).toBe('attempt 1 failed, retrying: an internal error');

    // The queue redelivers the message; deliver it twice more to show redelivery is harmless.
    const result = await deliverJobs([
      { kind: 'lead-import', orgId: owner.orgId, jobId },
      { kind: 'lead-import', orgId: owner.orgId, jobId },
    ]);
    expect(result.explicitAcks).toHaveLength(2);
    expect(result.retryMessages).toEqual([]);
    const done = await jobState(owner.orgId, jobId);
    expect(done).toMatchObject({
      status: 'completed',
      processedRows: count,
      createdCount: count,
      failedCount: 0,
      checkpointRow: count + 1,
      totalRows: count,
      error: null,
    });
    const [stats] = await asOrganization(owner.orgId, (tx) =>
      tx
        .select({
          total: sql<number>`count(*)::int`,
          distinctRows: sql<number>`count(distinct ${leads.importRow})::int`,
          distinctEmails: sql<number>`count(distinct ${leads.email})::int`,
        })
        .from(leads)
        .where(and(eq(leads.organizationId, owner.orgId), eq(leads.importJobId, jobId))),
    );
    expect(stats).toEqual({ total: count, distinctRows: count, distinctEmails: count });
  });

  it('creates no second lead for a row even if the checkpoint were lost (unique import row)', async () => {
    const job = await importAndWait(
      owner,
      csvOf([
        ['First Name', 'Last Name', 'City'],
        ['No', 'Email', 'Lima'],
        ['Also', 'None', 'Quito'],
      ]),
    );
    expect(job).toMatchObject({ created: 2 });
    await asOrganization(owner.orgId, (tx) =>
      tx.update(importJobs).set({ status: 'running', checkpointRow: 0 }).where(eq(importJobs.id, job.id)),
    );
    const result = await deliverJobs([{ kind: 'lead-import', orgId: owner.orgId, jobId: job.id }]);
    expect(result.explicitAcks).toHaveLength(1);
    const imported = (await leadsOf(owner.orgId)).filter((row) => row.importJobId === job.id);
    expect(imported).toHaveLength(2);
  });

  it('lists jobs by type with counts and percentage, only to their organization', async () => {
    const mine = await call('GET', '/api/import-job/list', { token: owner.token, query: { type: 'lead', limit: 100 } });
    expect(mine.status).toBe(200);
    expect(mine.body.total).toBeGreaterThan(3);
    expect(mine.body.data[0]).toMatchObject({
      type: 'lead',
      percentage: expect.any(Number),
      total: expect.any(Number),
      created: expect.any(Number),
    });
    const none = await call('GET', '/api/import-job/list', { token: owner.token, query: { type: 'crm' } });
    expect(none.body.total).toBe(0);
    const theirs = await call('GET', '/api/import-job/list', { token: other.token, query: { limit: 100 } });
    expect(theirs.body.total).toBe(0);
    const foreign = await call('GET', `/api/import-job/${mine.body.data[0].id}/rows`, { token: other.token });
    expectFailure(foreign, 404, 'not_found');
  });

  it('imports 20 000 rows within the limits, and leaves the planner knowing them', async () => {
    const count = 20_000;
    // A new customer's first import, into a shared leads table last analyzed before it had any.
    const customer = await signupOrganization('Import Customer');
    await analyzeTable('leads');
    await analyzeTable('lead_search_documents');
    expect(await plannedRows(customer.orgId, 'leads')).toBeLessThan(100);
    const started = Date.now();
    const job = await importAndWait(customer, csvOf(leadRows(count, `bulk-${crypto.randomUUID().slice(0, 8)}`)), {
      name: 'bulk.csv',
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`[timing] import of ${count} CSV rows: ${seconds.toFixed(1)} s`);
    expect(job).toMatchObject({ status: 'completed', total: count, processed: count, created: count, failed: 0 });
    // The job's last transaction refreshed the statistics of what it wrote (src/db/statistics.ts):
    // a select_all action right after the import is planned for 20 000 leads, not a handful.
    expect(await plannedRows(customer.orgId, 'leads')).toBeGreaterThan(count / 2);
    expect(await plannedRows(customer.orgId, 'lead_search_documents')).toBeGreaterThan(count / 2);
  }, 300_000);
});

/**
 * Rows of one file that share an email or a profile URL with each other (compared as dedupe
 * compares them: emails case-insensitively, profile URLs without scheme, query or trailing slash,
 * host in any case). A later row goes where the earlier row's key went: merged into the same
 * lead (merge) or reported as its duplicate (skip). A row whose keys lead to two different leads
 * is skipped with both named. The batch never fails whole, and every other row imports.
 */
describe('lead imports: rows of one file sharing an email or profile URL', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('Importer In-File');
  });

  const header = ['First Name', 'Last Name', 'Email', 'Profile URL', 'City'];

  async function addLead(body: Record<string, unknown>): Promise<{ id: number; email: string }> {
    const response = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Old', last_name: 'Lead', ...body },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.data;
  }

  /** Uploads and runs the import; a batch the database refused would be retried by the queue, so none must be. */
  async function importFile(rows: string[][], duplicateMode: 'skip' | 'merge') {
    const upload = await uploadImport(owner, csvOf([header, ...rows]), { duplicateMode });
    expect(upload.status, upload.text).toBe(202);
    const jobId = upload.body.data.id as number;
    const delivered = await deliverJobs([{ kind: 'lead-import', orgId: owner.orgId, jobId }]);
    expect(delivered.retryMessages, (await jobState(owner.orgId, jobId)).error ?? '').toEqual([]);
    const job = await runJob(owner, 'import', jobId);
    const rows_ = await jobRows(owner, jobId);
    const imported = (await leadsOf(owner.orgId)).filter((lead) => lead.importJobId === jobId);
    const leadOfRow = (line: number) => imported.find((lead) => lead.importRow === line);
    return { job, rows: rows_, leadOfRow };
  }

  async function leadById(id: number) {
    return (await leadsOf(owner.orgId)).find((lead) => lead.id === id);
  }

  it('merge: a row whose email an existing lead has and whose profile URL an earlier row created is skipped naming both; the rest imports', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ann = await addLead({ email: `ann-${tag}@example.com`, city: 'Paris' });
    const bob = await addLead({ email: `bob-${tag}@example.com`, profile_url: `linkedin.com/in/bob-${tag}` });
    const { job, rows, leadOfRow } = await importFile(
      [
        // 2: a new lead with profile URL P.
        ['New', 'Person', `new-${tag}@example.com`, `https://www.linkedin.com/in/p-${tag}`, 'Oslo'],
        // 3: Ann's email (another case) with P (another form): Ann and row 2's lead; merging into Ann would take P.
        ['Ann', 'One', `ANN-${tag}@example.com`, `http://WWW.LinkedIn.com/in/p-${tag}/`, 'Rome'],
        // 4: a new lead with email E.
        ['Eve', 'Fresh', `eve-${tag}@example.com`, '', 'Lima'],
        // 5: E (another case) with Bob's profile URL: row 4's lead and Bob; merging into Bob would take E.
        ['Eve', 'Again', `Eve-${tag}@Example.com`, `https://linkedin.com/in/bob-${tag}`, 'Kyiv'],
        // 6: unrelated.
        ['Cy', 'Other', `cy-${tag}@example.com`, '', ''],
      ],
      'merge',
    );
    expect(job).toMatchObject({ status: 'completed', processed: 5, created: 3, updated: 0, skipped: 2, failed: 0 });
    const created = leadOfRow(2)!;
    const eve = leadOfRow(4)!;
    expect(rows.map((row) => [row.row_number, row.outcome, row.field, row.lead_id])).toEqual([
      [3, 'duplicate_skipped', null, created.id],
      [5, 'duplicate_skipped', null, bob.id],
    ]);
    expect(rows[0].message).toMatch(/email.*lead \d+.*profile URL.*row 2 of the file/);
    expect(rows[1].message).toMatch(/email.*row 4 of the file.*profile URL.*lead \d+/);
    expect(created).toMatchObject({ profileUrl: `https://www.linkedin.com/in/p-${tag}`, city: 'Oslo' });
    expect(eve).toMatchObject({ email: `eve-${tag}@example.com`, profileUrl: null, city: 'Lima' });
    expect(leadOfRow(6)).toMatchObject({ email: `cy-${tag}@example.com` });
    expect(await leadById(ann.id)).toMatchObject({ city: 'Paris', profileUrl: null });
    expect(await leadById(bob.id)).toMatchObject({ email: `bob-${tag}@example.com`, city: null });
  });

  it('merge: a profile URL an earlier row gave an existing lead takes later rows with it into that lead, or skips one whose email is another lead’s', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ann = await addLead({ email: `ann-${tag}@example.com`, city: 'Paris' });
    const cy = await addLead({ email: `cy-${tag}@example.com` });
    const url = `https://www.linkedin.com/in/u-${tag}`;
    const { job, rows, leadOfRow } = await importFile(
      [
        // 2: gives Ann the new profile URL U.
        ['Ann', 'One', `ann-${tag}@example.com`, url, 'Rome'],
        // 3: a new email with U: Ann's now, so merged into Ann (as if U had been stored before).
        ['Ann', 'Two', `ann.two-${tag}@example.com`, `${url}/`, ''],
        // 4: Cy's email with U: Cy and Ann; skipped.
        ['Cy', 'Three', `cy-${tag}@example.com`, url, 'Oslo'],
        // 5: unrelated.
        ['Dee', 'Four', `dee-${tag}@example.com`, '', ''],
      ],
      'merge',
    );
    expect(job).toMatchObject({ status: 'completed', processed: 4, created: 1, updated: 1, skipped: 1, failed: 0 });
    expect(rows.map((row) => [row.row_number, row.outcome, row.lead_id])).toEqual([
      [2, 'duplicate_merged', ann.id],
      [3, 'duplicate_merged', ann.id],
      [4, 'duplicate_skipped', ann.id],
    ]);
    expect(rows[1].message).toMatch(/profile URL.*row 2 of the file/);
    expect(rows[2].message).toMatch(/email.*lead \d+.*profile URL.*row 2 of the file/);
    expect(await leadById(ann.id)).toMatchObject({
      email: `ann.two-${tag}@example.com`,
      lastName: 'Two',
      profileUrl: `${url}/`,
      city: 'Rome',
    });
    expect(await leadById(cy.id)).toMatchObject({ profileUrl: null, city: null });
    expect(leadOfRow(5)).toMatchObject({ email: `dee-${tag}@example.com` });
  });

  it('merge: two rows giving two existing leads the same new profile URL: the second is skipped', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ann = await addLead({ email: `ann-${tag}@example.com` });
    const bob = await addLead({ email: `bob-${tag}@example.com` });
    const url = `linkedin.com/in/shared-${tag}`;
    const { job, rows } = await importFile(
      [
        ['Ann', 'One', `ann-${tag}@example.com`, url, 'Rome'],
        ['Bob', 'Two', `bob-${tag}@example.com`, `https://${url}`, 'Oslo'],
      ],
      'merge',
    );
    expect(job).toMatchObject({ status: 'completed', created: 0, updated: 1, skipped: 1, failed: 0 });
    expect(rows.map((row) => [row.row_number, row.outcome, row.lead_id])).toEqual([
      [2, 'duplicate_merged', ann.id],
      [3, 'duplicate_skipped', ann.id],
    ]);
    expect(await leadById(ann.id)).toMatchObject({ profileUrl: url, city: 'Rome' });
    expect(await leadById(bob.id)).toMatchObject({ profileUrl: null, city: null });
  });

  it('merge: an earlier row’s new email on a later row matched to an existing lead by profile URL skips it', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const bob = await addLead({ email: `bob-${tag}@example.com`, profile_url: `linkedin.com/in/bob-${tag}` });
    const { job, rows, leadOfRow } = await importFile(
      [
        ['New', 'Person', `new-${tag}@example.com`, '', 'Oslo'],
        ['Bob', 'Again', `NEW-${tag}@example.com`, `https://linkedin.com/in/bob-${tag}`, 'Rome'],
      ],
      'merge',
    );
    expect(job).toMatchObject({ status: 'completed', created: 1, updated: 0, skipped: 1, failed: 0 });
    expect(rows.map((row) => [row.row_number, row.outcome, row.lead_id])).toEqual([[3, 'duplicate_skipped', bob.id]]);
    expect(leadOfRow(2)).toMatchObject({ email: `new-${tag}@example.com`, city: 'Oslo' });
    expect(await leadById(bob.id)).toMatchObject({ email: `bob-${tag}@example.com`, city: null });
  });

  for (const mode of ['skip', 'merge'] as const) {
    it(`${mode}: a row repeating an earlier row’s email or profile URL (another case or form) ${mode === 'skip' ? 'is reported as its duplicate' : 'is merged into its lead'}`, async () => {
      const tag = crypto.randomUUID().slice(0, 8);
      const { job, rows, leadOfRow } = await importFile(
        [
          ['Dee', 'One', `Dee-${tag}@Example.com`, '', 'Oslo'],
          ['Dee', 'Two', `dee-${tag}@example.COM`, '', 'Rome'],
          ['Eve', 'One', `eve1-${tag}@example.com`, `https://www.linkedin.com/in/Eve-${tag}`, 'Lima'],
          ['Eve', 'Two', `eve2-${tag}@example.com`, `http://WWW.LinkedIn.com/in/Eve-${tag}/?utm=x`, 'Kyiv'],
          ['Fay', 'One', `fay-${tag}@example.com`, '', ''],
        ],
        mode,
      );
      const dee = leadOfRow(2)!;
      const eve = leadOfRow(4)!;
      const outcome = mode === 'skip' ? 'duplicate_skipped' : 'duplicate_merged';
      expect(job).toMatchObject({
        status: 'completed',
        processed: 5,
        created: 3,
        updated: 0,
        skipped: mode === 'skip' ? 2 : 0,
        failed: 0,
      });
      expect(rows.map((row) => [row.row_number, row.outcome, row.lead_id])).toEqual([
        [3, outcome, dee.id],
        [5, outcome, eve.id],
      ]);
      expect(rows[0].message).toMatch(/email.*row 2 of the file/);
      expect(rows[1].message).toMatch(/profile URL.*row 4 of the file/);
      expect(leadOfRow(3)).toBeUndefined();
      expect(leadOfRow(5)).toBeUndefined();
      expect(leadOfRow(6)).toMatchObject({ email: `fay-${tag}@example.com` });
      if (mode === 'skip') {
        expect(dee).toMatchObject({ email: `Dee-${tag}@example.com`, city: 'Oslo' });
        expect(eve).toMatchObject({ email: `eve1-${tag}@example.com`, city: 'Lima' });
      } else {
        // Later values win, as in any merge.
        expect(dee).toMatchObject({ lastName: 'Two', city: 'Rome' });
        expect(eve).toMatchObject({ email: `eve2-${tag}@example.com`, city: 'Kyiv' });
      }
    });
  }

  it('merge: the same outcome when the earlier row is in an earlier batch of 500', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ann = await addLead({ email: `ann-${tag}@example.com` });
    const filler = Array.from({ length: 499 }, (_, i) => [`F${i}`, `L${i}`, `f${i}-${tag}@example.com`, '', '']);
    const { job, rows, leadOfRow } = await importFile(
      [
        ['New', 'Person', `new-${tag}@example.com`, `linkedin.com/in/p-${tag}`, 'Oslo'],
        ...filler,
        // Line 502: the second batch's first row.
        ['Ann', 'One', `ann-${tag}@example.com`, `https://linkedin.com/in/p-${tag}`, 'Rome'],
      ],
      'merge',
    );
    expect(job).toMatchObject({ status: 'completed', processed: 501, created: 500, skipped: 1, failed: 0 });
    expect(rows.map((row) => [row.row_number, row.outcome, row.lead_id])).toEqual([
      [502, 'duplicate_skipped', leadOfRow(2)!.id],
    ]);
    expect(await leadById(ann.id)).toMatchObject({ profileUrl: null, city: null });
  });
});
