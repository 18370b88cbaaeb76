/**
 * Pipelines and stages: the default pipeline from signup with protected Won and Lost stages,
 * creating pipelines with stages (one won, one lost, dense positions), updating the stage list,
 * deleting (refused while deals remain), and the stage board with deal count and value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { addDeal, addPipeline, defaultPipeline, type StageRow } from './helpers/deals';
import { statementsOf } from './helpers/statements';

describe('pipelines', () => {
  let owner: SignedUp;
  let other: SignedUp;

  beforeAll(async () => {
    [owner, other] = await Promise.all([signupOrganization('Pipelines'), signupOrganization('Other')]);
  });

  const add = (body: unknown, who: SignedUp = owner) => call('POST', '/api/pipelines/add', { token: who.token, body });
  const update = (id: number, body: unknown, who: SignedUp = owner) =>
    call('PUT', `/api/pipelines/update/${id}`, { token: who.token, body });
  const stagesOf = (id: number, who: SignedUp = owner) =>
    call('GET', `/api/pipelines/stages/${id}`, { token: who.token });

  it('signup seeds one default pipeline whose Won and Lost stages are protected', async () => {
    const list = await call('GET', '/api/pipelines/list', { token: owner.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({ name: 'Sales pipeline', is_default: true, state_id: 1, stage_count: 6 });
    const { stages } = await defaultPipeline(owner);
    expect(stages.map((stage) => [stage.name, stage.position, stage.probability, stage.is_protected])).toEqual([
      ['Prospecting', 0, 0.1, false],
      ['Qualification', 1, 0.25, false],
      ['Proposal', 2, 0.5, false],
      ['Negotiation', 3, 0.75, false],
      ['Won', 4, 1, true],
      ['Lost', 5, 0, true],
    ]);
    expect(stages.find((stage) => stage.name === 'Won')).toMatchObject({ is_won: true, is_lost: false });
    expect(stages.find((stage) => stage.name === 'Lost')).toMatchObject({ is_won: false, is_lost: true });
  });

  it('creates a pipeline with its stages, renumbering positions densely in the order asked', async () => {
    const response = await add({
      name: 'Enterprise',
      description: 'Big accounts',
      max_deal_limit: 50000,
      region: 'EMEA',
      stages: [
        { name: 'Closed', is_won: true, position: 30 },
        { name: 'Demo', position: 10, probability: 0.3, max_days_in_stage: 7, color: '#123456' },
        { name: 'Discovery', position: 0, probability: 0.1 },
        { name: 'Dropped', is_lost: true, position: 40 },
      ],
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Enterprise',
      description: 'Big accounts',
      max_deal_limit: 50000,
      region: 'EMEA',
      state_id: 1,
      is_default: false,
      stage_count: 4,
    });
    expect(response.body.data.stages.map((stage: StageRow) => [stage.name, stage.position, stage.probability])).toEqual(
      [
        ['Discovery', 0, 0.1],
        ['Demo', 1, 0.3],
        ['Closed', 2, 1],
        ['Dropped', 3, 0],
      ],
    );
    expect(response.body.data.stages[1]).toMatchObject({ max_days_in_stage: 7, color: '#123456', is_protected: false });
  });

  it('gives a pipeline added without stages the default stages, none protected', async () => {
    const response = await add({ name: 'Partners' });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.stages).toHaveLength(6);
    expect(response.body.data.stages.every((stage: StageRow) => !stage.is_protected)).toBe(true);
  });

  it('refuses an empty stage list on add as update does (422 stages): a pipeline without stages could hold no deal', async () => {
    const empty = await add({ name: 'No stages', stages: [] });
    expectFailure(empty, 422, 'validation_error');
    expect(empty.body.error).toMatchObject({ code: 'stages', message: 'stages: a pipeline keeps at least one stage' });
    const listed = await call('GET', '/api/pipelines/list', {
      token: owner.token,
      query: { search_value: 'No stages', limit: 100 },
    });
    expect(listed.body.data).toEqual([]);
    const kept = await addPipeline(owner, { name: 'One stage', stages: [{ name: 'Only' }] });
    const emptied = await update(kept.id, { stages: [] });
    expectFailure(emptied, 422, 'validation_error');
    expect(emptied.body.error.message).toBe(empty.body.error.message);
  });

  it('refuses a short name, two won or lost stages, a stage both won and lost, a bad probability (422 naming the field)', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'A' }, 'name'],
      [{}, 'name'],
      [{ name: 'Ok', state_id: 2 }, 'state_id'],
      [{ name: 'Ok', max_deal_limit: 0 }, 'max_deal_limit'],
      [
        {
          name: 'Ok',
          stages: [
            { name: 'W1', is_won: true },
            { name: 'W2', is_won: true },
          ],
        },
        'stages',
      ],
      [
        {
          name: 'Ok',
          stages: [
            { name: 'L1', is_lost: true },
            { name: 'L2', is_lost: true },
          ],
        },
        'stages',
      ],
      [{ name: 'Ok', stages: [{ name: 'Both', is_won: true, is_lost: true }] }, 'stages.0.is_won'],
      [{ name: 'Ok', stages: [{ name: 'S', probability: 1.5 }] }, 'stages.0.probability'],
      [{ name: 'Ok', stages: [{ name: 'S', probability: -0.1 }] }, 'stages.0.probability'],
      [{ name: 'Ok', stages: [{ name: 'W', is_won: true, probability: 0.5 }] }, 'stages.0.probability'],
      [{ name: 'Ok', stages: [{ name: '' }] }, 'stages.0.name'],
      [{ name: 'Ok', stages: [{ name: 'S', max_days_in_stage: 0 }] }, 'stages.0.max_days_in_stage'],
    ];
    for (const [body, field] of cases) {
      const response = await add(body);
      expectFailure(response, 422, 'validation_error');
      expect(response.body.error.code, JSON.stringify(body)).toBe(field);
    }
  });

  it('updates fields and the stage list: renames, reorders, adds and removes stages, positions dense', async () => {
    const pipeline = await addPipeline(owner, {
      name: 'Editable',
      stages: [{ name: 'One' }, { name: 'Two' }, { name: 'Three' }, { name: 'Won', is_won: true }],
    });
    const [one, two, three, won] = pipeline.stages;
    const response = await update(pipeline.id, {
      name: 'Edited',
      state_id: 0,
      region: 'APAC',
      stages: [
        { id: three.id, name: 'Third first' },
        { name: 'New', probability: 0.6 },
        { id: one.id },
        { id: won.id },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ name: 'Edited', state_id: 0, region: 'APAC', stage_count: 4 });
    expect(response.body.data.stages.map((stage: StageRow) => [stage.name, stage.position])).toEqual([
      ['Third first', 0],
      ['New', 1],
      ['One', 2],
      ['Won', 3],
    ]);
    expect(response.body.data.stages.map((stage: StageRow) => stage.id)).not.toContain(two.id);
    const inactive = await call('GET', '/api/pipelines/list', { token: owner.token, query: { state_id: 0 } });
    expect(inactive.body.data.map((row: { id: number }) => row.id)).toEqual([pipeline.id]);
  });

  it('refuses renaming, re-flagging or removing a protected stage with 409 saying so', async () => {
    const pipeline = await defaultPipeline(owner);
    const won = pipeline.stages.find((stage) => stage.is_won) as StageRow;
    const keepAll = pipeline.stages.map((stage) => ({ id: stage.id }));
    const attempts = [
      keepAll.map((stage) => (stage.id === won.id ? { id: won.id, name: 'Closed won' } : stage)),
      keepAll.map((stage) => (stage.id === won.id ? { id: won.id, is_won: false } : stage)),
      keepAll.filter((stage) => stage.id !== won.id),
    ];
    for (const stages of attempts) {
      const response = await update(pipeline.id, { stages });
      expectFailure(response, 409, 'conflict');
      expect(response.body.error.code).toBe('stage_protected');
      expect(response.body.error.message).toContain('"Won" is protected');
    }
    // Its color, probability-free fields and position may change.
    const moved = await update(pipeline.id, {
      stages: keepAll.map((stage) => (stage.id === won.id ? { id: won.id, color: '#000000' } : stage)),
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.stages.find((stage: StageRow) => stage.id === won.id)).toMatchObject({
      name: 'Won',
      color: '#000000',
      is_protected: true,
    });
  });

  it('refuses removing or re-flagging a stage that holds deals (409), and unknown stage ids (422)', async () => {
    const pipeline = await addPipeline(owner, { name: 'Busy', stages: [{ name: 'A' }, { name: 'B' }] });
    await addDeal(owner, pipeline);
    const removal = await update(pipeline.id, { stages: [{ id: pipeline.stages[1].id }] });
    expectFailure(removal, 409, 'conflict');
    expect(removal.body.error.code).toBe('stage_has_deals');
    const reflag = await update(pipeline.id, {
      stages: [{ id: pipeline.stages[0].id, is_won: true }, { id: pipeline.stages[1].id }],
    });
    expect(reflag.body.error.code).toBe('stage_has_deals');
    const unknown = await update(pipeline.id, { stages: [{ id: 99999999 }] });
    expectFailure(unknown, 422, 'validation_error');
    expect(unknown.body.error.code).toBe('stages.0.id');
    const newWithoutName = await update(pipeline.id, {
      stages: [{ id: pipeline.stages[0].id }, { id: pipeline.stages[1].id }, {}],
    });
    expect(newWithoutName.body.error.code).toBe('stages.2.name');
  });

  it('lists stages in position order with deal count and total value, in one statement', async () => {
    const pipeline = await addPipeline(owner, { name: 'Board', stages: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] });
    await addDeal(owner, pipeline, { value: 100 });
    await addDeal(owner, pipeline, { value: 250.5 });
    await addDeal(owner, pipeline, { stage_id: pipeline.stages[2].id, value: 40 });
    const { response, statements } = await statementsOf(() => stagesOf(pipeline.id));
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.map((stage: StageRow) => [stage.name, stage.deal_count, stage.total_value])).toEqual([
      ['A', 2, 350.5],
      ['B', 0, 0],
      ['C', 1, 40],
    ]);
    // The auth check, then the board.
    expect(statements.length).toBeLessThanOrEqual(2);
  });

  it('deletes a pipeline without deals; refuses one with deals until they are moved, and the default one', async () => {
    const empty = await addPipeline(owner, { name: 'Empty' });
    const busy = await addPipeline(owner, { name: 'Has deals', stages: [{ name: 'Only' }] });
    const deal = await addDeal(owner, busy);
    const refused = await call('DELETE', '/api/pipelines/delete', {
      token: owner.token,
      body: { ids: [busy.id, empty.id] },
    });
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'pipeline_has_deals', details: { pipeline_ids: [busy.id] } });
    expect((await stagesOf(empty.id)).status).toBe(200);

    const target = await addPipeline(owner, { name: 'Target', stages: [{ name: 'Landing' }] });
    const moved = await call('POST', `/api/lead/deal/update/${deal.id}`, {
      token: owner.token,
      body: { pipeline_id: target.id, stage_id: target.stages[0].id },
    });
    expect(moved.status, moved.text).toBe(200);
    const deleted = await call('DELETE', '/api/pipelines/delete', {
      token: owner.token,
      body: { ids: [busy.id, empty.id] },
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toEqual({ deleted: 2 });
    expectFailure(await stagesOf(busy.id), 404, 'not_found');

    const main = await defaultPipeline(owner);
    const protectedDelete = await call('DELETE', '/api/pipelines/delete', {
      token: owner.token,
      body: { ids: [main.id] },
    });
    expectFailure(protectedDelete, 409, 'conflict');
    expect(protectedDelete.body.error.code).toBe('pipeline_protected');
  });

  it('keeps other organizations out: 404 on stages and update, nothing deleted', async () => {
    const pipeline = await addPipeline(owner, { name: 'Private' });
    expectFailure(await stagesOf(pipeline.id, other), 404, 'not_found');
    expectFailure(await update(pipeline.id, { name: 'Hijacked' }, other), 404, 'not_found');
    const deleted = await call('DELETE', '/api/pipelines/delete', { token: other.token, body: { ids: [pipeline.id] } });
    expect(deleted.body.data).toEqual({ deleted: 0 });
    const list = await call('GET', '/api/pipelines/list', { token: other.token, query: { limit: 100 } });
    expect(list.body.data.map((row: { id: number }) => row.id)).not.toContain(pipeline.id);
    expect((await stagesOf(pipeline.id)).status).toBe(200);
  });
});

describe('stages and pipelines removed while deals move into them', () => {
  // On PostgreSQL (TEST_DATABASE_URL), before the locks and the mapping, the loser of each race
  // hit a foreign key and answered an anonymous 422 `reference`; PGlite runs one transaction at a
  // time, so there each pair simply runs one after the other.
  it('answer the removal 200 or 409 stage_has_deals and the move 200 or 404, never a foreign-key 422', async () => {
    const owner = await signupOrganization('Stage races');
    const stagesOf = [{ name: 'A' }, { name: 'B' }, { name: 'Won', is_won: true }, { name: 'Lost', is_lost: true }];
    for (let round = 0; round < 5; round++) {
      const pipeline = await addPipeline(owner, { name: `Racing ${round}`, stages: stagesOf });
      const deal = await addDeal(owner, pipeline);
      const b = pipeline.stages.find((stage) => stage.name === 'B') as StageRow;
      const kept = pipeline.stages.filter((stage) => stage !== b).map((stage) => ({ id: stage.id, name: stage.name }));
      const [removal, move] = await Promise.all([
        call('PUT', `/api/pipelines/update/${pipeline.id}`, { token: owner.token, body: { stages: kept } }),
        call('POST', `/api/lead/deal/update/${deal.id}`, { token: owner.token, body: { stage_id: b.id } }),
      ]);
      const view = await call('GET', `/api/lead/deal/view/${deal.id}`, { token: owner.token });
      if (removal.status === 200) {
        expect([move.status, move.body.error?.type]).toEqual([404, 'not_found']);
        expect(view.body.data.stage_id).toBe(pipeline.stages[0].id);
      } else {
        expect([removal.status, removal.body.error?.code, move.status]).toEqual([409, 'stage_has_deals', 200]);
        expect(view.body.data.stage_id).toBe(b.id);
      }

      const doomed = await addPipeline(owner, { name: `Doomed ${round}`, stages: stagesOf });
      const [deletion, entry] = await Promise.all([
        call('DELETE', '/api/pipelines/delete', { token: owner.token, body: { ids: [doomed.id] } }),
        call('POST', `/api/lead/deal/update/${deal.id}`, {
          token: owner.token,
          body: { pipeline_id: doomed.id, stage_id: doomed.stages[0].id },
        }),
      ]);
      if (deletion.status === 200) {
        expect(deletion.body.data.deleted).toBe(1);
        expect([entry.status, entry.body.error?.type]).toEqual([404, 'not_found']);
      } else {
        expect([deletion.status, deletion.body.error?.code, entry.status]).toEqual([409, 'pipeline_has_deals', 200]);
      }
      // Back to the round's pipeline for the next round.
      await call('POST', `/api/lead/deal/update/${deal.id}`, {
        token: owner.token,
        body: { pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id },
      });
    }
  });
});
