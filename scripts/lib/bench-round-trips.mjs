// `--only rtt`: sequential database round trips per request. Each route's median latency is
// measured with the delay proxy forwarding at once and then holding every chunk for rtt/2 ms
// each way; the difference divided by the rtt is the number of round trips the request waits
// for in turn (statements pipelined in one round trip count once). Budgets from issue 6.
import { expectOk, medianLatency, round } from './bench-measure.mjs';

export const ROUND_TRIP_BUDGETS = { health: 2, view: 3, list: 3, add: 5 };

export async function measureRoundTrips(stack, { rttMs, requests, warmup, log, deadline }) {
  const { api, proxy } = stack;
  const { token } = await stack.signup(`Bench round trips ${Date.now()}`);
  let added = 0;
  const addLead = () =>
    api('POST', '/api/lead/add', {
      token,
      json: { first_name: 'Round', last_name: `Trip ${++added}`, email: `rtt-${added}-${Date.now()}@example.com`, company: 'Bench Round Trip Company' },
    });
  // A few leads so the list has a page to show and the view a lead to read.
  let viewId = null;
  for (let i = 0; i < 5; i++) viewId = JSON.parse(await expectOk('seeding leads', addLead)).data.id;

  const routes = [
    { key: 'health', route: 'GET /api/health', request: () => api('GET', '/api/health') },
    { key: 'view', route: 'GET /api/lead/view/:id', request: () => api('GET', `/api/lead/view/${viewId}`, { token }) },
    { key: 'list', route: 'GET /api/lead/list', request: () => api('GET', '/api/lead/list', { token }) },
    { key: 'add', route: 'POST /api/lead/add (with company)', request: addLead },
  ];
  const results = {};
  let appliedTotal = 0;
  let appliedRuns = 0;
  for (const { key, route, request } of routes) {
    deadline(`measuring round trips of ${route}`);
    proxy.setRtt(0);
    const direct = await medianLatency(route, request, { count: requests, warmup });
    proxy.setRtt(rttMs);
    const delayed = await medianLatency(route, request, { count: requests, warmup: Math.min(warmup, 2) });
    const applied = proxy.appliedRttMs();
    proxy.setRtt(0);
    if (applied != null) {
      appliedTotal += applied;
      appliedRuns++;
    }
    const implied = round((delayed - direct) / rttMs, 1);
    const budget = ROUND_TRIP_BUDGETS[key];
    results[key] = {
      route,
      median_ms_direct: round(direct, 1),
      median_ms_delayed: round(delayed, 1),
      implied_round_trips: implied,
      budget,
      within_budget: implied <= budget,
    };
    log(`${route}: ${round(direct, 1)} ms direct, ${round(delayed, 1)} ms at ${rttMs} ms rtt: ${implied} round trips (budget ${budget})`);
  }
  return {
    rtt_ms: rttMs,
    // The round trip the proxy's timers really applied (they fire a little late); the implied
    // counts divide by rtt_ms, so they read high by about applied/rtt - 1.
    applied_rtt_ms: appliedRuns ? round(appliedTotal / appliedRuns, 2) : null,
    requests_per_median: requests,
    routes: results,
  };
}
