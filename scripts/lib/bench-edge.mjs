// `--only edge`: each public or hot route under load through the edge Worker, as production
// runs it, with autocannon (bench-load.mjs): requests/s, p50, p99 and whatever else came back,
// beside two baselines of the same run: the 404 envelope of an unknown path (forwarded to the API
// Worker, which answers it without opening a database connection: checked here at the delay
// proxy) and GET /api/health (one `select 1`). Targets from issue 9, as ratios of one run:
// pixel and redirect p50 within 1.2x of the 404 baseline's, ingestion at least 0.5x health's
// requests/s. Routes of other branches that answer 404 here are reported `unavailable`.
import { sleep } from './bench-stack.mjs';
import { measureWorkerdDirect } from './bench-workerd-direct.mjs';
import { NOT_FOUND_PATH, prepareEdgeFixtures, probe, visitorIp } from './bench-edge-fixtures.mjs';
import { loadRoute } from './bench-load.mjs';
import { round } from './bench-measure.mjs';
import { seedLeads } from './bench-seed-leads.mjs';

const CLIENT_IP = '127.0.0.9';

/**
 * Whether any byte crossed the delay proxy (either way) while `work` ran and for `settleMs`
 * after it (a connection is closed after the response). The proxy counts only chunks it delays,
 * so it holds them for a tenth of a millisecond meanwhile.
 */
async function databaseTrafficDuring(proxy, work, settleMs = 300) {
  proxy.setRtt(0.2);
  proxy.resetApplied();
  try {
    await work();
    await sleep(settleMs);
    return proxy.appliedRttMs() !== null;
  } finally {
    proxy.setRtt(0);
  }
}

/**
 * Waits (at most `limitMs`) until nothing has crossed to the database for `quietMs`: the events
 * queue's consumer records the pixel's and redirect's hits in batches (5 s batch timeout), and
 * that work would otherwise weigh on the next route's figures.
 */
async function waitForDatabaseQuiet(proxy, { quietMs = 6000, limitMs = 90_000, deadline }) {
  const started = Date.now();
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs) {
    deadline('waiting for the events queue to drain');
    if (Date.now() - started > limitMs) return round((Date.now() - started) / 1000, 1);
    if (await databaseTrafficDuring(proxy, () => sleep(1000), 0)) quietSince = Date.now();
  }
  return round((Date.now() - started) / 1000, 1);
}

export async function measureEdge(stack, { leads, connections, seconds, workerdDirect, log, deadline }) {
  const { api, proxy, base } = stack;
  const org = await stack.signup(`Bench edge ${Date.now()}`);
  await seedLeads(stack, [{ org, count: leads }], { log });
  const fixtures = await prepareEdgeFixtures(stack, org);

  // The baseline must not touch the database, or it is no baseline: check at the proxy, with
  // health as the control that the check sees a request that does.
  deadline('checking the 404 baseline for database traffic');
  await waitForDatabaseQuiet(proxy, { deadline });
  const sequential = (path, count) => async () => {
    for (let i = 0; i < count; i++) await (await api('GET', path)).arrayBuffer();
  };
  const notFoundTouchesDatabase = await databaseTrafficDuring(proxy, sequential(NOT_FOUND_PATH, 20));
  const healthTouchesDatabase = await databaseTrafficDuring(proxy, sequential('/api/health', 3));
  log(
    `${NOT_FOUND_PATH}: ${notFoundTouchesDatabase ? 'DATABASE TRAFFIC SEEN' : 'no database traffic'} over 20 requests (health: ${healthTouchesDatabase ? 'traffic seen, as it should' : 'NONE SEEN: the check is blind'})`,
  );

  const headers = { 'cf-connecting-ip': CLIENT_IP };
  let ingested = 0;
  let coldReads = 0;
  let visitors = 0;
  const routes = [
    {
      key: 'not_found_baseline',
      route: `GET ${NOT_FOUND_PATH} (404 envelope, no database)`,
      expect: [404],
      request: { method: 'GET', path: NOT_FOUND_PATH, headers },
    },
    {
      key: 'pixel',
      route: 'GET /api/v1/track/open/:token',
      expect: [200],
      request: { method: 'GET', path: fixtures.openPath, headers },
    },
    {
      key: 'redirect',
      route: 'GET /api/v1/track/click/:token (302, not followed)',
      expect: [302],
      request: { method: 'GET', path: fixtures.clickPath, headers },
      // Drain the hits the tracking routes queued before the routes that use the database.
      after: 'drain',
    },
    {
      key: 'health_baseline',
      route: 'GET /api/health (one select 1)',
      expect: [200],
      request: { method: 'GET', path: '/api/health', headers },
    },
    {
      key: 'ingest',
      route: 'POST /api/v1/lead (a new email each request)',
      expect: [201],
      probePath: '/api/v1/lead',
      request: {
        method: 'POST',
        path: '/api/v1/lead',
        headers: { ...headers, 'content-type': 'application/json', 'x-api-key': fixtures.apiKey },
        setupRequest: (request) => ({ ...request, body: fixtures.ingestBody(++ingested) }),
      },
      probe: () =>
        api('POST', '/api/v1/lead', {
          headers: { 'content-type': 'application/json', 'x-api-key': fixtures.apiKey },
          body: fixtures.ingestBody(++ingested),
        }),
    },
    {
      key: 'availability_cold',
      route: 'GET /api/v1/booking/:slug/availability (a new query each request)',
      expect: [200],
      probePath: fixtures.coldAvailabilityPath(0),
      request: {
        method: 'GET',
        path: fixtures.coldAvailabilityPath(0) ?? '/',
        headers,
        setupRequest: (request) => ({
          ...request,
          path: fixtures.coldAvailabilityPath(++coldReads),
          headers: { ...headers, 'cf-connecting-ip': visitorIp(++visitors) },
        }),
      },
    },
    {
      key: 'availability_cached',
      route: 'GET /api/v1/booking/:slug/availability (one URL repeated)',
      expect: [200],
      probePath: fixtures.cachedAvailabilityPath,
      request: {
        method: 'GET',
        path: fixtures.cachedAvailabilityPath ?? '/',
        headers,
        setupRequest: (request) => ({ ...request, headers: { ...headers, 'cf-connecting-ip': visitorIp(++visitors) } }),
      },
    },
    {
      key: 'lead_list',
      route: `GET /api/lead/list?limit=100 at ${leads} leads`,
      expect: [200],
      request: {
        method: 'GET',
        path: '/api/lead/list?limit=100',
        headers: { ...headers, authorization: `Bearer ${org.token}` },
      },
    },
  ];

  const measured = {};
  for (const { key, route, expect, request, after, ...check } of routes) {
    deadline(`measuring ${route}`);
    if ('probePath' in check) {
      const found = await probe(
        route,
        check.probePath,
        check.probe ?? (() => api('GET', check.probePath)),
        expect,
        'GET /api/user/my has no booking_slug: the booking settings are not on this branch',
      );
      if (!found.available) {
        measured[key] = { route, unavailable: true, reason: found.reason };
        log(`${route}: unavailable (${found.reason})`);
        continue;
      }
    }
    const result = await loadRoute(base, request, { expect, connections, seconds, cpuTime: stack.cpuTime });
    measured[key] = { route, ...result };
    const other = Object.values(result.unexpected_statuses).reduce((sum, count) => sum + count, 0);
    const cpu = result.cpu
      ? `; CPU ms a request: ${Object.entries(result.cpu)
          .map(([part, ms]) => `${part} ${ms}`)
          .join(', ')}`
      : '';
    log(
      `${route}: ${result.requests_per_second} requests/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms${other || result.errors || result.timeouts ? ` (${other} other statuses, ${result.errors} errors, ${result.timeouts} timeouts)` : ''}${cpu}`,
    );
    if (after === 'drain') {
      const waited = await waitForDatabaseQuiet(proxy, { deadline });
      log(`the events queue drained (${waited} s)`);
    }
  }

  const figure = (key, field) => (measured[key]?.unavailable ? null : (measured[key]?.[field] ?? null));
  const ratio = (a, b) => (a > 0 && b > 0 ? round(a / b, 2) : null);
  const target = (value, comparison, limit, inputs) => {
    if (inputs.some((key) => measured[key]?.unavailable))
      return { value: null, target: `${comparison} ${limit}`, holds: null, unavailable: true };
    return {
      value,
      target: `${comparison} ${limit}`,
      holds: value == null ? null : comparison === '<=' ? value <= limit : value >= limit,
    };
  };
  const output = {
    leads,
    connections,
    seconds_each: seconds,
    not_found_baseline_opens_database_connection: notFoundTouchesDatabase,
    check_sees_health_database_traffic: healthTouchesDatabase,
    measured,
    ratios: {
      pixel_p50_vs_not_found_p50: target(
        ratio(figure('pixel', 'p50_ms'), figure('not_found_baseline', 'p50_ms')),
        '<=',
        1.2,
        ['pixel'],
      ),
      redirect_p50_vs_not_found_p50: target(
        ratio(figure('redirect', 'p50_ms'), figure('not_found_baseline', 'p50_ms')),
        '<=',
        1.2,
        ['redirect'],
      ),
      ingest_rps_vs_health_rps: target(
        ratio(figure('ingest', 'requests_per_second'), figure('health_baseline', 'requests_per_second')),
        '>=',
        0.5,
        ['ingest'],
      ),
    },
  };
  // The workerd running both Workers, now (rss) and at its peak (hwm): both isolates, the runtime
  // and miniflare's own services, so an upper bound for the API Worker's isolate.
  output.workerd_memory_mb = stack.workerdMemory();
  if (workerdDirect) {
    deadline('measuring the edge Worker in workerd directly');
    output.workerd_direct = await measureWorkerdDirect({
      openPath: fixtures.openPath,
      clickPath: fixtures.clickPath,
      connections,
      seconds,
      log,
    });
  }
  return output;
}
