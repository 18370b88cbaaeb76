/**
 * Ingestion by API key (spec "Ingestion by API key"): POST /api/v1/lead and
 * GET /api/v1/lead/lead-list, for the organization that owns the `x-api-key`.
 */
import { created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody, listEnvelope } from '../../core/routes';
import { LeadListQuery, listLeads } from '../leads';
import { duplicateLead } from '../leads';
import { duplicateLeadConflict } from '../leads';
import { LeadSchema } from '../leads';
import { IngestedLeadSchema, IngestLeadBody } from './schemas';
import { prefetchedContext, prefetchLeadWriteContext } from './prefetch';
import { ingestLead } from './service';

export const ingestionRoutes = createRouter();
const tags = ['Ingestion by API key'];

ingestionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/lead',
    operationId: 'ingestLead',
    tags,
    summary: 'Create a lead in the key’s organization (409 on a duplicate unless duplicate or merge)',
    description: [
      'Creates a lead in the organization that owns the API key. At least one of `email`, `phone_number`, `profile_url` (422 otherwise). Defaults: `status` 1 (the organization’s first active status when 1 is not an active one; a merge keeps the lead’s status), `priority` 2. `tags` are names: a name the organization has no active tag for is created as a tag lookup. Any field not listed is stored under `custom_fields`. Answers 201 with the lead as stored (score 0).',
      '',
      'A live lead with the same email (any case) or the same profile URL (compared without scheme, query string, fragment and trailing slash, host lower-cased) is a duplicate: 409 `duplicate_lead` with its id in `error.details.lead_id` and the colliding field in `error.details.field`; with `duplicate: 1` the lead is created anyway (flagged as a duplicate of that lead); with `merge: 1` that lead is updated instead (non-empty given fields win, custom_fields merge key by key, tags add up) and the answer is 200 with the whole merged lead. Two identical concurrent submissions create one lead: the other gets the 409.',
      '',
      'Send `Idempotency-Key` when retrying on timeouts: a retry with the same key replays the first answer and creates nothing.',
    ].join('\n'),
    auth: 'apiKey',
    scope: 'leads:write',
    // The batch's read rides on the scope statement (prefetch.ts): a create is then one insert.
    // A merge opens its own transaction.
    transaction: false,
    beforeAuth: [prefetchLeadWriteContext],
    request: { body: jsonBody(IngestLeadBody) },
    responses: {
      201: envelope(IngestedLeadSchema, 'Lead created'),
      200: envelope(LeadSchema, 'merge: 1 and a duplicate existed: the existing lead, updated'),
      409: duplicateLeadConflict,
    },
  }),
  async (c) => {
    const outcome = await ingestLead(c.var.tenant, c.req.valid('json'), {
      context: prefetchedContext(c.var.scopeReadResult),
    });
    // 'existing' only answers onDuplicate 'report' (public submissions); a key's duplicate is a 409.
    if (outcome.kind === 'existing') throw duplicateLead(outcome.leadId);
    return outcome.kind === 'created'
      ? created(c, outcome.lead, 'Lead created')
      : ok(c, outcome.lead, 'Lead merged into the existing lead');
  },
);

ingestionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/lead/lead-list',
    operationId: 'listLeadsByApiKey',
    tags,
    summary: 'Leads of the key’s organization, with the standard list parameters',
    description:
      'Leads of the organization that owns the API key, with the standard list parameters (page or cursor, limit, search_value, order_by, order_in, start_date, end_date) and the same filters as GET /api/lead/list. `search_value` matches first and last name, email, phone number, company and job title.',
    auth: 'apiKey',
    scope: 'leads:read',
    request: { query: LeadListQuery },
    responses: { 200: listEnvelope(LeadSchema) },
  }),
  async (c) => list(c, await listLeads(c.var.tenant, c.req.valid('query'))),
);
