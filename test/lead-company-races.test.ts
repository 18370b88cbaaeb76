/**
 * Writes that meet on one lead, run at once (PostgreSQL only: PGlite runs one transaction at a
 * time, so these pass there whatever the locks). A lead's company change or deletion and a write
 * of its deals lock the lead first, then the deals (src/modules/leads/row-locks.ts), and a signal,
 * meeting or deal inserted while the lead's company changes carries the company it changed to
 * (drizzle/0093).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { deleteCompanies } from '../src/modules/companies/service';
import { deleteDeals, updateDeal } from '../src/modules/deals/service';
import { deleteLeads, updateLead } from '../src/modules/leads/update';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createCompany } from './helpers/accounts';
import { addDeal, defaultPipeline } from './helpers/deals';
import { asTenant, createLead, inOrganization } from './helpers/leads';

let owner: SignedUp;
let acme: number;
let globex: number;

beforeAll(async () => {
  owner = await signupOrganization('Lead company races');
  [acme, globex] = [
    await createCompany(owner, { company_name: 'Acme' }),
    await createCompany(owner, { company_name: 'Globex' }),
  ];
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function skipOnPglite(context: TestContext) {
  const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
  if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
}

/** A signal that lets its caller know when it happened. */
function signalled() {
  let fire: () => void = () => {};
  const happened = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { happened, fire };
}

async function leadAt(companyId: number | null, name: string) {
  const lead = await createLead(owner, name, 'Race');
  const response = await call('POST', `/api/lead/update/${lead}`, {
    token: owner.token,
    body: { company_id: companyId },
  });
  expect(response.status, response.text).toBe(200);
  return lead;
}

/** The lead's deal counts and each deal's carried company, and whether the company rollup of deals matches the deals. */
async function leadState(leadId: number) {
  return inOrganization(owner.orgId, async (tx) => {
    const lead = await tx.execute<{ open_deals: number; won_deals: number; company_id: number | null }>(
      sql`select open_deals, won_deals, company_id::int as company_id from leads where id = ${leadId}`,
    );
    const carried = await tx.execute<{ kind: string; company: number | null }>(sql`
      select 'deal' as kind, lead_company_id::int as company from deals where lead_id = ${leadId}
      union all select 'signal', lead_company_id::int from intent_signals where lead_id = ${leadId}
      union all select 'meeting', lead_company_id::int from meetings where lead_id = ${leadId}`);
    const rolled = await tx.execute<{ k: string; v: string }>(sql`
      select company_id || '|' || outcome as k, sum(delta) || '|' || sum(value_sum)::numeric(14, 2) as v
      from company_deal_counts group by 1 having sum(delta) <> 0 or sum(value_sum) <> 0 order by 1`);
    const counted = await tx.execute<{ k: string; v: string }>(sql`
      select l.company_id || '|' || d.outcome as k, count(*) || '|' || sum(d.value)::numeric(14, 2) as v
      from deals d join leads l on l.id = d.lead_id and l.deleted_at is null
      where l.company_id is not null group by 1 order by 1`);
    return { lead: lead.rows[0], carried: carried.rows, rolled: rolled.rows, counted: counted.rows };
  });
}

describe('a deal write and a change of its lead, at once', () => {
  it('a deal won while its lead changes company: both commit (no deadlock), counts and companies agree', async (context) => {
    await skipOnPglite(context);
    const lead = await leadAt(acme, 'Won');
    const pipeline = await defaultPipeline(owner);
    const deal = await addDeal(owner, pipeline, { lead_id: lead });
    const won = pipeline.stages.find((stage) => stage.is_won);
    if (!won) throw new Error('no won stage');
    const locked = signalled();
    // The company change holds the lead (updateLead's first statement) while the deal is won.
    const change = asTenant(owner, async (ctx) => {
      await ctx.db.execute(sql`select id from leads where id = ${lead} for update`);
      locked.fire();
      await pause(700);
      return updateLead(ctx, lead, { company_id: globex });
    });
    await locked.happened;
    const outcome = asTenant(owner, (ctx) => updateDeal(ctx, deal.id, { stage_id: won.id }, new Date()));
    const settled = await Promise.allSettled([change, outcome]);
    expect(
      settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok')),
      'both writes commit',
    ).toEqual(['ok', 'ok']);
    const state = await leadState(lead);
    expect(state.lead).toMatchObject({ open_deals: 0, won_deals: 1, company_id: globex });
    expect(state.carried).toEqual([{ kind: 'deal', company: globex }]);
    expect(state.rolled).toEqual(state.counted);
  });

  it('a deal deleted while its lead is deleted: both commit (no deadlock)', async (context) => {
    await skipOnPglite(context);
    const lead = await leadAt(acme, 'Gone');
    const pipeline = await defaultPipeline(owner);
    const deal = await addDeal(owner, pipeline, { lead_id: lead });
    const locked = signalled();
    const removal = asTenant(owner, async (ctx) => {
      await ctx.db.execute(sql`select id from leads where id = ${lead} for update`);
      locked.fire();
      await pause(700);
      return deleteLeads(ctx, [lead]);
    });
    await locked.happened;
    const dealRemoval = asTenant(owner, (ctx) => deleteDeals(ctx, [deal.id]));
    const settled = await Promise.allSettled([removal, dealRemoval]);
    expect(settled.map((result) => (result.status === 'rejected' ? String(result.reason) : result.value))).toEqual([
      1, 1,
    ]);
    const state = await leadState(lead);
    expect(state.lead).toMatchObject({ open_deals: 0, won_deals: 0 });
    expect(state.rolled).toEqual(state.counted);
  });
});

describe('rows inserted while their lead changes company', () => {
  it('a signal, a meeting and a deal added during the change carry the company it changed to', async (context) => {
    await skipOnPglite(context);
    const lead = await leadAt(acme, 'Moving');
    const pipeline = await defaultPipeline(owner);
    const changed = signalled();
    // The change commits 1 s after it wrote the lead; the inserts run meanwhile.
    const change = asTenant(owner, async (ctx) => {
      await updateLead(ctx, lead, { company_id: globex });
      changed.fire();
      await pause(1_000);
    });
    await changed.happened;
    const inserts = Promise.all([
      call('POST', '/api/intent-alert/signal', {
        token: owner.token,
        body: { lead_id: lead, signal_type: 'pricing_page_visit' },
      }),
      call('POST', '/api/meeting/add', {
        token: owner.token,
        body: {
          lead_id: lead,
          title: 'Account call',
          start_time: new Date(Date.now() + 86_400_000).toISOString(),
          end_time: new Date(Date.now() + 86_400_000 + 1_800_000).toISOString(),
        },
      }),
      addDeal(owner, pipeline, { lead_id: lead }),
    ]);
    await change;
    const [signal, meeting] = await inserts;
    expect(signal.status, signal.text).toBe(201);
    expect(meeting.status, meeting.text).toBe(201);
    const state = await leadState(lead);
    expect(state.carried.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: 'deal', company: globex },
      { kind: 'meeting', company: globex },
      { kind: 'signal', company: globex },
    ]);
    expect(state.rolled).toEqual(state.counted);
  });

  it('a signal added while its lead is deleted carries no company', async (context) => {
    await skipOnPglite(context);
    const lead = await leadAt(acme, 'Deleted');
    const deleted = signalled();
    const removal = asTenant(owner, async (ctx) => {
      await deleteLeads(ctx, [lead]);
      deleted.fire();
      await pause(1_000);
    });
    await deleted.happened;
    // The signal's lead check read the lead live; it is recorded, for a lead that is gone.
    const signal = call('POST', '/api/intent-alert/signal', {
      token: owner.token,
      body: { lead_id: lead, signal_type: 'pricing_page_visit' },
    });
    await removal;
    await signal;
    const state = await leadState(lead);
    for (const row of state.carried) expect(row).toEqual({ kind: 'signal', company: null });
  });
});

describe('a company deleted while a deal of its leads reopens', () => {
  it('the delete waits for the reopen and is refused (409), the company stays', async (context) => {
    await skipOnPglite(context);
    const company = await createCompany(owner, { company_name: `Reopened ${crypto.randomUUID().slice(0, 6)}` });
    const lead = await leadAt(company, 'Reopened');
    const pipeline = await defaultPipeline(owner);
    const won = pipeline.stages.find((stage) => stage.is_won);
    const open = pipeline.stages.find((stage) => !stage.is_won && !stage.is_lost);
    if (!won || !open) throw new Error('no won or open stage');
    const deal = await addDeal(owner, pipeline, { lead_id: lead, stage_id: won.id });
    const reopened = signalled();
    // The reopen has written the deal (won -> open) and commits 700 ms later.
    const reopen = asTenant(owner, async (ctx) => {
      await updateDeal(ctx, deal.id, { stage_id: open.id }, new Date());
      reopened.fire();
      await pause(700);
    });
    await reopened.happened;
    const removal = asTenant(owner, (ctx) => deleteCompanies(ctx, { ids: [company] }));
    const settled = await Promise.allSettled([reopen, removal]);
    expect(settled.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([
      'ok',
      expect.stringContaining('open deals'),
    ]);
    const view = await call('GET', `/api/company/view/${company}`, { token: owner.token });
    expect(view.status, view.text).toBe(200);
    expect((await leadState(lead)).lead).toMatchObject({ open_deals: 1, won_deals: 0 });
  });
});
