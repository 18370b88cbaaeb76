/**
 * Spreadsheet imports of leads: upload (answered 202 at once; the queue consumer does the
 * work), job progress, and each job's per-row errors and duplicates.
 */
import { accepted, list, ok } from '../../core/http';
import { z } from '@hono/zod-openapi';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  ErrorEnvelope,
  idParam,
  listEnvelope,
} from '../../core/routes';
import { JOB_STATUSES } from '../../jobs/job-status';
import { ImportJobRowSchema, ImportJobSchema, LeadImportForm } from './schemas';
import {
  cancelImportJob,
  ImportJobListQuery,
  ImportJobRowsQuery,
  listImportJobRows,
  listImportJobs,
  MAX_IMPORT_BYTES,
  startLeadImport,
} from './service';

export const importRoutes = createRouter();
const tags = ['Imports'];

importRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/lead-imports',
    operationId: 'importLeads',
    tags,
    summary: 'Import leads from a CSV or XLSX file (asynchronous)',
    description:
      'Stores the file and queues an import job; answers 202 with the job at once. Headers map to lead fields case-insensitively ' +
      '(e.g. "First Name", "Email Address", "Phone"); unknown columns become custom fields. Follow progress at /api/import-job/list.',
    auth: 'bearer',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: LeadImportForm } } } },
    responses: {
      202: envelope(ImportJobSchema, 'Import job queued'),
      413: {
        description: `File larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) => {
    const form = c.req.valid('form');
    const job = await startLeadImport(c.var.tenant, c.env.FILES, {
      file: form.file,
      duplicateMode: form.duplicate_mode,
    });
    return accepted(c, job, 'Import queued');
  },
);

importRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/import-job/list',
    operationId: 'listImportJobs',
    tags,
    summary: 'Import jobs with status, counts and percentage',
    description:
      "The organization's lead-import jobs, newest first by default, with status, row counts and percentage; filter by `status`.",
    auth: 'bearer',
    request: { query: ImportJobListQuery },
    responses: { 200: listEnvelope(ImportJobSchema) },
  }),
  async (c) => list(c, await listImportJobs(c.var.tenant, c.req.valid('query'))),
);

importRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/import-job/{id}/rows',
    operationId: 'listImportJobRows',
    tags,
    summary: 'Per-row errors and duplicates of one import job',
    description:
      'The rows of an import job that did not simply become new leads: rows refused as invalid (`error`) and duplicates skipped or merged into an existing lead, each with its row number and a message, so the file can be fixed and imported again. Filter by `outcome`.',
    auth: 'bearer',
    request: { params: idParam(), query: ImportJobRowsQuery },
    responses: { 200: listEnvelope(ImportJobRowSchema) },
  }),
  async (c) => list(c, await listImportJobRows(c.var.tenant, c.req.valid('param').id, c.req.valid('query'))),
);

importRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/import-job/{id}/cancel',
    operationId: 'cancelImportJob',
    tags,
    summary: 'Cancel a queued or running import',
    description:
      'The job becomes `cancelled` at once; the consumer stops at its next batch of 500 rows, and rows already imported stay. ' +
      'An import that has ended answers 409 `import_ended`; another organization’s job is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: envelope(ImportJobSchema, 'Import cancelled'),
      409: conflictResponse('ImportEndedConflict', 'The import has already ended (error.code import_ended)', [
        {
          code: 'import_ended',
          details: z.object({ status: z.enum(JOB_STATUSES).openapi({ description: 'The status it ended with' }) }),
          example: { status: 'completed' },
        },
      ]),
    },
  }),
  async (c) => ok(c, await cancelImportJob(c.var.tenant, c.req.valid('param').id), 'Import cancelled'),
);
