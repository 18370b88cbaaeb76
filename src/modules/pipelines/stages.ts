/**
 * The rules of a pipeline's stages, checked before any write: at most one won and one lost
 * stage, never both flags on one stage, a won stage at probability 1 and a lost one at 0,
 * positions renumbered dense (0, 1, 2 …) in the order given; protected stages keep their name
 * and flags and stay; a stage holding deals keeps its flags and stays.
 */
import { Conflict, ValidationFailed } from '../../core/errors';
import type { StageChangeValue, StageInputValue } from './schemas';

export interface PlannedStage {
  /** Absent: a new stage. */
  id?: number;
  name: string;
  color: string | null;
  position: number;
  isWon: boolean;
  isLost: boolean;
  probability: number;
  maxDaysInStage: number | null;
}

export interface CurrentStage {
  id: number;
  name: string;
  color: string | null;
  position: number;
  isWon: boolean;
  isLost: boolean;
  probability: number;
  maxDaysInStage: number | null;
  isProtected: boolean;
  dealCount: number;
}

/** Default probability of a stage: 1 won, 0 lost, 0.5 otherwise. */
function defaultProbability(isWon: boolean, isLost: boolean): number {
  return isWon ? 1 : isLost ? 0 : 0.5;
}

type Draft = Omit<PlannedStage, 'position'> & { requested: number | undefined; index: number };

/** Checks the flags of the whole list and gives each stage its dense position. */
function finish(drafts: Draft[]): PlannedStage[] {
  let won = 0;
  let lost = 0;
  drafts.forEach((stage, index) => {
    const at = `stages.${index}`;
    if (stage.isWon && stage.isLost)
      throw ValidationFailed.field(`${at}.is_won`, 'a stage cannot be both won and lost');
    if (stage.isWon && stage.probability !== 1)
      throw ValidationFailed.field(`${at}.probability`, 'a won stage has probability 1');
    if (stage.isLost && stage.probability !== 0)
      throw ValidationFailed.field(`${at}.probability`, 'a lost stage has probability 0');
    if (stage.isWon) won++;
    if (stage.isLost) lost++;
  });
  if (won > 1) throw ValidationFailed.field('stages', 'a pipeline has at most one won stage');
  if (lost > 1) throw ValidationFailed.field('stages', 'a pipeline has at most one lost stage');
  const ordered = [...drafts].sort((a, b) => (a.requested ?? a.index) - (b.requested ?? b.index) || a.index - b.index);
  return ordered.map(({ requested: _requested, index: _index, ...stage }, position) => ({ ...stage, position }));
}

/** The stages of a new pipeline. */
export function planNewStages(inputs: StageInputValue[]): PlannedStage[] {
  return finish(
    inputs.map((input, index) => ({
      name: input.name,
      color: input.color ?? null,
      isWon: input.is_won,
      isLost: input.is_lost,
      probability: input.probability ?? defaultProbability(input.is_won, input.is_lost),
      maxDaysInStage: input.max_days_in_stage ?? null,
      requested: input.position,
      index,
    })),
  );
}

/** The stages after an update that lists them all, and the ids it removes. */
export function planStageChanges(
  current: CurrentStage[],
  changes: StageChangeValue[],
): { planned: PlannedStage[]; removed: number[] } {
  const byId = new Map(current.map((stage) => [stage.id, stage]));
  const kept = new Set<number>();
  const drafts = changes.map((change, index): Draft => {
    const at = `stages.${index}`;
    if (change.id === undefined) {
      if (change.name === undefined) throw ValidationFailed.field(`${at}.name`, 'is required for a new stage');
      const isWon = change.is_won ?? false;
      const isLost = change.is_lost ?? false;
      return {
        name: change.name,
        color: change.color ?? null,
        isWon,
        isLost,
        probability: change.probability ?? defaultProbability(isWon, isLost),
        maxDaysInStage: change.max_days_in_stage ?? null,
        requested: change.position,
        index,
      };
    }
    const stage = byId.get(change.id);
    if (!stage) throw ValidationFailed.field(`${at}.id`, `stage ${change.id} is not a stage of this pipeline`);
    if (kept.has(stage.id)) throw ValidationFailed.field(`${at}.id`, `stage ${change.id} is listed twice`);
    kept.add(stage.id);
    const isWon = change.is_won ?? stage.isWon;
    const isLost = change.is_lost ?? stage.isLost;
    const renamed = change.name !== undefined && change.name !== stage.name;
    const reflagged = isWon !== stage.isWon || isLost !== stage.isLost;
    if (stage.isProtected && (renamed || reflagged))
      throw new Conflict(
        `Stage "${stage.name}" is protected: it cannot be renamed or re-flagged (won/lost)`,
        'stage_protected',
      );
    if (reflagged && stage.dealCount > 0)
      throw new Conflict(
        `Stage "${stage.name}" holds ${stage.dealCount} deal(s): move them before changing its won/lost flag`,
        'stage_has_deals',
      );
    const flagsChanged = reflagged && change.probability === undefined;
    return {
      id: stage.id,
      name: change.name ?? stage.name,
      color: change.color === undefined ? stage.color : change.color,
      isWon,
      isLost,
      probability: change.probability ?? (flagsChanged ? defaultProbability(isWon, isLost) : stage.probability),
      maxDaysInStage: change.max_days_in_stage === undefined ? stage.maxDaysInStage : change.max_days_in_stage,
      requested: change.position,
      index,
    };
  });
  const removed = current.filter((stage) => !kept.has(stage.id));
  for (const stage of removed) {
    if (stage.isProtected)
      throw new Conflict(`Stage "${stage.name}" is protected: it cannot be removed`, 'stage_protected');
    if (stage.dealCount > 0)
      throw new Conflict(
        `Stage "${stage.name}" holds ${stage.dealCount} deal(s): move them to another stage before removing it`,
        'stage_has_deals',
      );
  }
  return { planned: finish(drafts), removed: removed.map((stage) => stage.id) };
}
