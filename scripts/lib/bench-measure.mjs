// Timing primitives of the bench: sequential latency (median) and concurrent throughput over a
// fixed duration. Each request's body is read in full, and only 2xx answers count as done.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const round = (value, digits = 1) =>
  value == null || !Number.isFinite(value) ? null : Number(value.toFixed(digits));

/**
 * Sends `request()` and reads the body; throws on an answer that is not 2xx (or not one of
 * `statuses`, e.g. [302] for a redirect), naming `what`.
 */
export async function expectOk(what, request, statuses = null) {
  const response = await request();
  const text = await response.text();
  const expected = statuses ? statuses.includes(response.status) : response.ok;
  if (!expected) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/** Wall time of one call, its body read. */
export async function timeOne(what, request, statuses = null) {
  const started = performance.now();
  await expectOk(what, request, statuses);
  return performance.now() - started;
}

/**
 * Requests per second that `clients` concurrent loops of `request()` complete in `seconds`
 * (after one untimed request per client). A loop starts no request after the duration ends;
 * the rate divides by the time until the last one finished. Non-2xx answers are counted as
 * failures, not as completed requests, and any failure is reported.
 */
export async function throughput(request, { clients, seconds }) {
  await Promise.all(Array.from({ length: clients }, () => request().then((response) => response.arrayBuffer())));
  let ok = 0;
  let failed = 0;
  let lastStatus = null;
  const started = performance.now();
  const ends = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < ends) {
      try {
        const response = await request();
        await response.arrayBuffer();
        if (response.ok) ok++;
        else {
          failed++;
          lastStatus = response.status;
        }
      } catch (error) {
        failed++;
        lastStatus = error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return {
    requests_per_second: round(ok / elapsed, 1),
    completed: ok,
    failed,
    ...(failed ? { last_failure: lastStatus } : {}),
    seconds: round(elapsed, 2),
  };
}
