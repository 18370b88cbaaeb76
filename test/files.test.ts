/**
 * Storage files and attachments: uploads to R2 under the organization id, streamed downloads
 * only to the owner, attaching stored or drive files to leads, contacts and companies of the
 * organization, and listing a record's files.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { companies, contacts } from '../src/db/schema';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { createLead, feedOf, inOrganization, softDeleteLead } from './helpers/leads';
import {
  addDocument,
  documentForm,
  fetchBytes,
  fileForm,
  fileOf,
  samples,
  uploadStorageFile,
} from './cross-tenant/fixtures/lead-activity';
import { exportAndWait } from './cross-tenant/fixtures/jobs';

async function insertCompany(owner: SignedUp, name = `Initech ${crypto.randomUUID().slice(0, 6)}`) {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx.insert(companies).values({ organizationId: owner.orgId, companyName: name }).returning({ id: companies.id }),
  );
  return row.id;
}

async function insertContact(owner: SignedUp) {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx.insert(contacts).values({ organizationId: owner.orgId, name: 'Peter Gibbons' }).returning({ id: contacts.id }),
  );
  return row.id;
}

const drive = (subjectType: string, subjectId: number, file: Record<string, unknown> = {}) => ({
  provider: 'google_drive',
  subject_type: subjectType,
  subject_id: subjectId,
  file: {
    id: 'drive-123',
    name: 'Deck.pptx',
    mime_type: 'application/vnd.ms-powerpoint',
    web_url: 'https://drive.example.com/d/123',
    ...file,
  },
});

describe('storage files', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Files'), signupOrganization('Other')]);
  });

  const upload = (form: FormData) => call('POST', '/api/storage-file/add', { token: owner.token, rawBody: form });

  it('stores an upload under the organization id and answers its metadata', async () => {
    const response = await upload(fileForm(fileOf(samples.pdf(), 'Brochure 2026.pdf', 'application/octet-stream')));
    expect(response.status, response.text).toBe(201);
    const file = response.body.data;
    expect(file).toEqual({
      id: expect.any(Number),
      file_name: 'Brochure 2026.pdf',
      content_type: 'application/pdf',
      size_bytes: samples.pdf().length,
      category: 'upload',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      download_url: `/api/storage-file/download/${file.id}`,
    });
    const listed = await env.FILES.list({ prefix: `${owner.orgId}/upload/` });
    expect(listed.objects.some((object) => object.key.endsWith('/Brochure 2026.pdf'))).toBe(true);
    const all = await env.FILES.list({ prefix: `${owner.orgId}/` });
    expect(all.objects.every((object) => object.key.startsWith(`${owner.orgId}/`))).toBe(true);
  });

  it('streams a stored file back to its organization only', async () => {
    const file = await uploadStorageFile(owner, fileForm(fileOf(samples.xlsx(), 'figures.xlsx')));
    const response = await fetchBytes(owner, file.download_url);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(samples.xlsx());
    expect(response.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="figures.xlsx"');
    expectFailure(await call('GET', file.download_url, { token: other.token }), 404, 'not_found');
    expectFailure(await call('GET', '/api/storage-file/download/999999999', { token: owner.token }), 404, 'not_found');
  });

  it('serves a stored image inline, as the route documents (a company logo opens in the browser), other files as attachments', async () => {
    const image = await uploadStorageFile(owner, fileForm(fileOf(samples.png(), 'logo.png', 'image/png')));
    const response = await fetchBytes(owner, image.download_url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-disposition')).toBe('inline; filename="logo.png"');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('applies the document allow-list, the 25 MB cap and the empty-file rule', async () => {
    const exe = await upload(fileForm(fileOf(samples.exe(), 'setup.pdf')));
    expectFailure(exe, 422, 'validation_error');
    expect(exe.body.error.code).toBe('file');
    const empty = await upload(fileForm(fileOf(new Uint8Array(0), 'empty.txt', 'text/plain')));
    expectFailure(empty, 422, 'validation_error');
    expect(empty.body.error.code).toBe('file');
    const missing = await upload(new FormData());
    expect(missing.body.error.code).toBe('file');
    const big = new Uint8Array(25 * 1024 * 1024 + 1);
    big.set(samples.pdf());
    expectFailure(await upload(fileForm(fileOf(big, 'big.pdf'))), 413, 'payload_too_large');
    const json = await call('POST', '/api/storage-file/add', { token: owner.token, body: { file: 'x' } });
    expect(json.status).toBeGreaterThanOrEqual(400);
    expect(json.status).toBeLessThan(500);
  });
});

describe('attachments', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Attach'), signupOrganization('Other')]);
    leadId = await createLead(owner);
  });

  const attach = (body: unknown, who: SignedUp = owner) => call('POST', '/api/file/attach', { token: who.token, body });
  const listOf = (query: Record<string, string | number>, who: SignedUp = owner) =>
    call('GET', '/api/file/list', { token: who.token, query });

  it('attaches a stored file to a lead with the stored name and type', async () => {
    const file = await uploadStorageFile(owner, fileForm(fileOf(samples.pdf(), 'terms.pdf')));
    const response = await attach({
      provider: 'storage',
      subject_type: 'lead',
      subject_id: leadId,
      file: { id: file.id, name: 'ignored.exe', mime_type: 'application/x-msdownload' },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      subject_type: 'lead',
      subject_id: leadId,
      provider: 'storage',
      category: 'attachment',
      name: 'terms.pdf',
      mime_type: 'application/pdf',
      file_id: file.id,
      size_bytes: samples.pdf().length,
      web_url: null,
      download_url: file.download_url,
    });
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'file_attached',
      changes: { attachment_id: { from: null, to: response.body.data.id } },
    });
    // The answer is the attachment as the list reads it afterwards, field for field.
    const listed = await call('GET', '/api/file/list', {
      token: owner.token,
      query: { subject_type: 'lead', subject_id: leadId },
    });
    expect(listed.body.data.find((row: { id: number }) => row.id === response.body.data.id)).toEqual(
      response.body.data,
    );
  });

  it('refuses to attach an export’s file (422 file.id): it expires with its export and must not outlive it as an attachment', async () => {
    const job = await exportAndWait(owner, { export_type: 'leads' });
    expect(job.status).toBe('completed');
    const response = await attach({
      provider: 'storage',
      subject_type: 'lead',
      subject_id: leadId,
      file: { id: job.file_id },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('file.id');
  });

  it('attaches a drive file by https link', async () => {
    const response = await attach(drive('lead', leadId));
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      provider: 'google_drive',
      name: 'Deck.pptx',
      external_id: 'drive-123',
      web_url: 'https://drive.example.com/d/123',
      file_id: null,
      download_url: null,
    });
  });

  it('refuses a drive file without an https link or a name, and a storage attachment without a file id (422)', async () => {
    for (const [body, field] of [
      [drive('lead', leadId, { web_url: 'http://drive.example.com/d/1' }), 'file.web_url'],
      [drive('lead', leadId, { web_url: 'javascript:alert(1)' }), 'file.web_url'],
      [drive('lead', leadId, { web_url: undefined }), 'file.web_url'],
      [drive('lead', leadId, { name: undefined }), 'file.name'],
      [{ provider: 'storage', subject_type: 'lead', subject_id: leadId, file: { name: 'x' } }, 'file.id'],
      [{ ...drive('lead', leadId), provider: 'ftp' }, 'provider'],
      [{ ...drive('lead', leadId), subject_type: 'deal' }, 'subject_type'],
    ] as const) {
      const response = await attach(body);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe(field);
    }
  });

  it('answers 404 for another organization’s stored file, lead, contact or company', async () => {
    const foreignFile = await uploadStorageFile(other);
    expectFailure(
      await attach({ provider: 'storage', subject_type: 'lead', subject_id: leadId, file: { id: foreignFile.id } }),
      404,
      'not_found',
    );
    expectFailure(await attach(drive('lead', await createLead(other))), 404, 'not_found');
    expectFailure(await attach(drive('contact', await insertContact(other))), 404, 'not_found');
    expectFailure(await attach(drive('company', await insertCompany(other))), 404, 'not_found');
    expectFailure(await attach(drive('lead', leadId), other), 404, 'not_found');
  });

  it('attaches to contacts and companies of the organization, and refuses a deleted lead', async () => {
    const contactId = await insertContact(owner);
    const companyId = await insertCompany(owner);
    expect((await attach(drive('contact', contactId))).status).toBe(201);
    expect((await attach(drive('company', companyId))).status).toBe(201);
    const listed = await listOf({ subject_type: 'company', subject_id: companyId });
    expect(listed.body.data.map((a: { subject_id: number }) => a.subject_id)).toEqual([companyId]);
    const doomed = await createLead(owner);
    await softDeleteLead(owner, doomed);
    expectFailure(await attach(drive('lead', doomed)), 404, 'not_found');
  });

  it('lists a lead’s files, documents included, filtered by category and provider', async () => {
    const lead = await createLead(owner);
    const stored = await uploadStorageFile(owner);
    await attach({ provider: 'storage', subject_type: 'lead', subject_id: lead, file: { id: stored.id } });
    await attach(drive('lead', lead));
    const document = await addDocument(owner, lead);
    const all = await listOf({ subject_type: 'lead', subject_id: lead });
    expect(all.status, all.text).toBe(200);
    expect(all.body.total).toBe(3);
    const documents = await listOf({ subject_type: 'lead', subject_id: lead, category: 'document' });
    expect(documents.body.data).toHaveLength(1);
    expect(documents.body.data[0]).toMatchObject({
      id: document.id,
      category: 'document',
      provider: 'storage',
      file_id: document.file_id,
    });
    const drives = await listOf({ subject_type: 'lead', subject_id: lead, provider: 'google_drive' });
    expect(drives.body.data.map((a: { provider: string }) => a.provider)).toEqual(['google_drive']);
    const paged = await listOf({ subject_type: 'lead', subject_id: lead, limit: 2 });
    expect(paged.body).toMatchObject({ total: 3, limit: 2 });
    expect(paged.body.data).toHaveLength(2);
  });

  it('filters a lead’s files by document_type, as the route documents (it was ignored: every file came back)', async () => {
    const lead = await createLead(owner);
    await attach(drive('lead', lead));
    const contract = await addDocument(
      owner,
      lead,
      documentForm(lead, fileOf(samples.pdf(), 'contract.pdf', 'application/pdf'), { document_type: 'contract' }),
    );
    await addDocument(owner, lead, documentForm(lead, undefined, { document_type: 'proposal' }));
    const contracts = await listOf({ subject_type: 'lead', subject_id: lead, document_type: 'contract' });
    expect(contracts.status, contracts.text).toBe(200);
    expect(contracts.body.total).toBe(1);
    expect(contracts.body.data.map((file: { id: number }) => file.id)).toEqual([contract.id]);
    expect(contracts.body.data[0].document_type).toBe('contract');
    const none = await listOf({ subject_type: 'lead', subject_id: lead, document_type: 'invoice' });
    expect(none.body).toMatchObject({ total: 0, data: [] });
  });

  it('refuses a list without its subject (400) and another organization’s subject (404)', async () => {
    const missing = await listOf({ subject_type: 'lead' });
    expectFailure(missing, 400, 'bad_request');
    expect(missing.body.error.code).toBe('subject_id');
    expectFailure(await listOf({ subject_type: 'lead', subject_id: leadId }, other), 404, 'not_found');
  });
});
