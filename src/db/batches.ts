/**
 * Work over many rows, a bounded batch at a time (the cron's sweeps): each round is one short
 * statement or transaction, so no sweep holds long locks, and the rounds stop at the first batch
 * that was not full, or after `maxBatches` (the next run goes on from there).
 */
export async function inBatches(round: () => Promise<number>, batch: number, maxBatches: number): Promise<number> {
  let done = 0;
  for (let n = 0; n < maxBatches; n++) {
    const count = await round();
    done += count;
    if (count < batch) break;
  }
  return done;
}
