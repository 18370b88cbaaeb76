/**
 * Pipelines and stages: list, add (with stages), update (fields and the full stage list),
 * delete, and the stage board of one pipeline.
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok, wholeList } from '../../core/http';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import {
  AddPipelineBody,
  DeletePipelinesBody,
  PipelineView,
  PipelineWithStages,
  StageWithTotals,
  UpdatePipelineBody,
} from './schemas';
import {
  addPipeline,
  deletePipelines,
  listPipelines,
  PipelineListQuery,
  pipelineStages,
  updatePipeline,
} from './service';

export const pipelineRoutes = createRouter();
const tags = ['Pipelines'];

const stageConflict = conflictResponse(
  'StageConflict',
  'A stage change is refused: the stage is protected (error.code stage_protected) or holds deals (stage_has_deals)',
  [{ code: 'stage_protected' }, { code: 'stage_has_deals' }],
);

const pipelineDeleteConflict = conflictResponse(
  'PipelineDeleteConflict',
  'A pipeline still holds deals (error.code pipeline_has_deals, error.details.pipeline_ids) or is the default pipeline (pipeline_protected)',
  [
    {
      code: 'pipeline_has_deals',
      details: z.object({
        pipeline_ids: z
          .array(z.number().int())
          .openapi({ description: 'The pipelines that still hold deals', example: [3] }),
      }),
      example: { pipeline_ids: [3] },
    },
    { code: 'pipeline_protected' },
  ],
);

pipelineRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/pipelines/list',
    operationId: 'listPipelines',
    tags,
    summary: 'Pipelines of the organization, filtered by state_id',
    description:
      'Pipelines of the organization; `state_id` 1 or 0 keeps active or inactive ones, `search_value` matches the name.',
    auth: 'bearer',
    request: { query: PipelineListQuery },
    responses: { 200: listEnvelope(PipelineView) },
  }),
  async (c) => list(c, await listPipelines(c.var.tenant, c.req.valid('query'))),
);

pipelineRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/pipelines/add',
    operationId: 'addPipeline',
    tags,
    summary: 'Create a pipeline with its stages',
    description:
      'Creates a pipeline and its stages in one request. Without `stages` it gets the default ones (Prospecting 0.1, Qualification 0.25, Proposal 0.5, Negotiation 0.75, Won, Lost). At most one won and one lost stage; a won stage has probability 1, a lost one 0; positions are renumbered 0, 1, 2 … in the order given (`position` first, then list order).',
    auth: 'bearer',
    request: { body: jsonBody(AddPipelineBody) },
    responses: { 201: envelope(PipelineWithStages, 'Pipeline created') },
  }),
  async (c) => created(c, await addPipeline(c.var.tenant, c.req.valid('json')), 'Pipeline created'),
);

pipelineRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/api/pipelines/update/{id}',
    operationId: 'updatePipeline',
    tags,
    summary: 'Change a pipeline’s fields and, with `stages`, its whole stage list',
    description:
      'Changes the fields sent. With `stages`, the list is the pipeline’s stages after the update: existing stages by `id` with their changes, new stages without `id`, and any stage left out is removed. A protected stage (Won and Lost of the default pipeline) cannot be renamed, re-flagged or removed, and a stage holding deals cannot be removed or re-flagged: both are 409s saying which stage.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdatePipelineBody) },
    responses: { 200: envelope(PipelineWithStages, 'Pipeline updated'), 409: stageConflict },
  }),
  async (c) =>
    ok(c, await updatePipeline(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Pipeline updated'),
);

pipelineRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/pipelines/delete',
    operationId: 'deletePipelines',
    tags,
    summary: 'Delete pipelines (refused while they hold deals)',
    description:
      'Deletes pipelines and their stages. Refused as a whole with 409 when one still holds deals (move them first: POST /api/lead/deal/update/{id} with another pipeline_id and stage_id) or is the default pipeline. Unknown ids and other organizations’ ids change nothing; `data.deleted` counts the pipelines deleted.',
    auth: 'bearer',
    request: { body: jsonBody(DeletePipelinesBody) },
    responses: {
      200: envelope(
        z
          .object({ deleted: z.number().int().openapi({ description: 'How many pipelines this request deleted' }) })
          .openapi({ description: 'The outcome' }),
        'Pipelines deleted',
      ),
      409: pipelineDeleteConflict,
    },
  }),
  async (c) => {
    const deleted = await deletePipelines(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { deleted }, `${deleted} pipeline${deleted === 1 ? '' : 's'} deleted`);
  },
);

pipelineRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/pipelines/stages/{id}',
    operationId: 'listPipelineStages',
    tags,
    summary: 'The stages of a pipeline in position order, with deal count and total value',
    description:
      'The stages of a pipeline in position order, each with the number and total value of the deals in it (one statement).',
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: listEnvelope(StageWithTotals, 'Stages', { whole: true, rows: 'The stages in position order' }),
    },
  }),
  async (c) => list(c, wholeList(await pipelineStages(c.var.tenant, c.req.valid('param').id)), 'Stages'),
);
