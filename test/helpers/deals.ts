/**
 * Pipelines and deals for tests: the default pipeline's stages, a pipeline of given stages, a deal.
 */
import { call, type SignedUp } from './api';
import { createLead } from './leads';

export interface StageRow {
  id: number;
  name: string;
  position: number;
  is_won: boolean;
  is_lost: boolean;
  probability: number;
  max_days_in_stage: number | null;
  is_protected: boolean;
  deal_count?: number;
  total_value?: number;
}

export async function defaultPipeline(owner: SignedUp): Promise<{ id: number; stages: StageRow[] }> {
  const pipelines = await call('GET', '/api/pipelines/list', { token: owner.token, query: { limit: 100 } });
  if (pipelines.status !== 200) throw new Error(`pipelines: ${pipelines.status} ${pipelines.text}`);
  const pipeline = (pipelines.body.data as { id: number; is_default: boolean }[]).find((row) => row.is_default);
  if (!pipeline) throw new Error('no default pipeline');
  const stages = await call('GET', `/api/pipelines/stages/${pipeline.id}`, { token: owner.token });
  return { id: pipeline.id, stages: stages.body.data };
}

export async function addPipeline(owner: SignedUp, body: Record<string, unknown>) {
  const response = await call('POST', '/api/pipelines/add', { token: owner.token, body });
  if (response.status !== 201) throw new Error(`pipeline add: ${response.status} ${response.text}`);
  return response.body.data as { id: number; stages: StageRow[] };
}

export async function addDeal(
  owner: SignedUp,
  pipeline: { id: number; stages: StageRow[] },
  overrides: Record<string, unknown> = {},
) {
  const leadId = (overrides.lead_id as number | undefined) ?? (await createLead(owner));
  const response = await call('POST', '/api/lead/deal/add', {
    token: owner.token,
    body: {
      lead_id: leadId,
      pipeline_id: pipeline.id,
      stage_id: pipeline.stages[0].id,
      title: 'Annual licence',
      value: 1000,
      expected_close_date: '2026-12-31',
      ...overrides,
    },
  });
  if (response.status !== 201) throw new Error(`deal add: ${response.status} ${response.text}`);
  return response.body.data as { id: number; lead_id: number; stage_id: number; pipeline_id: number; value: number };
}
