// `--only rtt`: sequential database round trips per request. Each route's median latency is
// measured with the delay proxy forwarding at once and with it holding every chunk for rtt/2 ms
// each way; the difference divided by the rtt is the number of round trips the request waits
// for in turn (statements pipelined in one round trip count once). Budgets from issue 6 (health,
// view, list, add) and issue 9 (the routes the edge Worker answers or that strangers call: the
// 404 baseline, pixel, redirect, ingestion, availability cold and cached) and issue 17 (confirm:
// its 4 statements, BEGIN to COMMIT, of which BEGIN rides with the next and COMMIT with the write
// (src/db/client.ts), plus the connection's start-up, as health's 1 + 1).
// A route of another branch that answers 404 here is reported `unavailable`.
import { NOT_FOUND_PATH, prepareEdgeFixtures, probe, slotsOf, visitorIp } from './bench-edge-fixtures.mjs';
import { expectOk, median, round, timeOne } from './bench-measure.mjs';

export const ROUND_TRIP_BUDGETS = {
  health: 2,
  view: 3,
  list: 3,
  add: 5,
  not_found: 0,
  pixel: 0,
  redirect: 0,
  ingest: 3,
  availability_cold: 2,
  availability_cached: 0,
  confirm: 3,
};

/** How long the database connection must have been idle before a timed request, and the most a request waits for it. */
const QUIET_MS = 150;
const QUIET_MAX_MS = 5000;

const NO_BOOKING_SLUG = 'GET /api/user/my has no booking_slug: the booking settings are not on this branch';

/**
 * The routes of issue 9, each with its request (a new email, query string or slot each time
 * where the route needs one), or `unavailable` with the reason when this branch lacks it.
 */
async function edgeRoutes(stack, org, { requests, warmup }) {
  const { api } = stack;
  const fixtures = await prepareEdgeFixtures(stack, org);
  let ingested = 0;
  let coldReads = 0;
  const ingest = () =>
    api('POST', '/api/v1/lead', {
      headers: { 'content-type': 'application/json', 'x-api-key': fixtures.apiKey },
      body: fixtures.ingestBody(++ingested),
    });
  const routes = [
    {
      key: 'not_found',
      route: `GET ${NOT_FOUND_PATH} (404, no database)`,
      statuses: [404],
      request: () => api('GET', NOT_FOUND_PATH),
    },
    { key: 'pixel', route: 'GET /api/v1/track/open/:token', request: () => api('GET', fixtures.openPath) },
    {
      key: 'redirect',
      route: 'GET /api/v1/track/click/:token',
      statuses: [302],
      request: () => api('GET', fixtures.clickPath, { redirect: 'manual' }),
    },
  ];
  const found = async (key, route, path, request, statuses) => {
    const result = await probe(route, path, request, statuses, NO_BOOKING_SLUG);
    if (!result.available) routes.push({ key, route, unavailable: result.reason });
    return result;
  };
  if ((await found('ingest', 'POST /api/v1/lead', '/api/v1/lead', ingest, [201])).available)
    routes.push({
      key: 'ingest',
      route: 'POST /api/v1/lead (a new email each time)',
      statuses: [201],
      request: ingest,
    });
  let visitors = 0;
  const cold = () => api('GET', fixtures.coldAvailabilityPath(++coldReads), { ip: visitorIp(++visitors) });
  const coldRoute = 'GET /api/v1/booking/:slug/availability (cold: a new query each time)';
  if ((await found('availability_cold', coldRoute, fixtures.coldAvailabilityPath(0), cold, [200])).available)
    routes.push({ key: 'availability_cold', route: coldRoute, request: cold });
  const cached = () => api('GET', fixtures.cachedAvailabilityPath, { ip: visitorIp(++visitors) });
  const cachedRoute = 'GET /api/v1/booking/:slug/availability (cached: one URL repeated)';
  if ((await found('availability_cached', cachedRoute, fixtures.cachedAvailabilityPath, cached, [200])).available)
    routes.push({ key: 'availability_cached', route: cachedRoute, request: cached });
  // Confirmations last: each one takes a slot and changes the rep's availability. Each takes a
  // free slot of the coming 30 days, from one availability answer read before the timing.
  const confirmRoute = 'POST /api/v1/booking/:slug/confirm';
  const listing = await found('confirm', confirmRoute, fixtures.slotsPath, () => api('GET', fixtures.slotsPath), [200]);
  if (listing.available) {
    const slots = slotsOf(listing.body);
    const needed = 2 * (warmup + requests) + 1;
    if (slots.length < needed) {
      routes.push({
        key: 'confirm',
        route: confirmRoute,
        unavailable: `only ${slots.length} free slots in 30 days, ${needed} needed`,
      });
    } else {
      let booked = 0;
      const confirm = () => {
        const slot = slots[booked++];
        // A fresh address each time: confirmations are rate limited per IP.
        return api('POST', fixtures.confirmPath, {
          ip: `127.3.${Math.floor(booked / 250)}.${(booked % 250) + 1}`,
          json: {
            start: slot.start,
            end: slot.end,
            name: `Bench Visitor ${booked}`,
            email: `visitor-${booked}-${org.orgId}@bench.example`,
          },
        });
      };
      const probeConfirm = await probe(confirmRoute, fixtures.confirmPath, confirm, [201]);
      if (probeConfirm.available)
        routes.push({ key: 'confirm', route: confirmRoute, statuses: [201], request: confirm });
      else routes.push({ key: 'confirm', route: confirmRoute, unavailable: probeConfirm.reason });
    }
  }
  return routes;
}

export async function measureRoundTrips(stack, { rttMs, requests, warmup, log, deadline }) {
  const { api, proxy } = stack;
  const { token, orgId } = await stack.signup(`Bench round trips ${Date.now()}`);
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
    ...(await edgeRoutes(stack, { token, orgId }, { requests, warmup })),
  ];
  const results = {};
  for (const { key, route, request, statuses = null, unavailable } of routes) {
    deadline(`measuring round trips of ${route}`);
    if (unavailable) {
      results[key] = { route, unavailable: true, reason: unavailable, budget: ROUND_TRIP_BUDGETS[key] };
      log(`${route}: unavailable (${unavailable})`);
      continue;
    }
    // Untimed warm-up in both modes, then the two alternate request by request, so a change
    // in the machine's load during the run weighs on both medians alike.
    for (const ms of [0, rttMs]) {
      proxy.setRtt(ms);
      for (let i = 0; i < warmup; i++) await timeOne(route, request, statuses);
    }
    proxy.resetApplied();
    const directTimes = [];
    const delayedTimes = [];
    // Each timed request starts once the database has been quiet for QUIET_MS: a write's
    // background jobs (scoring, the feed, webhooks) run after its answer, and on PGlite, one
    // backend shared by every connection, the next request would wait behind them and count
    // their delayed statements as its own. A server gives each connection its own backend.
    for (let i = 0; i < requests; i++) {
      proxy.setRtt(0);
      await proxy.quiet(QUIET_MS, QUIET_MAX_MS);
      directTimes.push(await timeOne(route, request, statuses));
      proxy.setRtt(rttMs);
      await proxy.quiet(QUIET_MS, QUIET_MAX_MS);
      delayedTimes.push(await timeOne(route, request, statuses));
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
      within_budget: budget == null ? null : Math.round(implied) <= budget,
    };
    log(
      `${route}: ${round(direct, 1)} ms direct, ${round(delayed, 1)} ms at ${rttMs} ms rtt: ${implied} round trips at the applied ${round(applied, 1)} ms (budget ${budget ?? 'none'})`,
    );
  }
  return {
    rtt_ms: rttMs,
    requests_per_median: requests,
    routes: results,
  };
}
