/**
 * Lead documents and the lead profile image: bytes in R2 under the organization id, the
 * content-type allow-list decided by magic bytes, the 25 MB cap (413), empty and missing
 * files (422 naming the field), streamed downloads only to the owning organization.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { statementsOf } from './helpers/statements';
import { eq } from 'drizzle-orm';
import { calls, storedFiles } from '../src/db/schema';
import { createLead, feedOf, inOrganization, restoreLead, softDeleteLead } from './helpers/leads';
import {
  addDocument,
  documentForm,
  fetchBytes,
  fileOf,
  imageForm,
  samples,
} from './cross-tenant/fixtures/lead-activity';

const MB = 1024 * 1024;

async function keysOf(orgId: number, category: string): Promise<string[]> {
  const listed = await env.FILES.list({ prefix: `${orgId}/${category}/` });
  return listed.objects.map((object) => object.key);
}

describe('lead documents', () => {
  let owner: SignedUp;
  let other: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Docs'), signupOrganization('Other')]);
    leadId = await createLead(owner);
  });

  const upload = (form: FormData, who: SignedUp = owner) =>
    call('POST', '/api/lead/document/add', { token: who.token, rawBody: form });

  it('stores a document in R2 under the organization id and records it on the lead', async () => {
    const form = documentForm(leadId, fileOf(samples.pdf(), 'Proposal v2.pdf', 'application/octet-stream'), {
      document_type: 'proposal',
      description: 'Q3 offer',
    });
    const response = await upload(form);
    expect(response.status, response.text).toBe(201);
    const document = response.body.data;
    expect(document).toMatchObject({
      lead_id: leadId,
      file_name: 'Proposal v2.pdf',
      content_type: 'application/pdf',
      size_bytes: samples.pdf().length,
      document_type: 'proposal',
      description: 'Q3 offer',
      download_url: `/api/lead/document/download/${document.id}`,
      created_by: owner.userId,
    });
    const keys = await keysOf(owner.orgId, 'document');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith(`${owner.orgId}/`)).toBe(true);
    expect(keys.some((key) => key.endsWith('/Proposal v2.pdf'))).toBe(true);
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'document_added',
      changes: { document_id: { from: null, to: document.id }, file_name: { from: null, to: 'Proposal v2.pdf' } },
    });
    // The answer is the document as the list reads it afterwards, field for field.
    const listed = await call('GET', '/api/lead/document/list', { token: owner.token, query: { lead_id: leadId } });
    expect(listed.body.data.find((row: { id: number }) => row.id === document.id)).toEqual(document);
  });

  it('streams the document back with its stored content type and Content-Disposition', async () => {
    const document = await addDocument(
      owner,
      leadId,
      documentForm(leadId, fileOf(samples.csv(), 'contacts.csv', 'text/csv')),
    );
    const response = await fetchBytes(owner, document.download_url);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(samples.csv());
    expect(response.headers.get('content-type')).toBe('text/csv');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="contacts.csv"');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps a non-English file name as uploaded and sends it back with an RFC 6266 filename*', async () => {
    const cases: [string, string, string][] = [
      // name uploaded, name kept, ASCII fallback in filename=
      ['Angebot für Müller (final).pdf', 'Angebot für Müller (final).pdf', 'Angebot fur Muller (final).pdf'],
      ['見積書.pdf', '見積書.pdf', '_.pdf'],
      // NFKC, as before: № is No.
      ['Договор №5.pdf', 'Договор No5.pdf', '_ No5.pdf'],
    ];
    for (const [uploaded, kept, fallback] of cases) {
      const document = await addDocument(
        owner,
        leadId,
        documentForm(leadId, fileOf(samples.pdf(), uploaded, 'application/pdf')),
      );
      expect(document.file_name, uploaded).toBe(kept);
      const response = await fetchBytes(owner, document.download_url);
      expect(response.status).toBe(200);
      const header = response.headers.get('content-disposition') ?? '';
      expect(header, uploaded).toBe(
        `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(kept).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
      );
      const encoded = /filename\*=UTF-8''(.+)$/.exec(header)?.[1] ?? '';
      expect(decodeURIComponent(encoded)).toBe(kept);
    }
  });

  it('keeps path characters, quotes and semicolons out of the stored name and the header', async () => {
    const document = await addDocument(
      owner,
      leadId,
      documentForm(leadId, fileOf(samples.pdf(), '..\\..\\boot"ini; x=1/.pdf', 'application/pdf')),
    );
    expect(document.file_name).not.toMatch(/[\\/"\r\n;]/);
    const response = await fetchBytes(owner, document.download_url);
    const header = response.headers.get('content-disposition') ?? '';
    expect(header).toBe(`attachment; filename="${document.file_name}"`);
  });

  it('lists the documents of one lead, filtered by document_type and searched by name', async () => {
    const lead = await createLead(owner);
    await addDocument(
      owner,
      lead,
      documentForm(lead, fileOf(samples.pdf(), 'contract.pdf'), { document_type: 'contract' }),
    );
    await addDocument(owner, lead, documentForm(lead, fileOf(samples.docx(), 'notes.docx')));
    const all = await call('GET', '/api/lead/document/list', { token: owner.token, query: { lead_id: lead } });
    expect(all.status, all.text).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.data.map((d: { file_name: string }) => d.file_name)).toEqual(['notes.docx', 'contract.pdf']);
    const contracts = await call('GET', '/api/lead/document/list', {
      token: owner.token,
      query: { lead_id: lead, document_type: 'contract' },
    });
    expect(contracts.body.data.map((d: { file_name: string }) => d.file_name)).toEqual(['contract.pdf']);
    const searched = await call('GET', '/api/lead/document/list', {
      token: owner.token,
      query: { lead_id: lead, search_value: 'NOTES' },
    });
    expect(searched.body.total).toBe(1);
  });

  it('accepts the allow-list by content, whatever the declared type', async () => {
    const cases: [Uint8Array, string, string][] = [
      [samples.png(), 'scan.pdf', 'image/png'],
      [samples.jpeg(), 'photo', 'image/jpeg'],
      [samples.docx(), 'report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [samples.xlsx(), 'numbers.bin', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      [samples.ole(), 'legacy.xls', 'application/vnd.ms-excel'],
      [strToBytes('plain words'), 'readme.txt', 'text/plain'],
    ];
    for (const [data, name, expected] of cases) {
      const response = await upload(documentForm(leadId, fileOf(data, name, 'application/octet-stream')));
      expect(response.status, `${name}: ${response.text}`).toBe(201);
      expect(response.body.data.content_type, name).toBe(expected);
    }
  });

  it('refuses types outside the allow-list with 422 naming file', async () => {
    const cases: [Uint8Array, string, string][] = [
      [samples.exe(), 'invoice.pdf', 'application/pdf'],
      [samples.zip(), 'archive.zip', 'application/zip'],
      [samples.zip(), 'fake.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [samples.svg(), 'logo.svg', 'image/svg+xml'],
      [samples.ole(), 'mystery.bin', 'application/octet-stream'],
      [new Uint8Array([0x41, 0, 0x42]), 'binary.txt', 'text/plain'],
      [strToBytes('<html><script>x</script></html>'), 'page.html', 'text/html'],
    ];
    for (const [data, name, type] of cases) {
      const response = await upload(documentForm(leadId, fileOf(data, name, type)));
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, name).toBe('file');
    }
  });

  it('refuses an empty file, a missing file and a text field named file with 422 naming file', async () => {
    for (const form of [
      documentForm(leadId, fileOf(new Uint8Array(0), 'empty.pdf')),
      documentForm(leadId, null),
      documentForm(leadId, null, { file: 'text' }),
    ]) {
      const response = await upload(form);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('file');
    }
    const noLead = new FormData();
    noLead.set('file', fileOf(samples.pdf(), 'a.pdf'));
    const response = await upload(noLead);
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('lead_id');
  });

  it('refuses a JSON body with a 4xx', async () => {
    const response = await call('POST', '/api/lead/document/add', {
      token: owner.token,
      body: { lead_id: leadId, file: 'x' },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body.success).toBe(false);
  });

  it('refuses a file over 25 MB with 413 payload_too_large and stores nothing', async () => {
    const before = await keysOf(owner.orgId, 'document');
    const big = new Uint8Array(25 * MB + 1);
    big.set(samples.pdf());
    const response = await upload(documentForm(leadId, fileOf(big, 'huge.pdf')));
    expectFailure(response, 413, 'payload_too_large');
    expect(await keysOf(owner.orgId, 'document')).toEqual(before);
  });

  it('answers 404 for a lead of another organization without writing to R2', async () => {
    const foreignLead = await createLead(other);
    const before = await keysOf(other.orgId, 'document');
    expectFailure(await upload(documentForm(leadId), other), 404, 'not_found');
    expectFailure(await upload(documentForm(foreignLead)), 404, 'not_found');
    expect(await keysOf(other.orgId, 'document')).toEqual(before);
  });

  it('never serves or deletes a document for another organization', async () => {
    const document = await addDocument(owner, leadId);
    expectFailure(await call('GET', document.download_url, { token: other.token }), 404, 'not_found');
    expectFailure(
      await call('DELETE', `/api/lead/document/delete/${document.id}`, { token: other.token }),
      404,
      'not_found',
    );
    expectFailure(
      await call('GET', '/api/lead/document/list', { token: other.token, query: { lead_id: leadId } }),
      404,
      'not_found',
    );
    expect((await fetchBytes(owner, document.download_url)).bytes).toEqual(samples.pdf());
  });

  it('deletes a document with its bytes', async () => {
    const lead = await createLead(owner);
    const document = await addDocument(owner, lead, documentForm(lead, fileOf(samples.pdf(), 'gone-soon.pdf')));
    const keyFor = async () => (await keysOf(owner.orgId, 'document')).filter((key) => key.endsWith('/gone-soon.pdf'));
    expect(await keyFor()).toHaveLength(1);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('DELETE', `/api/lead/document/delete/${document.id}`, { token: owner.token }),
    );
    expect(response.status, response.text).toBe(200);
    // The scope, the document's delete with its feed entry (BEGIN with it), the file's checked
    // delete (COMMIT with it).
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    expect((await feedOf(owner, 'lead', lead)).at(-1)).toMatchObject({
      action: 'document_deleted',
      changes: { document_id: { from: document.id, to: null }, file_name: { from: 'gone-soon.pdf', to: null } },
    });
    // The bytes go once the transaction has committed.
    await vi.waitFor(async () => expect(await keyFor()).toHaveLength(0));
    expectFailure(await call('GET', document.download_url, { token: owner.token }), 404, 'not_found');
    expectFailure(
      await call('GET', `/api/storage-file/download/${document.file_id}`, { token: owner.token }),
      404,
      'not_found',
    );
    expect(
      (await call('GET', '/api/lead/document/list', { token: owner.token, query: { lead_id: lead } })).body.total,
    ).toBe(0);
    expect((await feedOf(owner, 'lead', lead)).at(-1)).toMatchObject({ action: 'document_deleted' });
  });

  it('keeps a file a call recording shares when the document on it is deleted (bytes and row)', async () => {
    const lead = await createLead(owner);
    const document = await addDocument(owner, lead, documentForm(lead, fileOf(samples.pdf(), 'also-a-recording.pdf')));
    await inOrganization(owner.orgId, (tx) =>
      tx.insert(calls).values({
        organizationId: owner.orgId,
        leadId: lead,
        direction: 'outbound',
        kind: 'agent',
        fromNumber: '+14155550100',
        toNumber: '+14155550101',
        status: 'completed',
        provider: 'local',
        recordingFileId: document.file_id,
      }),
    );
    const deleted = await call('DELETE', `/api/lead/document/delete/${document.id}`, { token: owner.token });
    expect(deleted.status, deleted.text).toBe(200);
    const [file] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(storedFiles).where(eq(storedFiles.id, document.file_id)),
    );
    expect(file?.id).toBe(document.file_id);
    expect(await env.FILES.head(file.storageKey)).not.toBeNull();
    expect((await fetchBytes(owner, `/api/storage-file/download/${document.file_id}`)).bytes).toEqual(samples.pdf());
  });

  it('hides the documents of a deleted lead', async () => {
    const lead = await createLead(owner);
    const document = await addDocument(owner, lead);
    await softDeleteLead(owner, lead);
    expectFailure(await call('GET', document.download_url, { token: owner.token }), 404, 'not_found');
    expectFailure(
      await call('GET', '/api/lead/document/list', { token: owner.token, query: { lead_id: lead } }),
      404,
      'not_found',
    );
    expectFailure(await upload(documentForm(lead)), 404, 'not_found');
    // Nor can it be deleted: restored, the lead has it whole.
    expectFailure(
      await call('DELETE', `/api/lead/document/delete/${document.id}`, { token: owner.token }),
      404,
      'not_found',
    );
    await restoreLead(owner, lead);
    expect((await fetchBytes(owner, document.download_url)).status).toBe(200);
  });

  it('hides a deleted lead’s document bytes on every path (storage-file download, attach) until the lead is restored', async () => {
    const lead = await createLead(owner);
    const document = await addDocument(owner, lead);
    const byFileId = `/api/storage-file/download/${document.file_id}`;
    expect((await fetchBytes(owner, byFileId)).status).toBe(200);
    const kept = await createLead(owner);
    const attach = () =>
      call('POST', '/api/file/attach', {
        token: owner.token,
        body: {
          subject_type: 'lead',
          subject_id: kept,
          provider: 'storage',
          file: { id: document.file_id },
        },
      });

    await softDeleteLead(owner, lead);
    expectFailure(await call('GET', byFileId, { token: owner.token }), 404, 'not_found');
    // Attaching the file elsewhere would serve it again: refused the same way.
    expectFailure(await attach(), 404, 'not_found');

    await restoreLead(owner, lead);
    const restored = await fetchBytes(owner, byFileId);
    expect(restored.status).toBe(200);
    expect(restored.bytes).toEqual(samples.pdf());
    expect((await call('GET', document.download_url, { token: owner.token })).status).toBe(200);
    expect((await attach()).status).toBe(201);
  });
});

describe('lead profile image', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Images'), signupOrganization('Other')]);
  });

  const uploadImage = (leadId: number, form: FormData, who: SignedUp = owner) =>
    call('POST', `/api/lead/${leadId}/upload-profile-image`, { token: who.token, rawBody: form });

  it('stores a PNG and serves it inline with its content type', async () => {
    const leadId = await createLead(owner);
    const response = await uploadImage(leadId, imageForm());
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      lead_id: leadId,
      content_type: 'image/png',
      size_bytes: samples.png().length,
      profile_image_url: `/api/lead/${leadId}/profile-image`,
    });
    const image = await fetchBytes(owner, `/api/lead/${leadId}/profile-image`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toBe('inline; filename="face.png"');
    expect(image.bytes).toEqual(samples.png());
    const keys = await keysOf(owner.orgId, 'profile_image');
    expect(keys.some((key) => key.startsWith(`${owner.orgId}/profile_image/`) && key.endsWith('/face.png'))).toBe(true);
  });

  it('recognises JPEG, GIF and WebP by magic bytes, whatever the name or declared type', async () => {
    const leadId = await createLead(owner);
    for (const [data, expected] of [
      [samples.jpeg(), 'image/jpeg'],
      [samples.gif(), 'image/gif'],
      [samples.webp(), 'image/webp'],
    ] as const) {
      const response = await uploadImage(leadId, imageForm(fileOf(data, 'notes.txt', 'text/plain')));
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.content_type).toBe(expected);
    }
  });

  it('refuses what only claims to be an image with 422 naming image', async () => {
    const leadId = await createLead(owner);
    for (const file of [
      fileOf(samples.pdf(), 'face.png', 'image/png'),
      fileOf(samples.svg(), 'face.svg', 'image/svg+xml'),
      fileOf(new Uint8Array(0), 'empty.png', 'image/png'),
    ]) {
      const response = await uploadImage(leadId, imageForm(file));
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code).toBe('image');
    }
    const missing = await uploadImage(leadId, new FormData());
    expect(missing.body.error.code).toBe('image');
    const big = new Uint8Array(25 * MB + 1);
    big.set(samples.png());
    expectFailure(await uploadImage(leadId, imageForm(fileOf(big, 'big.png'))), 413, 'payload_too_large');
  });

  it('replaces the previous image and removes its bytes', async () => {
    const leadId = await createLead(owner);
    const uploaded = await uploadImage(leadId, imageForm(fileOf(samples.png(), 'first-face.png')));
    expect(uploaded.status, uploaded.text).toBe(200);
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'profile_image_updated',
      changes: { profile_image_file_id: { from: null, to: uploaded.body.data.file_id } },
    });
    const first = (await keysOf(owner.orgId, 'profile_image')).filter((key) => key.endsWith('/first-face.png'));
    expect(first).toHaveLength(1);
    const second = await uploadImage(leadId, imageForm(fileOf(samples.gif(), 'second-face.gif')));
    expect(second.status, second.text).toBe(200);
    expect((await keysOf(owner.orgId, 'profile_image')).filter((key) => key.endsWith('/first-face.png'))).toHaveLength(
      0,
    );
    const image = await fetchBytes(owner, `/api/lead/${leadId}/profile-image`);
    expect(image.headers.get('content-type')).toBe('image/gif');
    expect(image.bytes).toEqual(samples.gif());
    expect((await feedOf(owner, 'lead', leadId)).at(-1)).toMatchObject({
      action: 'profile_image_updated',
      changes: { profile_image_file_id: { from: uploaded.body.data.file_id, to: second.body.data.file_id } },
    });
  });

  it('answers 404 for a lead without an image, another organization and a deleted lead', async () => {
    const leadId = await createLead(owner);
    expectFailure(await call('GET', `/api/lead/${leadId}/profile-image`, { token: owner.token }), 404, 'not_found');
    await uploadImage(leadId, imageForm());
    expectFailure(await call('GET', `/api/lead/${leadId}/profile-image`, { token: other.token }), 404, 'not_found');
    expectFailure(await uploadImage(leadId, imageForm(), other), 404, 'not_found');
    await softDeleteLead(owner, leadId);
    expectFailure(await call('GET', `/api/lead/${leadId}/profile-image`, { token: owner.token }), 404, 'not_found');
  });
});

function strToBytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
