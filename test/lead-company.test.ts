/**
 * `lead_company_id` on intent signals, meetings and deals (drizzle/0025 and 0031): the
 * company of the row's lead while that lead is live, kept by triggers through every write path,
 * so account health reads an account's signals and meetings as ranges by company. It must equal
 * what a join with the leads says after each kind of write, and health must count each signal
 * and meeting of an account once, whichever way it reaches the account.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';
import { createLead, inOrganization, softDeleteLead } from './helpers/leads';

const DAY = 86_400_000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY).toISOString();

let owner: SignedUp;
let acme: number;
let globex: number;

beforeAll(async () => {
  owner = await signupOrganization('Lead company');
  [acme, globex] = [
    await createCompany(owner, { company_name: 'Acme' }),
    await createCompany(owner, { company_name: 'Globex' }),
  ];
});

async function signal(leadId: number, daysAgo = 1) {
  const response = await call('POST', '/api/intent-alert/signal', {
    token: owner.token,
    body: { lead_id: leadId, signal_type: 'pricing_page_visit', occurred_at: daysFromNow(-daysAgo) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as number;
}

async function meeting(link: { lead_id?: number; contact_id?: number }, days = -1) {
  const response = await call('POST', '/api/meeting/add', {
    token: owner.token,
    body: { title: 'Account call', start_time: daysFromNow(days), end_time: daysFromNow(days + 1 / 48), ...link },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as number;
}

async function setCompany(leadId: number, companyId: number | null) {
  const response = await call('POST', `/api/lead/update/${leadId}`, {
    token: owner.token,
    body: { company_id: companyId },
  });
  expect(response.status, response.text).toBe(200);
}

/** Each signal's and meeting's carried company next to its live lead's, by row. */
async function carried() {
  return inOrganization(owner.orgId, async (tx) => {
    const rows = await tx.execute<{ kind: string; id: number; carried: number | null; derived: number | null }>(sql`
      select 'signal' as kind, s.id::int as id, s.lead_company_id::int as carried,
        (select l.company_id::int from leads l where l.id = s.lead_id and l.deleted_at is null) as derived
      from intent_signals s
      union all
      select 'meeting', m.id::int, m.lead_company_id::int,
        (select l.company_id::int from leads l where l.id = m.lead_id and l.deleted_at is null)
      from meetings m
      union all
      select 'deal', d.id::int, d.lead_company_id::int,
        (select l.company_id::int from leads l where l.id = d.lead_id and l.deleted_at is null)
      from deals d`);
    return rows.rows;
  });
}

/** (company|outcome) → "count|value", from the company_deal_counts rollup and from the deals and their live leads. */
async function companyDealCounts() {
  return inOrganization(owner.orgId, async (tx) => {
    const rolled = await tx.execute<{ k: string; v: string }>(sql`
      select company_id || '|' || outcome as k, sum(delta) || '|' || sum(value_sum)::numeric(14, 2) as v
      from company_deal_counts group by 1 having sum(delta) <> 0 or sum(value_sum) <> 0`);
    const counted = await tx.execute<{ k: string; v: string }>(sql`
      select l.company_id || '|' || d.outcome as k, count(*) || '|' || sum(d.value)::numeric(14, 2) as v
      from deals d join leads l on l.id = d.lead_id and l.deleted_at is null
      where l.company_id is not null group by 1`);
    const map = (rows: { k: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.k, row.v]));
    return { rolled: map(rolled.rows), counted: map(counted.rows) };
  });
}

/**
 * (company|5-day bucket) → count, from the company_signal_counts rollup and from the signals and their live leads
 * (opens a mail proxy prefetched are no engagement: drizzle/0085).
 */
async function companySignalCounts() {
  return inOrganization(owner.orgId, async (tx) => {
    const rolled = await tx.execute<{ k: string; n: number }>(sql`
      select company_id || '|' || bucket as k, sum(delta)::int as n
      from company_signal_counts group by 1 having sum(delta) <> 0`);
    const counted = await tx.execute<{ k: string; n: number }>(sql`
      select l.company_id || '|' || (date '1970-01-01' + (floor(((s.occurred_at at time zone 'UTC')::date - date '1970-01-01') / 5.0) * 5)::int) as k,
        count(*)::int as n
      from intent_signals s join leads l on l.id = s.lead_id and l.deleted_at is null
      where l.company_id is not null
        and not (s.signal_type = 'email_opened' and s.signal_detail @> '{"adjusted": true}'::jsonb) group by 1`);
    const map = (rows: { k: string; n: number }[]) => Object.fromEntries(rows.map((row) => [row.k, row.n]));
    return { rolled: map(rolled.rows), counted: map(counted.rows) };
  });
}

async function expectCarried(expected: Record<string, number | null>) {
  const rows = await carried();
  for (const row of rows) expect(row.carried, `${row.kind} ${row.id}`).toBe(row.derived);
  const byKey = Object.fromEntries(rows.map((row) => [`${row.kind} ${row.id}`, row.carried]));
  expect(byKey).toMatchObject(expected);
  // The rollups of deals and of signals by company follow the same writes.
  const deals = await companyDealCounts();
  expect(deals.rolled).toEqual(deals.counted);
  const signals = await companySignalCounts();
  expect(signals.rolled).toEqual(signals.counted);
}

describe('the lead company on signals, meetings and deals', () => {
  it('follows the lead through inserts, company changes, deletion, restore, moves and hard deletes', async () => {
    const [ada, grace] = [await createLead(owner, 'Ada', 'Carried'), await createLead(owner, 'Grace', 'Carried')];
    await setCompany(ada, acme);
    const s1 = await signal(ada);
    const m1 = await meeting({ lead_id: ada });
    const s2 = await signal(grace);
    const m2 = await meeting({ lead_id: grace });
    // An open a mail proxy prefetched is carried too, and moves no engagement count.
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`insert into intent_signals (organization_id, lead_id, signal_type, signal_detail, source, occurred_at)
        values (${owner.orgId}, ${ada}, 'email_opened', '{"adjusted": true}', 'tracking_pixel', now() - interval '1 day'),
          (${owner.orgId}, ${grace}, 'email_opened', '{"adjusted": true}', 'tracking_pixel', now() - interval '2 days')`),
    );
    const pipeline = await defaultPipeline(owner);
    const d1 = (await addDeal(owner, pipeline, { lead_id: ada })).id;
    const d2 = (await addDeal(owner, pipeline, { lead_id: grace })).id;
    await expectCarried({
      [`signal ${s1}`]: acme,
      [`meeting ${m1}`]: acme,
      [`deal ${d1}`]: acme,
      [`signal ${s2}`]: null,
      [`deal ${d2}`]: null,
    });

    // The lead changes company through the API, and in one statement with another lead.
    await setCompany(ada, globex);
    await expectCarried({ [`signal ${s1}`]: globex, [`meeting ${m1}`]: globex, [`deal ${d1}`]: globex });
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update leads set company_id = ${acme} where id in (${ada}, ${grace})`),
    );
    await expectCarried({
      [`signal ${s1}`]: acme,
      [`meeting ${m1}`]: acme,
      [`signal ${s2}`]: acme,
      [`meeting ${m2}`]: acme,
    });

    // Deleted, a lead's rows belong to no company; restored, they are back.
    await softDeleteLead(owner, grace);
    await expectCarried({
      [`signal ${s2}`]: null,
      [`meeting ${m2}`]: null,
      [`deal ${d2}`]: null,
      [`signal ${s1}`]: acme,
    });
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`update leads set deleted_at = null where id = ${grace}`));
    await expectCarried({ [`signal ${s2}`]: acme, [`meeting ${m2}`]: acme, [`deal ${d2}`]: acme });

    // A meeting moved to another lead (API) and a signal moved to another lead take that lead's company.
    const edsger = await createLead(owner, 'Edsger', 'Carried');
    await setCompany(edsger, globex);
    const moved = await call('POST', `/api/meeting/update/${m1}`, { token: owner.token, body: { lead_id: edsger } });
    expect(moved.status, moved.text).toBe(200);
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update intent_signals set lead_id = ${edsger} where id = ${s1}`),
    );
    const dealMoved = await call('POST', `/api/lead/deal/update/${d2}`, {
      token: owner.token,
      body: { lead_id: edsger },
    });
    expect(dealMoved.status, dealMoved.text).toBe(200);
    await expectCarried({ [`signal ${s1}`]: globex, [`meeting ${m1}`]: globex, [`deal ${d2}`]: globex });
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`delete from deals where id = ${d2}`));

    // A hard-deleted lead's meetings keep no lead and no company (its signals go with it).
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`delete from leads where id = ${edsger}`));
    const rows = await carried();
    expect(rows.find((row) => row.kind === 'meeting' && row.id === m1)).toMatchObject({ carried: null });
    expect(rows.some((row) => row.kind === 'signal' && row.id === s1)).toBe(false);
    await expectCarried({});
  });

  it('writes no signal or meeting for a lead update that moves no company', async () => {
    const lead = await createLead(owner, 'Barbara', 'Carried');
    await setCompany(lead, acme);
    const s = await signal(lead);
    const before = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ xmin: string }>(sql`select xmin::text from intent_signals where id = ${s}`),
    );
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update leads set score = 42, company_id = company_id where id = ${lead}`),
    );
    const after = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ xmin: string }>(sql`select xmin::text from intent_signals where id = ${s}`),
    );
    expect(after.rows[0].xmin).toBe(before.rows[0].xmin);
  });
});

describe('company aggregates through the carried company', () => {
  it('count the open deals of a company’s live leads: a deleted lead’s leave, a restored lead’s return', async () => {
    const company = await createCompany(owner, { company_name: 'Umbrella' });
    const pipeline = await defaultPipeline(owner);
    const [kept, gone] = [await createLead(owner, 'Kept', 'Umbrella'), await createLead(owner, 'Gone', 'Umbrella')];
    await setCompany(kept, company);
    await setCompany(gone, company);
    await addDeal(owner, pipeline, { lead_id: kept, value: 1000 });
    await addDeal(owner, pipeline, { lead_id: gone, value: 250 });
    const numbers = async () => {
      const stats = await call('GET', '/api/company/stats', { token: owner.token, query: { company_id: company } });
      expect(stats.status, stats.text).toBe(200);
      const top = await call('GET', '/api/dashboard/top-accounts', { token: owner.token, query: { limit: 100 } });
      expect(top.status, top.text).toBe(200);
      const row = stats.body.data.companies.find((c: { id: number }) => c.id === company);
      const ranked = top.body.data.find((c: { id: number }) => c.id === company);
      return {
        stats: [row.open_deal_count, row.open_pipeline_value],
        top: ranked ? [ranked.open_deals, ranked.open_pipeline_value] : null,
      };
    };
    expect(await numbers()).toEqual({ stats: [2, 1250], top: [2, 1250] });
    await softDeleteLead(owner, gone);
    expect(await numbers()).toEqual({ stats: [1, 1000], top: [1, 1000] });
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`update leads set deleted_at = null where id = ${gone}`));
    expect(await numbers()).toEqual({ stats: [2, 1250], top: [2, 1250] });
    // A value change, a deal won and one deleted move the rollup's open pipeline with them.
    const pipelineDeals = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ id: number }>(sql`select id::int as id from deals where lead_id in (${kept}, ${gone}) order by id`),
    );
    const [first, second] = pipelineDeals.rows.map((row) => row.id);
    await inOrganization(owner.orgId, async (tx) => {
      await tx.execute(sql`update deals set value = 1500 where id = ${first}`);
      await tx.execute(sql`update deals set outcome = 'won' where id = ${second}`);
    });
    expect(await numbers()).toEqual({ stats: [1, 1500], top: [1, 1500] });
    await inOrganization(owner.orgId, (tx) => tx.execute(sql`delete from deals where id = ${first}`));
    expect((await numbers()).stats).toEqual([0, 0]);
    await expectCarried({});
  });
});

describe('account health through the carried company', () => {
  it('counts each signal and meeting once, whether through the company, a contact or a contact’s lead', async () => {
    const company = await createCompany(owner, { company_name: 'Initech' });
    const response = await call('POST', '/api/target-accounts', { token: owner.token, body: { company_id: company } });
    expect(response.status, response.text).toBe(201);
    const accountId = response.body.data.id as number;
    const health = async () => {
      const view = await call('GET', `/api/target-accounts/${accountId}`, { token: owner.token });
      expect(view.status, view.text).toBe(200);
      return view.body.data.health as {
        signals: { count: number };
        meetings: { count: number };
        deals: { open: number; won: number };
      };
    };

    // A company lead that a contact also points at: its signal and meeting count once.
    const own = await createLead(owner, 'Own', 'Initech');
    await setCompany(own, company);
    const ownContact = await createContact(owner, { company_id: company, lead_id: own, email: 'own@initech.example' });
    await signal(own);
    await meeting({ lead_id: own, contact_id: ownContact });
    // A contact's lead at another company: its signal counts, and its meeting once though it names the contact too.
    const away = await createLead(owner, 'Away', 'Initech');
    await setCompany(away, globex);
    const awayContact = await createContact(owner, {
      company_id: company,
      lead_id: away,
      email: 'away@initech.example',
    });
    await signal(away);
    await signal(away, 45); // outside the 30-day window
    await meeting({ lead_id: away, contact_id: awayContact });
    // A won deal on the company's lead, an open one on the contact's lead elsewhere.
    const pipeline = await defaultPipeline(owner);
    const wonStage = pipeline.stages.find((stage) => stage.is_won)?.id as number;
    await addDeal(owner, pipeline, { lead_id: own, stage_id: wonStage });
    await addDeal(owner, pipeline, { lead_id: away });
    expect(await health()).toMatchObject({
      signals: { count: 2 },
      meetings: { count: 2 },
      deals: { open: 1, won: 1 },
    });

    // The company's lead leaves for another company: its signal and meeting go with it, except
    // the meeting that also names the account's contact.
    await setCompany(own, acme);
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update contacts set lead_id = null where id = ${ownContact}`),
    );
    expect(await health()).toMatchObject({ signals: { count: 1 }, meetings: { count: 2 }, deals: { open: 1, won: 0 } });
    // A lead joining the company brings its signals.
    const joiner = await createLead(owner, 'Joiner', 'Initech');
    await signal(joiner);
    await signal(joiner, 3);
    await setCompany(joiner, company);
    expect(await health()).toMatchObject({ signals: { count: 3 }, meetings: { count: 2 } });
  });
});
