// Load on one route with autocannon (npm, programmatic API): a fixed number of connections for a
// fixed duration, each connection sending its next request when the previous answer is in. The
// figures count only the answers the route is meant to give (`expect`: 201 for a create, 302 for
// the redirect, 404 for the unknown-path baseline); any other status, a socket error or a
// timeout is reported beside them, never counted as a fast answer. Redirects are not followed.
import autocannon from 'autocannon';
import { perRequest } from './bench-cpu.mjs';
import { round } from './bench-measure.mjs';

/** The value below which `fraction` of the sorted values lie (nearest rank). */
function percentile(sorted, fraction) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

function run(options, statuses) {
  const latencies = [];
  const instance = autocannon(options);
  // Latency of each expected answer, recorded here rather than from autocannon's histogram,
  // which mixes every status together.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statuses.includes(statusCode)) latencies.push(responseTime);
  });
  return { instance, latencies };
}

/**
 * Drives `base` with `request` ({ method, path, headers, body } or a `setupRequest(req)` that
 * returns the next request: a new URL or body each time). Runs `warmupSeconds` untimed first
 * (isolate start-up, JIT, the cache's first fill), then `seconds` measured. Returns requests/s of
 * expected answers, their p50/p99, and everything else that came back. With `cpuTime` (the
 * stack's reader, bench-cpu.mjs), also `cpu`: CPU milliseconds a request by part over the timed
 * run, every request sent counted (background work the requests caused meanwhile included).
 */
export async function loadRoute(base, request, { expect, connections, seconds, warmupSeconds = 1, cpuTime }) {
  const options = {
    url: base,
    connections,
    // Each request waits for its answer: the bench measures answers, not how deep a queue gets.
    pipelining: 1,
    // A request answered after this counts as a timeout (and is reported), never as a latency.
    timeout: 10,
    requests: [request],
  };
  if (warmupSeconds > 0) await run({ ...options, duration: warmupSeconds }, expect).instance;
  const cpuBefore = cpuTime?.() ?? null;
  const { instance, latencies } = run({ ...options, duration: seconds }, expect);
  const result = await instance;
  const cpu = perRequest(cpuBefore, cpuTime?.() ?? null, result.requests?.total ?? latencies.length);
  latencies.sort((a, b) => a - b);
  const unexpected = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!expect.includes(Number(status))) unexpected[status] = count;
  }
  const elapsed = result.duration || seconds;
  return {
    requests_per_second: round(latencies.length / elapsed, 1),
    p50_ms: round(percentile(latencies, 0.5), 2),
    p99_ms: round(percentile(latencies, 0.99), 2),
    expected_status: expect.join(' or '),
    answered: latencies.length,
    unexpected_statuses: unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
    connections,
    seconds: round(elapsed, 2),
    ...(cpu ? { cpu } : {}),
  };
}
