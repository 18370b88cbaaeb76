// `--only lists`: whether a list's cost grows with the organization. One organization gets
// `leads` leads, a second one a hundredth of them, loaded with one SQL statement each (the
// Worker's own path would take minutes); then requests/s with concurrent clients over a fixed
// duration for health, list page 1, a narrow search (a handful of leads), a wide one (about 2 %
// of the organization, issue 17), page 1 of the small organization, and the page reached by
// following next_cursor 999 times. Targets from issue 6.
//
// The cases are measured in `rounds` rounds, each case once per round in the same order, and each
// case's figure is its median over the rounds. Measured once each, one after another, a change in
// the machine's speed between two cases (a busier neighbour, a cache warming up) moved a ratio by
// ±0.1 from run to run (docs/benchmarks.md); interleaved, such a change reaches every case alike.
import { perRequest } from './bench-cpu.mjs';
import { expectOk, median, round, throughput, timeOne } from './bench-measure.mjs';
import { assertKeptLeads, benchOrganization, SEARCH_TERM, seedLeads, WIDE_SEARCH_TERM } from './bench-seed-leads.mjs';

const PAGE_SIZE = 100;
/** Page 1000 at 100 leads a page; a smaller --leads (for a quick try) goes as deep as it can. */
const CURSOR_PAGE = 1000;

/** The median of each part over the rounds' CPU figures. */
function medianByPart(figures) {
  return Object.fromEntries(
    Object.keys(figures[0]).map((part) => [part, round(median(figures.map((f) => f[part])), 2)]),
  );
}

export async function measureListScaling(
  stack,
  { leads, clients, seconds, rounds = 3, cursorWalkSeconds, keepSeed = false, log, deadline },
) {
  const { api } = stack;
  const smallCount = Math.max(1, Math.round(leads / 100));
  const cursorDepth = Math.max(2, Math.min(CURSOR_PAGE, Math.floor(leads / PAGE_SIZE)));
  const big = await benchOrganization(stack, {
    name: `Bench lists ${leads} ${Date.now()}`,
    key: `lists-${leads}`,
    keepSeed,
  });
  const small = await benchOrganization(stack, {
    name: `Bench lists ${smallCount} ${Date.now()}`,
    key: `lists-${leads}-small-${smallCount}`,
    keepSeed,
  });
  const organizations = [
    { org: big, count: leads },
    { org: small, count: smallCount },
  ];
  const toSeed = organizations.filter(({ org }) => !org.existing);
  if (toSeed.length > 0) await seedLeads(stack, toSeed, { log });
  for (const { org, count } of organizations.filter(({ org }) => org.existing)) {
    await assertKeptLeads(stack, org, count);
    log(`reusing the kept organization ${org.orgId} (${count} leads)`);
  }

  const list = (org, query) => () => api('GET', `/api/lead/list?${query}`, { token: org.token });
  const sample = async (what, request) => {
    const body = JSON.parse(await expectOk(what, request));
    return {
      rows: body.data.length,
      total: body.total,
      ...(body.total_is_estimate !== undefined ? { total_is_estimate: body.total_is_estimate } : {}),
    };
  };

  // The cursor of page 1000: follow next_cursor from page 1, as a client paging through would.
  // Bounded: if the walk takes longer than cursorWalkSeconds, the next_cursor of the offset page
  // 999 (the same position) is used instead, and the output says so.
  log(`following next_cursor to page ${cursorDepth} (at most ${cursorWalkSeconds} s)`);
  const walkStarted = Date.now();
  let cursor = null;
  let depth = 1;
  let obtainedBy = 'walk';
  for (; depth < cursorDepth; depth++) {
    deadline('walking next_cursor');
    if (Date.now() - walkStarted > cursorWalkSeconds * 1000) {
      const body = JSON.parse(await expectOk('offset page', list(big, `limit=${PAGE_SIZE}&page=${cursorDepth - 1}`)));
      cursor = body.next_cursor;
      obtainedBy = `offset page ${cursorDepth - 1} (the walk reached page ${depth} in ${cursorWalkSeconds} s)`;
      break;
    }
    const query = `limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    cursor = JSON.parse(await expectOk('cursor walk', list(big, query))).next_cursor;
    if (!cursor) throw new Error(`next_cursor ended at page ${depth}; expected ${cursorDepth} pages of ${PAGE_SIZE}`);
    if (depth % 100 === 0) log(`cursor walk: page ${depth + 1}`);
  }
  const walkSeconds = (Date.now() - walkStarted) / 1000;
  if (!cursor) throw new Error(`no cursor for page ${cursorDepth}`);

  const cases = {
    health: { what: 'GET /api/health', request: () => api('GET', '/api/health') },
    list_page1: {
      what: `GET /api/lead/list?limit=${PAGE_SIZE} at ${leads} leads`,
      request: list(big, `limit=${PAGE_SIZE}`),
    },
    search_page1: {
      what: `GET /api/lead/list?limit=${PAGE_SIZE}&search_value=${SEARCH_TERM} at ${leads} leads`,
      request: list(big, `limit=${PAGE_SIZE}&search_value=${encodeURIComponent(SEARCH_TERM)}`),
    },
    wide_search_page1: {
      what: `GET /api/lead/list?limit=${PAGE_SIZE}&search_value=${WIDE_SEARCH_TERM} at ${leads} leads (about 2 %)`,
      request: list(big, `limit=${PAGE_SIZE}&search_value=${encodeURIComponent(WIDE_SEARCH_TERM)}`),
    },
    list_page1_small: {
      what: `GET /api/lead/list?limit=${PAGE_SIZE} at ${smallCount} leads`,
      request: list(small, `limit=${PAGE_SIZE}`),
    },
    cursor_deep_page: {
      what: `GET /api/lead/list?limit=${PAGE_SIZE}&cursor=<page ${cursorDepth}> at ${leads} leads`,
      request: list(big, `limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`),
    },
  };
  const measured = {};
  const perRound = Object.fromEntries(Object.keys(cases).map((key) => [key, []]));
  for (let pass = 1; pass <= rounds; pass++) {
    for (const [key, { what, request }] of Object.entries(cases)) {
      deadline(`measuring ${what} (round ${pass} of ${rounds})`);
      const cpuBefore = stack.cpuTime();
      const result = await throughput(request, { clients, seconds });
      // Every request of the load counts, the untimed first one per client and failures included.
      result.cpu = perRequest(cpuBefore, stack.cpuTime(), result.completed + result.failed + clients);
      perRound[key].push(result);
      log(
        `round ${pass}/${rounds} ${what}: ${result.requests_per_second} requests/s${result.failed ? ` (${result.failed} failed)` : ''}${
          result.cpu
            ? `; CPU ms a request: ${Object.entries(result.cpu)
                .map(([part, ms]) => `${part} ${ms}`)
                .join(', ')}`
            : ''
        }`,
      );
    }
  }
  for (const [key, { what, request }] of Object.entries(cases)) {
    deadline(`measuring ${what} with one client`);
    const shape = key === 'health' ? {} : await sample(what, request);
    // One client's latency beside the throughput: with 8 clients on a small machine the
    // single-threaded workerd can be the bottleneck and hide database time that runs meanwhile
    // on another core; a lone request waits for all of it.
    const times = [];
    for (let i = 0; i < 6; i++) times.push(await timeOne(what, request));
    const results = perRound[key];
    const failed = results.reduce((sum, result) => sum + result.failed, 0);
    const lastFailure = results.findLast((result) => result.last_failure !== undefined)?.last_failure;
    measured[key] = {
      request: what,
      requests_per_second: round(median(results.map((result) => result.requests_per_second)), 1),
      requests_per_second_by_round: results.map((result) => result.requests_per_second),
      completed: results.reduce((sum, result) => sum + result.completed, 0),
      failed,
      ...(lastFailure !== undefined ? { last_failure: lastFailure } : {}),
      seconds: round(
        results.reduce((sum, result) => sum + result.seconds, 0),
        2,
      ),
      median_ms_one_client: round(median(times.slice(1)), 1),
      ...(results.every((result) => result.cpu) ? { cpu_ms_per_request: medianByPart(results.map((r) => r.cpu)) } : {}),
      ...shape,
    };
  }

  // Offset paging at depth, for information: one client, a few requests (with 8 clients its
  // slow requests would queue up behind each other for a minute past the duration).
  deadline('measuring offset paging');
  const offsetLatency = async (page) => {
    const times = [];
    for (let i = 0; i < 4; i++) times.push(await timeOne('offset page', list(big, `limit=${PAGE_SIZE}&page=${page}`)));
    return median(times.slice(1));
  };
  const offsetPage1 = await offsetLatency(1);
  const offsetDeep = await offsetLatency(cursorDepth);
  // The walked cursor must land where the offset page does, or the cursor figures measure something else.
  const firstId = async (query) => JSON.parse(await expectOk('first row', list(big, query))).data[0]?.id ?? null;
  const cursorFirst = await firstId(`limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`);
  const offsetFirst = await firstId(`limit=${PAGE_SIZE}&page=${cursorDepth}`);
  measured.offset_paging = {
    request: `GET /api/lead/list?limit=${PAGE_SIZE}&page=${cursorDepth} against page=1 at ${leads} leads, one client, median of 3`,
    median_ms_page1: round(offsetPage1, 1),
    [`median_ms_page${cursorDepth}`]: round(offsetDeep, 1),
    cursor_page_starts_where_offset_page_does: cursorFirst != null && cursorFirst === offsetFirst,
  };
  log(`offset page ${cursorDepth}: ${round(offsetDeep, 1)} ms, page 1: ${round(offsetPage1, 1)} ms`);

  const rps = (key) => measured[key].requests_per_second;
  const ratio = (a, b) => (a > 0 && b > 0 ? round(a / b, 2) : null);
  // Each round measures every case within a minute, so the two cases of a ratio met the same
  // machine there: the ratio of each round's pair shows how far the machine's drift moved it.
  const byRound = (a, b) =>
    measured[a].requests_per_second_by_round.map((value, i) =>
      ratio(value, measured[b].requests_per_second_by_round[i]),
    );
  const atLeast = (value, target, rounds) => ({
    value,
    target: `>= ${target}`,
    holds: value != null && value >= target,
    ...(rounds ? { by_round: rounds } : {}),
  });
  const atMost = (value, target, rounds) => ({
    value,
    target: `<= ${target}`,
    holds: value != null && value <= target,
    ...(rounds ? { by_round: rounds } : {}),
  });
  return {
    leads,
    small_organization_leads: smallCount,
    clients,
    seconds_each: seconds,
    rounds,
    search_term: SEARCH_TERM,
    wide_search_term: WIDE_SEARCH_TERM,
    cursor: { depth: cursorDepth, obtained_by: obtainedBy, seconds: round(walkSeconds, 1) },
    measured,
    ratios: {
      // Throughput ratios (higher is better).
      list_vs_health: atLeast(ratio(rps('list_page1'), rps('health')), 0.5, byRound('list_page1', 'health')),
      search_vs_health: atLeast(ratio(rps('search_page1'), rps('health')), 0.5, byRound('search_page1', 'health')),
      wide_search_vs_health: atLeast(
        ratio(rps('wide_search_page1'), rps('health')),
        0.5,
        byRound('wide_search_page1', 'health'),
      ),
      // Cost ratios: time per request, i.e. the inverse throughput ratio (lower is better).
      page1_cost_at_large_vs_small: atMost(
        ratio(rps('list_page1_small'), rps('list_page1')),
        1.5,
        byRound('list_page1_small', 'list_page1'),
      ),
      cursor_deep_page_cost_vs_page1: atMost(
        ratio(rps('list_page1'), rps('cursor_deep_page')),
        1.2,
        byRound('list_page1', 'cursor_deep_page'),
      ),
      offset_deep_page_latency_vs_page1: {
        value: ratio(offsetDeep, offsetPage1),
        target: 'none (informational: page deep with cursor)',
      },
    },
  };
}
