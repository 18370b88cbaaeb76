/**
 * Global search (spec "Authentication and users": GET /api/user/global-search). The path sits
 * under /api/user for the contract's sake; the search spans every module's records.
 */
import { ok } from '../../core/http';
import { createRouter, defineRoute, envelope } from '../../core/routes';
import { GlobalSearchQuery, GlobalSearchResult } from './schemas';
import { globalSearch } from './service';

export const searchRoutes = createRouter();

searchRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/user/global-search',
    operationId: 'globalSearch',
    tags: ['Search'],
    summary: 'Search the organization’s records (users, and each module’s records as they are added)',
    description:
      "Searches the organization's records for `search_value` (case-insensitive substring) and answers one section per record type (`users`, `leads`), each with at most 10 matches; leads match as `search_value` does on GET /api/lead/list.",
    auth: 'bearer',
    request: { query: GlobalSearchQuery },
    responses: { 200: envelope(GlobalSearchResult) },
  }),
  async (c) => ok(c, await globalSearch(c.var.tenant, c.req.valid('query').search_value)),
);
