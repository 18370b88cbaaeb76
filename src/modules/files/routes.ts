/**
 * Files: uploads kept in our storage (`/api/storage-file/*`) and attachments of stored or
 * drive files to a lead, contact or company (`/api/file/*`). Size cap and content-type
 * allow-list: see upload-policy.ts.
 */
import { created, list } from '../../core/http';
import {
  binaryDownload,
  createRouter,
  defineRoute,
  ErrorEnvelope,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { RECORDING_CONTENT_TYPE } from '../../providers/voice/recording';
import { IMAGE_TYPES, STORED_CONTENT_TYPES } from './upload-policy';
import { AttachFileBody, AttachmentSchema, MAX_UPLOAD_MB, StorageFileForm, StoredFileSchema } from './schemas';
import { attachFile, AttachmentListQuery, listAttachments, uploadStorageFile } from './service';
import { fileResponse, findStoredFile } from './storage';

export const fileRoutes = createRouter();
const tags = ['Files'];

const tooLarge = {
  description: `File larger than ${MAX_UPLOAD_MB} MB`,
  content: { 'application/json': { schema: ErrorEnvelope } },
};

fileRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/storage-file/add',
    operationId: 'uploadStorageFile',
    tags,
    summary: 'Upload a file to storage; attach it with /api/file/attach (provider storage)',
    description:
      "Uploads a file (multipart field `file`) to the organization's storage and answers its record; it is not attached to anything until POST /api/file/attach references its id with provider `storage`.",
    auth: 'bearer',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: StorageFileForm } } } },
    responses: { 201: envelope(StoredFileSchema, 'File stored'), 413: tooLarge },
  }),
  async (c) => created(c, await uploadStorageFile(c.var.tenant, c.env.FILES, c.req.valid('form').file), 'File stored'),
);

fileRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/storage-file/download/{id}',
    operationId: 'downloadStorageFile',
    tags,
    summary: 'Download a stored file of the organization (streamed, with its content type)',
    description:
      'Streams a stored file of the organization with its stored content type (inline for images, attachment otherwise); a call recording as `audio/wav`. A file that only deleted records point at (a deleted lead’s document, or the recording of its call) is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: binaryDownload('The file, with its stored (sniffed) content type', STORED_CONTENT_TYPES) },
  }),
  async (c) => {
    const stored = await findStoredFile(c.var.tenant, c.req.valid('param').id);
    // A call recording is served as the audio it was stored as, as its own link serves it
    // (GET /api/v1/call/recording/{token}), never as another type.
    const file = stored.category === 'call_recording' ? { ...stored, contentType: RECORDING_CONTENT_TYPE } : stored;
    // Images of the allow-list (never SVG) open in the browser, as a company logo's URL is shown.
    return fileResponse(c.env.FILES, file, Object.hasOwn(IMAGE_TYPES, file.contentType) ? 'inline' : 'attachment');
  },
);

fileRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/file/attach',
    operationId: 'attachFile',
    tags,
    summary: 'Attach a stored file or a drive file to a lead, contact or company',
    description:
      'Attaches a file to a lead, contact or company: a stored file (provider `storage`, `file_id`) or a file living in a drive (provider google_drive, onedrive, dropbox, box or sharepoint, with a `name` and an https `web_url`). The subject and the stored file must belong to the organization (404 otherwise). Writes a `file_attached` feed entry on the subject.',
    auth: 'bearer',
    request: { body: jsonBody(AttachFileBody) },
    responses: { 201: envelope(AttachmentSchema, 'File attached') },
  }),
  async (c) => created(c, await attachFile(c.var.tenant, c.req.valid('json')), 'File attached'),
);

fileRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/file/list',
    operationId: 'listFiles',
    tags,
    summary: 'Files attached to a lead, contact or company (lead documents included, category document)',
    description:
      'Files attached to one lead, contact or company (`subject_type` and `subject_id`), lead documents included (category `document`); filter by `provider` and `document_type`.',
    auth: 'bearer',
    request: { query: AttachmentListQuery },
    responses: { 200: listEnvelope(AttachmentSchema) },
  }),
  async (c) => list(c, await listAttachments(c.var.tenant, c.req.valid('query'))),
);
