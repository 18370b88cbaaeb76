/**
 * Exports of leads, clients, companies and contacts to CSV or XLSX: create (202, written by
 * the queue consumer), list with progress, and download of a completed file.
 */
import { z } from '@hono/zod-openapi';
import { accepted, list } from '../../core/http';
import {
  binaryDownload,
  conflictResponse,
  goneResponse,
  createRouter,
  defineRoute,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { JOB_STATUSES } from '../../jobs/job-status';
import { CreateExportBody, ExportJobSchema } from './schemas';
import { createExport, downloadExport, ExportListQuery, listExports } from './service';

export const exportRoutes = createRouter();
const tags = ['Exports'];

exportRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/exports/create',
    operationId: 'createExport',
    tags,
    summary: 'Export records to CSV or XLSX (asynchronous)',
    description:
      'Queues an export job and answers 202 with it; follow it at /api/exports/list and download it when completed. A create retried with its `Idempotency-Key` answers the first job again instead of queuing another.',
    auth: 'bearer',
    // 202, not 201, so opted in: a client that timed out and retries must not queue a second export.
    idempotency: true,
    request: { body: jsonBody(CreateExportBody) },
    responses: { 202: envelope(ExportJobSchema, 'Export queued') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const job = await createExport(c.var.tenant, {
      exportType: body.export_type,
      format: body.format,
      filters: body.filters ?? {},
    });
    return accepted(c, job, 'Export queued');
  },
);

exportRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/exports/list',
    operationId: 'listExports',
    tags,
    summary: 'Export jobs with status and progress',
    description:
      "The organization's export jobs with status and progress; filter by `export_type` and `status`. Download a completed one with GET /api/exports/download/{id}.",
    auth: 'bearer',
    request: { query: ExportListQuery },
    responses: { 200: listEnvelope(ExportJobSchema) },
  }),
  async (c) => list(c, await listExports(c.var.tenant, c.req.valid('query'))),
);

exportRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/exports/download/{id}',
    operationId: 'downloadExport',
    tags,
    summary: 'Download a completed export (streamed as an attachment)',
    description:
      'Streams a completed export file (CSV or XLSX) as an attachment. An export that is not completed yet is a 409 `export_not_ready` with its status in `error.details.status`. The file is kept 30 days after the export finished (`expires_at` in the list); after that the download is a 410 `export_expired`.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: binaryDownload('The export file (CSV or XLSX, as requested)', [
        'text/csv',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      ]),
      409: conflictResponse('ExportNotReadyConflict', 'The export is not completed yet (error.code export_not_ready)', [
        {
          code: 'export_not_ready',
          details: z.object({ status: z.enum(JOB_STATUSES).openapi({ description: 'The export’s current status' }) }),
          example: { status: 'running' },
        },
      ]),
      410: goneResponse('ExportExpired', 'The export’s file has expired and was deleted (error.code export_expired)', {
        code: 'export_expired',
        details: z.object({ expired_at: z.string().openapi({ description: 'When the file expired (ISO 8601)' }) }),
        example: { expired_at: '2026-02-14T09:30:04.000Z' },
      }),
    },
  }),
  async (c) => downloadExport(c.var.tenant, c.env.FILES, c.req.valid('param').id),
);
