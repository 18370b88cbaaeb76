// `--only rtt`: sequential database round trips per request. Each route's median latency is
// measured with the delay proxy forwarding at once and with it holding every chunk for rtt/2 ms
// each way; the difference divided by the rtt is the number of round trips the request waits
// for in turn (statements pipelined in one round trip count once). Budgets from issue 6.
import { expectOk, median, round, timeOne } from './bench-measure.mjs';

export const ROUND_TRIP_BUDGETS = { health: 2, view: 3, list: 3, add: 5 };

export async function measureRoundTrips(stack, { rttMs, requests, warmup, log, deadline }) {
  const { api, proxy } = stack;
  const { token } = await stack.signup(`Bench round trips ${Date.now()}`);
  let added = 0;
  const addLead = () =>
    api('POST', '/api/lead/add', {
      token,
      json: {
        first_name: 'Round',
        last_name: `Trip ${++added}`,
        email: `rtt-${added}-${Date.now()}@example.com`,
        company: 'Bench Round Trip Company',
      },
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
  for (const { key, route, request } of routes) {
    deadline(`measuring round trips of ${route}`);
    // Untimed warm-up in both modes, then the two alternate request by request, so a change
    // in the machine's load during the run weighs on both medians alike.
    for (const ms of [0, rttMs]) {
      proxy.setRtt(ms);
      for (let i = 0; i < warmup; i++) await timeOne(route, request);
    }
    proxy.resetApplied();
    const directTimes = [];
    const delayedTimes = [];
    for (let i = 0; i < requests; i++) {
      proxy.setRtt(0);
      directTimes.push(await timeOne(route, request));
      proxy.setRtt(rttMs);
      delayedTimes.push(await timeOne(route, request));
    }
    proxy.setRtt(0);
    const direct = median(directTimes);
    const delayed = median(delayedTimes);
    // The proxy's timers fire a little late (more so on a loaded machine), so the round trip
    // really added is a bit over rttMs; dividing by it keeps that slack out of the count.
    const applied = proxy.appliedRttMs() ?? rttMs;
    const implied = round((delayed - direct) / applied, 1);
    const budget = ROUND_TRIP_BUDGETS[key];
    results[key] = {
      route,
      median_ms_direct: round(direct, 1),
      median_ms_delayed: round(delayed, 1),
      applied_rtt_ms: round(applied, 2),
      implied_round_trips: implied,
      implied_round_trips_at_nominal_rtt: round((delayed - direct) / rttMs, 1),
      // Round trips come in whole numbers (test/round-trips.test.ts counts the statements exactly);
      // the tenth left over is the proxy's and the event loop's scheduling, the same on every route.
      whole_round_trips: Math.round(implied),
      budget,
      within_budget: Math.round(implied) <= budget,
    };
    log(
      `${route}: ${round(direct, 1)} ms direct, ${round(delayed, 1)} ms at ${rttMs} ms rtt: ${implied} round trips at the applied ${round(applied, 1)} ms (budget ${budget})`,
    );
  }
  return {
    rtt_ms: rttMs,
    requests_per_median: requests,
    routes: results,
  };
}
