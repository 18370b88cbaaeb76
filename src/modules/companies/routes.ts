/**
 * Company routes (spec "Contacts and companies"): the record, its list and stats under one set
 * of filters, similar companies, soft delete, and enrichment as a queued job. HTTP only.
 */
import { z } from '@hono/zod-openapi';
import { accepted, created, list, ok, wholeList } from '../../core/http';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  ErrorEnvelope,
  idParam,
  jsonBody,
  listEnvelope,
  sentAsForm,
} from '../../core/routes';
import { restoreConflict as restoreConflictResponse, restoredAnswer } from '../../core/restore-contract';
import { DeletedId } from '../../core/schemas';
import { MAX_UPLOAD_MB } from '../files';
import { DeletedCount } from './bulk-target';
import { EnrichmentJobSchema, readEnrichmentJob, startEnrichment } from './enrichment';
import {
  AddCompanyBody,
  AddCompanyForm,
  CompanySchema,
  CompanyStatsQuery,
  CompanyStatsSchema,
  DeleteCompaniesBody,
  DeleteCompanyQuery,
  EnrichCompanyBody,
  SimilarCompanySchema,
  SimilarQuery,
  UpdateCompanyBody,
  UpdateCompanyForm,
} from './schemas';
import {
  addCompany,
  CompanyListQuery,
  deleteCompanies,
  deleteCompany,
  listCompanies,
  readCompany,
  updateCompany,
} from './service';
import { similarCompanies } from './similar';
import { companyStats } from './stats';
import {
  DeletedCompanyListQuery,
  DeletedCompanySchema,
  listDeletedCompanies,
  RestoreCompaniesBody,
  restoreCompanies,
  COMPANY_NOUNS,
} from './trash';

export const companyRoutes = createRouter();
const tags = ['Companies'];

const companyHasOpenDeals = conflictResponse(
  'CompanyHasOpenDealsConflict',
  'A targeted company has open deals (deals of its linked leads whose outcome is open); nothing was deleted. Move or close the deals, or send force',
  [
    {
      code: 'company_has_open_deals',
      details: z.object({
        company_ids: z
          .array(z.number().int())
          .openapi({ description: 'The targeted companies that have open deals', example: [3] }),
      }),
      example: { company_ids: [3] },
    },
  ],
);

const duplicateCompany = conflictResponse(
  'DuplicateCompanyConflict',
  'Another live company of the organization has this name (any letter case); error.details.company_id is that company',
  [
    {
      code: 'duplicate_company',
      details: z.object({
        company_id: z.number().int().openapi({ description: 'The existing company with the name', example: 3 }),
        field: z.literal('company_name').openapi({ description: 'The field that collides' }),
      }),
      example: { company_id: 3, field: 'company_name' },
    },
  ],
);

const filtersNote =
  'Filters: `my=true` (companies the caller created or is assigned to), `company_id` (comma-separated ids), `industry` (exact, any letter case), `start_date`/`end_date` (created, inclusive), `search_value` (name, website domain, industry, city, country).';

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/list',
    operationId: 'listCompanies',
    tags,
    summary: 'Companies of the organization, with the standard list parameters and the company filters',
    description: `Live companies of the organization with the standard list parameters. ${filtersNote}`,
    auth: 'bearer',
    request: { query: CompanyListQuery },
    responses: { 200: listEnvelope(CompanySchema) },
  }),
  async (c) => list(c, await listCompanies(c.var.tenant, c.req.valid('query'))),
);

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/stats',
    operationId: 'companyStats',
    tags,
    summary: 'Counts by industry, size band and country, and lead/contact counts per company, under the list filters',
    description: `Over the companies the list filters select: their total, counts by industry_type, by employee_size and by country (most first; null groups those without a value), and the \`limit\` companies with the most leads, with their lead and contact counts. One SQL statement. ${filtersNote}`,
    auth: 'bearer',
    request: { query: CompanyStatsQuery },
    responses: { 200: envelope(CompanyStatsSchema) },
  }),
  async (c) => ok(c, await companyStats(c.var.tenant, c.req.valid('query'))),
);

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/view/{id}',
    operationId: 'viewCompany',
    tags,
    summary: 'One company',
    description: 'One live company of the organization. A deleted company, or one of another organization, is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(CompanySchema) },
  }),
  async (c) => ok(c, await readCompany(c.var.tenant, c.req.valid('param').id)),
);

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/similar/{id}',
    operationId: 'similarCompanies',
    tags,
    summary: 'The organization’s companies most like this one, with a score and the reasons',
    description:
      'Ranks the organization’s other live companies by similarity to this one: same industry 3 points, same employee_size band 2 (adjacent band 1), same country 1, each shared technology 1 (at most 3), each shared summary keyword 0.5 (at most 1); score = points / 10. Companies scoring 0 are left out; each result lists why it matched.',
    auth: 'bearer',
    request: { params: idParam(), query: SimilarQuery },
    responses: {
      200: listEnvelope(SimilarCompanySchema, 'Similar companies', {
        whole: true,
        rows: 'Most similar first (at most `limit`)',
      }),
    },
  }),
  async (c) => {
    const { limit } = c.req.valid('query');
    return list(c, wholeList(await similarCompanies(c.var.tenant, c.req.valid('param').id, limit), limit));
  },
);

/** Company add and update take the same body as JSON or as a multipart form (with a logo file). */
const jsonOrForm = <J extends z.ZodType, F extends z.ZodType>(json: J, form: F) => ({
  required: true as const,
  content: { 'application/json': { schema: json }, 'multipart/form-data': { schema: form } },
});

const logoTooLarge = {
  description: `Logo larger than ${MAX_UPLOAD_MB} MB`,
  content: { 'application/json': { schema: ErrorEnvelope } },
};

companyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/company/add',
    operationId: 'addCompany',
    tags,
    summary: 'Create a company from JSON, or from a multipart form with an optional logo image',
    description: `Creates a company. The body is JSON (\`company_logo\` an http/https URL, \`technologies\` a list) or a multipart form (\`company_logo\` an image file or a URL, \`technologies\` a comma-separated text); any other Content-Type is a 415. \`company_name\` is required. An uploaded \`company_logo\` (PNG, JPEG, GIF or WebP by content, at most ${MAX_UPLOAD_MB} MB) is stored with the organization's files, and \`company_logo\` in the answer is its download URL. \`website\` is normalised to \`website_domain\`; \`employee_size\` must be one of the bands; \`rating\` 1 to 5; \`assigned_to\` a user of the organization (422 naming the field otherwise). A live company with the same name (any letter case) is a 409 \`duplicate_company\`.`,
    auth: 'bearer',
    request: {
      body: jsonOrForm(AddCompanyBody, AddCompanyForm),
    },
    responses: {
      201: envelope(CompanySchema, 'Company created'),
      409: duplicateCompany,
      413: logoTooLarge,
    },
  }),
  async (c) =>
    created(
      c,
      await addCompany(c.var.tenant, c.env.FILES, sentAsForm(c) ? c.req.valid('form') : c.req.valid('json')),
      'Company created',
    ),
);

companyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/company/update/{id}',
    operationId: 'updateCompany',
    tags,
    summary: 'Update a company: any company field',
    description: `Changes a company: only the fields sent change; null (in a form: an empty field) clears a clearable one. The body is JSON (\`company_logo\` an http/https URL) or a multipart form (\`company_logo\` an image file, at most ${MAX_UPLOAD_MB} MB, stored with the organization's files, or a URL); any other Content-Type is a 415. The same rules as on add apply (422), and a new name must stay unique (409 \`duplicate_company\`). A field a person sets stops counting as enriched (its \`enrichment\` entry is removed).`,
    auth: 'bearer',
    request: {
      params: idParam(),
      body: jsonOrForm(UpdateCompanyBody, UpdateCompanyForm),
    },
    responses: {
      200: envelope(CompanySchema, 'Company updated'),
      409: duplicateCompany,
      413: logoTooLarge,
    },
  }),
  async (c) =>
    ok(
      c,
      await updateCompany(
        c.var.tenant,
        c.env.FILES,
        c.req.valid('param').id,
        sentAsForm(c) ? c.req.valid('form') : c.req.valid('json'),
      ),
      'Company updated',
    ),
);

companyRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/company/delete/{id}',
    operationId: 'deleteCompany',
    tags,
    summary: 'Soft-delete one company; its contacts and leads keep their link and history',
    description:
      'Soft-deletes a company: it leaves lists, views and stats, and its name becomes free again. Its contacts and leads are not changed (they keep their company_id and company name). A company with open deals (deals of its linked leads whose outcome is open) is refused with 409 `company_has_open_deals` unless `force=true`; its deals are never changed.',
    auth: 'bearer',
    // One statement that stands alone (a refused delete writes nothing): no BEGIN/COMMIT around it.
    transaction: false,
    request: { params: idParam(), query: DeleteCompanyQuery },
    responses: { 200: envelope(DeletedId, 'Company deleted'), 409: companyHasOpenDeals },
  }),
  async (c) =>
    ok(
      c,
      await deleteCompany(c.var.tenant, c.req.valid('param').id, c.req.valid('query').force === true),
      'Company deleted',
    ),
);

companyRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/company/delete',
    operationId: 'deleteCompanies',
    tags,
    summary: 'Soft-delete companies by ids, or select_all with the list filters',
    description:
      'Soft-deletes companies in one statement: explicit `ids` (unknown, deleted and other organizations’ ids change nothing), or `select_all: true` with optional `filters` (the list filters). Contacts and leads keep their link and history. `data.deleted` counts the companies this request deleted. When any targeted company has open deals the request is refused whole with 409 `company_has_open_deals` (`error.details.company_ids`) unless `force: true`.',
    auth: 'bearer',
    // One statement that stands alone (a refused delete writes nothing): no BEGIN/COMMIT around it.
    transaction: false,
    request: { body: jsonBody(DeleteCompaniesBody) },
    responses: { 200: envelope(DeletedCount, 'Companies deleted'), 409: companyHasOpenDeals },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const deleted = await deleteCompanies(c.var.tenant, body, body.force === true);
    return ok(c, { deleted }, `${deleted} compan${deleted === 1 ? 'y' : 'ies'} deleted`);
  },
);

companyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/company/enrich',
    operationId: 'enrichCompany',
    tags,
    summary: 'Fill a company’s empty firmographic fields from the organization’s own data (asynchronous)',
    description:
      'Queues an enrichment job and answers 202 with it; follow it at GET /api/company/enrich/{id}. The job fills only EMPTY fields (website, industry_type, country, city, employee_size) from what can be derived offline: the company’s domain (website, else contact email, else the work-email domain of its linked leads and contacts) and the organization’s leads and contacts at that domain or linked to the company (most common industry, country and city; headcount hints in lead custom fields). Each filled value’s source is recorded in the company’s `enrichment`; a field nothing supports stays empty and the result says why.',
    auth: 'bearer',
    request: { body: jsonBody(EnrichCompanyBody) },
    responses: { 202: envelope(EnrichmentJobSchema, 'Enrichment queued') },
  }),
  async (c) => accepted(c, await startEnrichment(c.var.tenant, c.req.valid('json').company_id), 'Enrichment queued'),
);

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/enrich/{id}',
    operationId: 'viewCompanyEnrichmentJob',
    tags,
    summary: 'An enrichment job: status, progress and result',
    description:
      'The enrichment job with its status, progress (fields evaluated) and, once completed, its result: the fields filled with their source, the fields kept because they had a value, and the fields left empty with the reason.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(EnrichmentJobSchema) },
  }),
  async (c) => ok(c, await readEnrichmentJob(c.var.tenant, c.req.valid('param').id)),
);

/** 409 on restore: a live company has the name or CRM record of a company to restore, or two of them share one. */
const restoreConflict = restoreConflictResponse(COMPANY_NOUNS, {
  code: 'duplicate_company',
  holder: 'company_id',
  fields: ['company_name', 'external_id'],
  keys: 'name (any letter case) or CRM record',
  example: { id: 4, company_id: 8, field: 'company_name' },
});

companyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/company/deleted',
    operationId: 'listDeletedCompanies',
    tags,
    summary: 'Deleted companies, to find one to restore',
    description:
      'The organization’s soft-deleted companies, with the standard list parameters and `deleted_at`. `order_by` is `id` (default), `deleted_at` or `created_at`; `search_value` matches the name, website domain, industry, city and country (a substring, any case); `start_date`/`end_date` bound the creation date. `POST /api/company/restore` brings one back. Deleted companies are kept: nothing purges them.',
    auth: 'bearer',
    request: { query: DeletedCompanyListQuery },
    responses: { 200: listEnvelope(DeletedCompanySchema, 'Deleted companies') },
  }),
  async (c) => list(c, await listDeletedCompanies(c.var.tenant, c.req.valid('query')), 'Deleted companies'),
);

companyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/company/restore',
    operationId: 'restoreCompanies',
    tags,
    summary: 'Restore deleted companies by id (409 duplicate_company when a live company now has one’s name)',
    description:
      "Brings soft-deleted companies back to lists, views, stats, top accounts, account health and similarity, each with a `restored` feed entry; their leads, contacts and deals kept their link through the delete. Live, unknown and other organizations' ids change nothing; `data.restored` counts the companies this request restored. A company's name and CRM record became free when it was deleted: when a live company now has one of them (the name in any letter case), or two of the companies to restore share one, nothing is restored and the answer is 409 `duplicate_company`, naming the first clash in `error.details` (`id` the company to restore, `company_id` the one holding the key, `field`) and every clash in `error.details.clashes`.",
    auth: 'bearer',
    // One statement that stands alone.
    transaction: false,
    request: { body: jsonBody(RestoreCompaniesBody) },
    responses: {
      200: restoredAnswer(COMPANY_NOUNS),
      409: restoreConflict,
    },
  }),
  async (c) => {
    const restored = await restoreCompanies(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { restored }, `${restored} compan${restored === 1 ? 'y' : 'ies'} restored`);
  },
);
