/**
 * Deals: list (lead, pipeline, stage and date filters), add, update (stage moves recorded),
 * delete, and one deal with its stage history.
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AddDealBody, DealView, DealWithHistory, DeleteDealsBody, UpdateDealBody } from './schemas';
import { addDeal, DealListQuery, deleteDeals, listDeals, updateDeal, viewDeal } from './service';

export const dealRoutes = createRouter();
const tags = ['Deals'];

dealRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/deal/list',
    operationId: 'listDeals',
    tags,
    summary: 'Deals, filtered by lead, pipeline, stage (status) and creation date',
    description:
      'Deals of the organization. `lead_id`, `pipeline_id` and `status` (a stage id) filter; `start_date`/`end_date` bound the creation date; `search_value` matches the title.',
    auth: 'bearer',
    request: { query: DealListQuery },
    responses: { 200: listEnvelope(DealView) },
  }),
  async (c) => list(c, await listDeals(c.var.tenant, c.req.valid('query'))),
);

dealRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/deal/view/{id}',
    operationId: 'viewDeal',
    tags,
    summary: 'One deal with its stage history',
    description: 'One deal with every stage change (from, to, when, who, days spent in the stage left), oldest first.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DealWithHistory, 'Deal') },
  }),
  async (c) => ok(c, await viewDeal(c.var.tenant, c.req.valid('param').id), 'Deal'),
);

dealRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/deal/add',
    operationId: 'addDeal',
    tags,
    summary: 'Create a deal on a lead in a stage of a pipeline',
    description:
      'Creates a deal. The lead, pipeline and stage must be the organization’s (404 otherwise) and the stage inside the pipeline (422 `stage_id`); a value above the pipeline’s `max_deal_limit` is a 422 `value`, and an inactive pipeline (state_id 0) takes no new deals (422 `pipeline_id`). Creating it in a won or lost stage closes it at once. The creation is the first row of its stage history, and its forecast snapshot is recorded.',
    auth: 'bearer',
    request: { body: jsonBody(AddDealBody) },
    responses: { 201: envelope(DealView, 'Deal created') },
  }),
  async (c) => created(c, await addDeal(c.var.tenant, c.req.valid('json'), new Date()), 'Deal created'),
);

dealRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/deal/update/{id}',
    operationId: 'updateDeal',
    tags,
    summary: 'Change a deal; a new stage_id moves it (recorded), a won or lost stage closes it',
    description:
      'Changes the fields sent. A new `stage_id` moves the deal: the move is recorded in its stage history with the time spent in the stage left; moving into the won or lost stage sets `closed_at` and `outcome`, moving out of it reopens the deal; a closed deal moved to a stage of the same outcome (another pipeline’s won stage) keeps its `closed_at`. A new `pipeline_id` requires a `stage_id` of that pipeline (how deals are moved before a pipeline is deleted). The same reference rules as on create apply. A `value` different from the deal’s, and a deal moved into another pipeline with its value, must be within that pipeline’s `max_deal_limit` (422 `value`); a deal above a lowered limit stays in its pipeline and is still moved between its stages and edited, its unchanged `value` sent back included. The forecast snapshot is recorded.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateDealBody) },
    responses: { 200: envelope(DealView, 'Deal updated') },
  }),
  async (c) =>
    ok(c, await updateDeal(c.var.tenant, c.req.valid('param').id, c.req.valid('json'), new Date()), 'Deal updated'),
);

dealRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/lead/deal/delete',
    operationId: 'deleteDeals',
    tags,
    summary: 'Delete deals by id; unknown ids and other organizations’ ids change nothing',
    description:
      'Deletes deals for good, with their stage history and forecast snapshots. Unknown ids and other organizations’ ids change nothing; `data.deleted` counts the deals deleted.',
    auth: 'bearer',
    // One statement (the delete with its feed entries, atomic alone): no transaction around it.
    transaction: false,
    request: { body: jsonBody(DeleteDealsBody) },
    responses: {
      200: envelope(
        z
          .object({ deleted: z.number().int().openapi({ description: 'How many deals this request deleted' }) })
          .openapi({ description: 'The outcome' }),
        'Deals deleted',
      ),
    },
  }),
  async (c) => {
    const deleted = await deleteDeals(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { deleted }, `${deleted} deal${deleted === 1 ? '' : 's'} deleted`);
  },
);
