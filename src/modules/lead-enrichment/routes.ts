/**
 * Lead enrichment (spec "Lead enrichment"): enrich one person now, or many in a job; read a job's
 * progress and per-item results; read the stored profile leads. A lead, job or profile lead of
 * another organization is a 404.
 */
import { accepted, created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { insufficientCreditsResponse } from '../credits';
import { enrichmentConflict, enrichmentUnavailable } from './responses';
import { BulkEnrichBody, EnrichBody, EnrichmentJobSchema, MAX_BULK, ProfileLeadSchema } from './schemas';
import {
  enrichOne,
  listProfileLeads,
  ProfileLeadListQuery,
  readEnrichmentJob,
  readProfileLead,
  startBulkEnrichment,
} from './service';

export const leadEnrichmentRoutes = createRouter();
const tags = ['Lead enrichment'];

leadEnrichmentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead-enrichment/enrich',
    operationId: 'enrichLead',
    description:
      'Enriches one person from at least one of `lead_id`, `email`, `profile_url`, `name`, `company`, `domain` (none: 422) with the organization’s enrichment provider (the local one unless an Apollo key is connected) and stores the result as a profile lead. Every value carries its source and time. With `lead_id` (another organization’s lead: 404), the lead’s own data completes the query, the profile is stored in `ai_information.enrichment`, the lead’s EMPTY job title, industry, website, country, city, state and company (the organization’s own company at the domain) are filled, never a value a person set, a feed entry `enriched` lists the fields filled, and the lead is rescored. Costs the `enrichment_single` price in credits (GET /api/credits/ai-features), reserved before the provider is asked and given back if the enrichment fails; a balance that does not cover it is a 402 `insufficient_credits` and nothing is done. A provider that is down answers 503 with Retry-After; a refused key 409 `connection_needs_reconnect`.',
    tags,
    summary: 'Enrich one person (or a lead) now; store the profile as a profile lead',
    auth: 'bearer',
    // The provider is called before any write, outside a transaction; the writes then commit together.
    transaction: false,
    request: { body: jsonBody(EnrichBody) },
    responses: {
      201: envelope(ProfileLeadSchema, 'The enriched profile'),
      402: insufficientCreditsResponse,
      409: enrichmentConflict,
      503: enrichmentUnavailable,
    },
  }),
  async (c) => created(c, await enrichOne(c.var.tenant, c.env, c.req.valid('json')), 'Enriched'),
);

leadEnrichmentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead-enrichment/enrich/bulk',
    operationId: 'enrichLeadsInBulk',
    description: `Starts a job that enriches up to ${MAX_BULK} people (each with at least one of email, profile_url, name, company, domain; otherwise 422 naming the item) and answers 202 with it. Each item becomes a profile lead; an item that fails is an item error on the job and the others complete. Each item costs the \`enrichment_bulk_item\` price, charged when the job reaches it (refunded if the item fails); a balance that cannot cover every item is a 402 \`insufficient_credits\` and no job is started. A redelivered job message enriches and charges no item twice. Follow it with GET /api/lead-enrichment/job/{jobId}.`,
    tags,
    summary: `Enrich up to ${MAX_BULK} people in a job (202)`,
    auth: 'bearer',
    request: { body: jsonBody(BulkEnrichBody) },
    responses: { 202: envelope(EnrichmentJobSchema, 'The job, queued'), 402: insufficientCreditsResponse },
  }),
  async (c) => accepted(c, await startBulkEnrichment(c.var.tenant, c.req.valid('json')), 'Enrichment queued'),
);

leadEnrichmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead-enrichment/job/{jobId}',
    operationId: 'readLeadEnrichmentJob',
    description:
      'A bulk enrichment job: status, progress (processed, succeeded, failed, percentage) and each finished item’s result (its profile lead, or its error). Another organization’s job is a 404.',
    tags,
    summary: 'A bulk enrichment job’s status, progress and per-item results',
    auth: 'bearer',
    request: { params: idParam('jobId') },
    responses: { 200: envelope(EnrichmentJobSchema, 'The job') },
  }),
  async (c) => ok(c, await readEnrichmentJob(c.var.tenant, c.req.valid('param').jobId)),
);

leadEnrichmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead-enrichment/profile-leads/recent',
    operationId: 'listRecentProfileLeads',
    description:
      'The organization’s profile leads (enriched profiles), newest first by default, with the standard list parameters; `search` (or `search_value`) matches name, email, company or domain.',
    tags,
    summary: 'Recent profile leads (enriched profiles)',
    auth: 'bearer',
    request: { query: ProfileLeadListQuery },
    responses: { 200: listEnvelope(ProfileLeadSchema) },
  }),
  async (c) => list(c, await listProfileLeads(c.var.tenant, c.req.valid('query'))),
);

leadEnrichmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead-enrichment/profile-leads/{id}',
    operationId: 'readProfileLead',
    description: 'One profile lead with every enriched value, its source and time. Another organization’s is a 404.',
    tags,
    summary: 'One profile lead',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(ProfileLeadSchema, 'The profile lead') },
  }),
  async (c) => ok(c, await readProfileLead(c.var.tenant, c.req.valid('param').id)),
);
