/**
 * Multipart bodies are read whole before a route checks its file, so the whole-body cap stays
 * just above the largest per-file cap (imports, 32 MB): a bigger body is refused with 413 from
 * its Content-Length, before any of it is buffered.
 */
import { describe, expect, it } from 'vitest';
import { UPLOAD_BODY_LIMIT_BYTES } from '../src/app';
import { MAX_IMPORT_BYTES } from '../src/modules/imports/service';
import { call, expectFailure, signupOrganization } from './helpers/api';

describe('multipart body cap', () => {
  it('is the import cap plus 1 MB of framing', () => {
    expect(UPLOAD_BODY_LIMIT_BYTES).toBe(MAX_IMPORT_BYTES + 1024 * 1024);
  });

  it('answers 413 to a body over the cap on every upload route', async () => {
    const org = await signupOrganization('Uploads');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(UPLOAD_BODY_LIMIT_BYTES + 1)], { type: 'text/csv' }), 'big.csv');
    const body = new Response(form);
    const bytes = await body.arrayBuffer();
    const contentType = body.headers.get('content-type') as string;
    for (const path of ['/api/lead/lead-imports', '/api/storage-file/add', '/api/lead/document/add']) {
      const response = await call('POST', path, {
        token: org.token,
        rawBody: bytes,
        headers: { 'content-type': contentType },
      });
      expectFailure(response, 413, 'payload_too_large');
      expect(response.body.error.message).toContain('33 MB');
    }
  });
});
