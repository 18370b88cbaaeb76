/**
 * Documents of a lead (multipart upload, list, streamed download, delete) and, mounted from
 * profile-image-routes.ts, the lead's profile image. Size cap and allow-list: files/upload-policy.ts.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import {
  binaryDownload,
  createRouter,
  defineRoute,
  ErrorEnvelope,
  envelope,
  idParam,
  listEnvelope,
} from '../../core/routes';
import { STORED_CONTENT_TYPES } from '../files';
import { MAX_UPLOAD_MB } from '../files';
import { AddDocumentForm, DocumentSchema } from './schemas';
import { addDocument, deleteDocument, DocumentListQuery, downloadDocument, listDocuments } from './service';
import { profileImageRoutes } from './profile-image-routes';

export const leadDocumentRoutes = createRouter();
const tags = ['Lead documents'];

leadDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/document/list',
    operationId: 'listLeadDocuments',
    tags,
    summary: 'Documents of one lead; search_value matches the file name',
    description:
      'Documents uploaded to one lead (`lead_id`, required); `search_value` matches the file name. Download one with GET /api/lead/document/download/{id}.',
    auth: 'bearer',
    request: { query: DocumentListQuery },
    responses: { 200: listEnvelope(DocumentSchema) },
  }),
  async (c) => list(c, await listDocuments(c.var.tenant, c.req.valid('query'))),
);

leadDocumentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/document/add',
    operationId: 'addLeadDocument',
    tags,
    summary: 'Upload a document to a lead',
    description:
      'Allowed: PDF, PNG, JPEG, GIF, WebP, DOCX, XLSX, PPTX, DOC, XLS, PPT, CSV and plain text, recognised by content (magic bytes) where the ' +
      `format has them; anything else is 422 naming file. At most ${MAX_UPLOAD_MB} MB per file (413 payload_too_large).`,
    auth: 'bearer',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: AddDocumentForm } } } },
    responses: {
      201: envelope(DocumentSchema, 'Document added'),
      413: {
        description: `File larger than ${MAX_UPLOAD_MB} MB`,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => created(c, await addDocument(c.var.tenant, c.env.FILES, c.req.valid('form')), 'Document added'),
);

leadDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/document/download/{id}',
    operationId: 'downloadLeadDocument',
    tags,
    summary: 'Download a document (streamed, stored content type, Content-Disposition attachment)',
    description:
      "Streams a document's bytes with the content type it was stored with and `Content-Disposition: attachment` with its file name.",
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: binaryDownload('The document, with its stored (sniffed) content type', STORED_CONTENT_TYPES),
    },
  }),
  async (c) => downloadDocument(c.var.tenant, c.env.FILES, c.req.valid('param').id),
);

leadDocumentRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/lead/document/delete/{id}',
    operationId: 'deleteLeadDocument',
    tags,
    summary: 'Delete a document and its stored bytes',
    description: 'Deletes a document and its stored bytes.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Document deleted') },
  }),
  async (c) => ok(c, await deleteDocument(c.var.tenant, c.env.FILES, c.req.valid('param').id), 'Document deleted'),
);

leadDocumentRoutes.route('/', profileImageRoutes);
