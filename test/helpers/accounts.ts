/**
 * Companies and contacts for tests: a company through the multipart POST /api/company/add,
 * a contact through POST /api/contact/add, and a tiny PNG for logos.
 */
import { call, type ApiResponse, type SignedUp } from './api';

/** The PNG signature and a few bytes: enough for the upload policy's magic-byte check. */
export function pngFile(name = 'logo.png'): File {
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  return new File([bytes], name, { type: 'image/png' });
}

export function companyForm(fields: Record<string, string | File>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return form;
}

export function postCompany(owner: SignedUp, fields: Record<string, string | File>): Promise<ApiResponse> {
  return call('POST', '/api/company/add', { token: owner.token, rawBody: companyForm(fields) });
}

export async function createCompany(owner: SignedUp, fields: Record<string, string | File> = {}): Promise<number> {
  const response = await postCompany(owner, { company_name: `Company ${crypto.randomUUID().slice(0, 8)}`, ...fields });
  if (response.status !== 201) throw new Error(`company add: ${response.status} ${response.text}`);
  return response.body.data.id;
}

export async function createContact(owner: SignedUp, body: Record<string, unknown>): Promise<number> {
  const response = await call('POST', '/api/contact/add', {
    token: owner.token,
    body: { name: `Contact ${crypto.randomUUID().slice(0, 8)}`, ...body },
  });
  if (response.status !== 201) throw new Error(`contact add: ${response.status} ${response.text}`);
  return response.body.data.id;
}
