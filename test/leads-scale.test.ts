/**
 * Leads at scale: 20 000 leads in one organization. A select_all bulk action over all of them
 * is one statement (timed here; docs/domains/leads.md quotes the time), and the search_value predicate
 * matches the trigram GIN index of lead_search_documents inside the tenant transaction, shown with EXPLAIN.
 */
import { env } from 'cloudflare:test';
import { Pool } from '@neondatabase/serverless';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/env';
import {
  observeStatements,
  openDatabase,
  scopeSession,
  withTenant,
  type Database,
  type Transaction,
} from '../src/db/client';
import { liveHoldersSql, originalHolderSql } from '../src/modules/leads/dedupe';
import { leadFilterWhere } from '../src/modules/leads/filters';
import { runSearchWordsRefresh } from '../src/modules/leads/search-words';
import { partyByPhone, phoneCandidatesSql } from '../src/modules/voice/observed-calls';
import { addMember, call, signupOrganization, type SignedUp } from './helpers/api';
import { analyzeTable, plannedRows } from './helpers/leads';
import { statementsOf } from './helpers/statements';
import { STATISTICS_REFRESH_ROWS } from '../src/db/statistics';

const LEADS = 20_000;

let org: SignedUp;

/** The app's own database handle (the same driver and RLS scoping the Worker uses). */
const handle = openDatabase(readConfig(env));

function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  return work(handle.db);
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  const ms = Math.round(performance.now() - started);
  console.log(`[scale] ${label}: ${ms} ms`);
  return { result, ms };
}

beforeAll(async () => {
  org = await signupOrganization('Scale');
  await withDatabase((db) =>
    withTenant(db, org.orgId, (tx) =>
      tx.execute(sql`
      insert into leads (organization_id, first_name, last_name, email, company, job_title, city, status, priority, lead_source, phone_number)
      select ${org.orgId}, 'First' || g, 'Last' || g, 'lead' || g || '@scale.example', 'Company ' || (g % 500),
        case when g = 12345 then 'Quixotic Zephyr' else 'Buyer' end,
        case when g % 2 = 0 then 'Even City' else 'Odd City' end, 1, 1 + g % 4, 1 + g % 5,
        case when g = 777 then '(415) 555-0142' when g % 10 = 0 then '+1 (212) 555-' || lpad((g / 10)::text, 4, '0') end
      from generate_series(1, ${LEADS}) as g`),
    ),
  );
  await withDatabase((db) =>
    withTenant(db, org.orgId, (tx) =>
      tx.execute(sql`
      insert into contacts (organization_id, name, phone_number)
      select ${org.orgId}, 'Contact ' || g, '+44 20 7946 ' || lpad(g::text, 4, '0')
      from generate_series(1, 2000) as g`),
    ),
  );
  // Fresh statistics, as autovacuum would have after a bulk load. VACUUM too, not only ANALYZE:
  // it flushes the trigram GIN index's pending list, whose size (left by every test file's
  // inserts into the shared index) otherwise makes the planner's choice vary from run to run.
  await withDatabase((db) => db.execute(sql`vacuum analyze leads`));
  await withDatabase((db) => db.execute(sql`vacuum analyze lead_search_documents`));
  await withDatabase((db) => db.execute(sql`vacuum analyze contacts`));
}, 300_000);

afterAll(() => handle.close());

describe(`${LEADS} leads in one organization`, () => {
  /** The index condition of `index` in `plan`, or null when the plan does not read that index. */
  function indexCondition(plan: string, index: string): string | null {
    const lines = plan.split('\n');
    const at = lines.findIndex((line) => line.includes(`using ${index}`) || line.includes(`on ${index}`));
    return at === -1 ? null : (lines.slice(at + 1).find((line) => line.includes('Index Cond:')) ?? null);
  }

  /** The plan's index condition on lead_search_documents_trgm_idx, or null when that index serves no condition. */
  function trigramIndexCondition(plan: string): string | null {
    const lines = plan.split('\n');
    const at = lines.findIndex((line) => line.includes('Index Scan on lead_search_documents_trgm_idx'));
    return at === -1 ? null : (lines.slice(at + 1).find((line) => line.includes('Index Cond:')) ?? null);
  }

  async function explainSearch(db: Database | Transaction, term: string): Promise<string> {
    await db.execute(sql`set local enable_seqscan = off`);
    const result = await db.execute<{ 'QUERY PLAN': string }>(
      sql`explain select id from leads where ${leadFilterWhere({ orgId: org.orgId, userId: org.userId }, { search_value: term })}`,
    );
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it('serves search_value from lead_search_documents_trgm_idx inside the tenant transaction, organization and LIKE both as index conditions', async () => {
    // As the Worker runs it: role lm_app, row-level security on, app.organization_id set.
    const plan = await withDatabase((db) => withTenant(db, org.orgId, (tx) => explainSearch(tx, 'quixotic zeph')));
    const condition = trigramIndexCondition(plan);
    // The pattern comes from lead_search_index_pattern, once per statement (an InitPlan); the
    // whole term is checked on the candidates.
    expect(condition, plan).toMatch(/document ~~ (\$\d+|\(InitPlan \d+\)\.col1)\)/);
    expect(condition, plan).toContain('organization_id');
    expect(plan).toContain("strpos(document, 'quixotic zeph'::text) > 0");
    const listed = await call('GET', '/api/lead/list', { token: org.token, query: { search_value: 'Quixotic Zeph' } });
    expect(listed.body.data.map((lead: { first_name: string }) => lead.first_name)).toEqual(['First12345']);
  });

  it("leaves the organization's common words out of the trigram index condition, never out of the match", async () => {
    // Every lead's address ends in @scale.example and every company is "Company N": the daily
    // cron measures such words (organizations with 10 000 live leads or more).
    expect(await runSearchWordsRefresh(env)).toBeGreaterThanOrEqual(1);
    const words = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ word: string; share: number }>(sql`select word, share from lead_search_words order by word`),
      ),
    );
    const share = Object.fromEntries(words.rows.map((row) => [row.word, row.share]));
    expect(share).toMatchObject({ scale: 1, example: 1, company: 1, buyer: expect.closeTo(1, 3) });
    expect(share.lead12345).toBeUndefined();

    const indexPattern = (db: Database, orgId: number, pattern: string) =>
      withTenant(db, orgId, (tx) =>
        tx.execute<{ pattern: string }>(sql`select lead_search_index_pattern(${pattern}) as pattern`),
      ).then((result) => result.rows[0].pattern);
    await withDatabase(async (db) => {
      // The rare word anchors the index; the common ones are left to the check of the whole term.
      expect(await indexPattern(db, org.orgId, '%lead12345@scale.example%')).toBe('%lead12345%');
      expect(await indexPattern(db, org.orgId, '%first77 last77%')).toBe('%first77 last77%');
      // Every word common: the longest anchors and the others, which exclude nothing, leave.
      // Nothing common to leave out, or no word long enough to anchor: the pattern as it is.
      expect(await indexPattern(db, org.orgId, '%scale.example%')).toBe('%example%');
      expect(await indexPattern(db, org.orgId, '%quixotic zeph%')).toBe('%quixotic zeph%');
      expect(await indexPattern(db, org.orgId, '%ab@cd%')).toBe('%ab@cd%');
      // Another organization has no measured words: its searches keep their whole pattern.
      const other = await signupOrganization('Scale Neighbour');
      expect(await indexPattern(db, other.orgId, '%lead12345@scale.example%')).toBe('%lead12345@scale.example%');
      const seen = await withTenant(db, other.orgId, (tx) =>
        tx.execute<{ n: number }>(sql`select count(*)::int as n from lead_search_words`),
      );
      expect(seen.rows[0].n).toBe(0);
    });

    // '%lead1234%' also matches lead12340 … lead12349: the whole term must still decide.
    for (const [term, expected] of [
      ['lead1234@scale.example', ['First1234']],
      ['LEAD12345@Scale.Example', ['First12345']],
      ['lead1234@scale.examples', []],
    ] as const) {
      const listed = await call('GET', '/api/lead/list', { token: org.token, query: { search_value: term } });
      expect(listed.status, listed.text).toBe(200);
      expect(
        listed.body.data.map((lead: { first_name: string }) => lead.first_name),
        term,
      ).toEqual(expected);
      expect(listed.body.total, term).toBe(expected.length);
    }
  });

  it('finds the lead of a call nobody placed from here by its phone digits, through the digits indexes', async () => {
    // The seed gave lead 777 a phone, 2 000 other leads phones of their own, and the organization
    // 2 000 contacts with phones. With its lead the only one with a phone, the organization's
    // prefix of the digits index alone found one row, and the planner could fairly leave the
    // digits to a filter: the test then depended on statistics, not on what it checks.
    const [lead] = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ id: string }>(
          sql`select id from leads where organization_id = ${org.orgId} and first_name = 'First777'`,
        ),
      ),
    ).then((result) => result.rows);
    const party = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) => partyByPhone(tx, org.orgId, '+14155550142')),
    );
    expect(party).toEqual({ leadId: Number(lead.id), contactId: null, companyId: null });
    const explain = (settings: string[]) =>
      withDatabase((db) =>
        withTenant(db, org.orgId, async (tx) => {
          for (const setting of settings) await tx.execute(sql.raw(`set local ${setting} = off`));
          const result = await tx.execute<{ 'QUERY PLAN': string }>(
            sql`explain ${phoneCandidatesSql(org.orgId, ['14155550142', '4155550142'])}`,
          );
          return result.rows.map((row) => row['QUERY PLAN']).join('\n');
        }),
      );
    // Inside the tenant transaction both digits indexes can serve the digits, not only the
    // organization (on the tables themselves RLS kept regexp_replace a filter over every lead).
    // Which path the planner takes depends on statistics this shared database makes up from
    // every test's phones, so the plan is read with the walks of the ids and the scans disabled.
    const plan = await explain(['enable_seqscan', 'enable_indexscan']);
    for (const index of ['leads_organization_live_phone_digits_idx', 'contacts_organization_live_phone_digits_idx']) {
      expect(indexCondition(plan, index), plan).toContain('regexp_replace');
    }
  });

  it("checks a new lead's email and profile URL against the live leads through their indexes, never reading all the organization's leads", async () => {
    // Every create (POST /api/lead/add, ingestion, web forms, booking confirmations, each import
    // batch) looks up the live leads holding its email or profile URL, the flagged duplicates
    // too. As one condition over both, no index served it: a sequential scan of the organization's
    // leads (37 ms at 100 000 leads, linear in the organization). Read with sequential scans
    // disabled, so the plan shows whether an index can serve each part, not what today's
    // statistics of this shared database prefer.
    const plan = await withDatabase((db) =>
      withTenant(db, org.orgId, async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const result = await tx.execute<{ 'QUERY PLAN': string }>(
          sql`explain select ${liveHoldersSql({ orgId: org.orgId }, ['lead777@scale.example'], ['https://www.linkedin.com/in/lead-777/'])}`,
        );
        return result.rows.map((row) => row['QUERY PLAN']).join('\n');
      }),
    );
    expect(plan).not.toContain('Seq Scan on leads');
    // The originals by their keys, through the unique indexes.
    for (const [index, key] of [
      ['leads_organization_live_email_key', 'lower(email)'],
      ['leads_organization_live_profile_url_key', 'profile_url_key'],
    ]) {
      expect(indexCondition(plan, index) ?? 'not read', `${index}\n${plan}`).toContain(key);
    }
    // The flagged ones through their own partial indexes (with none flagged here, the planner
    // fairly reads one of them whole: it holds only the organization's flagged leads), and
    // nothing else: no index of all the organization's leads.
    const scanned = [...plan.matchAll(/Index (?:Only )?Scan (?:Backward )?(?:using|on) (\w+)/g)].map(
      (match) => match[1],
    );
    expect(scanned.filter((name) => name.includes('duplicate')).length, plan).toBeGreaterThan(0);
    expect(
      scanned.filter((name) => name.startsWith('leads_')),
      plan,
    ).toSatisfy((names: string[]) =>
      names.every((name) =>
        [
          'leads_organization_live_email_key',
          'leads_organization_live_profile_url_key',
          'leads_organization_live_duplicate_email_idx',
          'leads_organization_live_duplicate_profile_url_idx',
        ].includes(name),
      ),
    );
  });

  it('checks an updated email or profile URL through the unique indexes', async () => {
    const plan = await withDatabase((db) =>
      withTenant(db, org.orgId, async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const plans: string[] = [];
        for (const key of [{ email: 'Lead777@Scale.Example' }, { url: 'https://www.linkedin.com/in/lead-777/' }]) {
          const result = await tx.execute<{ 'QUERY PLAN': string }>(
            sql`explain ${originalHolderSql(org.orgId, key, 1)}`,
          );
          plans.push(result.rows.map((row) => row['QUERY PLAN']).join('\n'));
        }
        return plans;
      }),
    );
    expect(indexCondition(plan[0], 'leads_organization_live_email_key') ?? 'not read', plan[0]).toContain(
      'lower(email)',
    );
    expect(indexCondition(plan[1], 'leads_organization_live_profile_url_key') ?? 'not read', plan[1]).toContain(
      'profile_url_key',
    );
  });

  it('finds the holders in the scoping statement itself, which sets the organization the view reads', async () => {
    // Ingestion and booking confirmations read the write context in the statement that scopes the
    // session (core/database.ts): lead_key_scope must see the organization set earlier in it.
    const [lead] = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ id: string }>(
          sql`select id from leads where organization_id = ${org.orgId} and first_name = 'First777'`,
        ),
      ),
    ).then((result) => result.rows);
    let holders: { id: number }[] = [];
    await withDatabase((db) =>
      db
        .transaction(async (tx) => {
          await tx.execute(sql`select set_config('app.organization_id', '', true)`);
          const scoped = await scopeSession<{ holders: { id: number }[] }>(
            tx,
            org.orgId,
            sql`${liveHoldersSql({ orgId: org.orgId }, ['lead777@scale.example'], [])} as holders`,
          );
          holders = scoped.holders;
          // The session settings of scopeSession outlive a committed transaction: roll it back.
          tx.rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof TransactionRollbackError)) throw error;
        }),
    );
    expect(holders.map((holder) => Number(holder.id))).toEqual([Number(lead.id)]);
  });

  it("reads an organization's list page in its own id order, never walking another organization's ids", async () => {
    // Another organization whose leads all have higher ids: leads_pkey backwards from the top, with
    // the organization as a filter, would read all of them before the first lead of this one.
    const later = await signupOrganization('Scale later');
    await withDatabase((db) =>
      withTenant(db, later.orgId, (tx) =>
        tx.execute(sql`
        insert into leads (organization_id, first_name, last_name, email, status)
        select ${later.orgId}, 'Later' || g, 'Last' || g, 'later' || g || '@scale.example', 1
        from generate_series(1, ${LEADS}) as g`),
      ),
    );
    await withDatabase((db) => db.execute(sql`vacuum analyze leads`));
    const sent: { text: string; values: unknown }[] = [];
    const stop = observeStatements((text, _connection, _first, values) => sent.push({ text, values }));
    let page: Awaited<ReturnType<typeof call<{ data: { id: number }[] }>>>;
    try {
      page = await call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } });
    } finally {
      stop();
    }
    expect(page.status).toBe(200);
    const ids = page.body.data.map((lead: { id: number }) => lead.id);
    expect(ids).toHaveLength(100);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const statement = sent.find(({ text }) => /from "leads"/.test(text) && /order by/.test(text));
    expect(statement, 'the page statement').toBeDefined();
    // The statement as sent, with its parameters, explained as lm_app in the organization's scope.
    const pool = new Pool({ connectionString: readConfig(env).DATABASE_URL, max: 1 });
    const client = await pool.connect();
    let plan = '';
    try {
      await client.query('begin');
      await client.query(`select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, [
        String(org.orgId),
      ]);
      const explained = await client.query(`explain ${statement?.text}`, statement?.values as unknown[]);
      plan = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    } finally {
      await client.query('rollback');
      client.release();
      await pool.end();
    }
    expect(plan).toMatch(/Index Scan using leads_organization_live_id_order_idx on leads/);
    expect(plan).not.toMatch(/leads_pkey/);
  });

  it('finds nothing through the scope views outside a tenant transaction, and only its own rows inside one', async () => {
    for (const view of ['lead_search_scope', 'lead_phone_scope', 'contact_phone_scope', 'lead_key_scope']) {
      const rows = await withDatabase((db) =>
        db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(view)}`),
      );
      expect(rows.rows[0].n, view).toBe(0);
    }
    // Inside one, only the organization's own rows: its live leads with a phone.
    const inside = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ n: number; foreign: number }>(
          sql`select count(*)::int as n, count(*) filter (where organization_id <> ${org.orgId})::int as foreign from lead_phone_scope`,
        ),
      ),
    );
    const own = await withDatabase((db) =>
      db.execute<{ n: number }>(
        sql`select count(*)::int as n from leads where organization_id = ${org.orgId} and deleted_at is null and phone_number is not null`,
      ),
    );
    expect(own.rows[0].n).toBeGreaterThan(0);
    expect(inside.rows[0]).toEqual({ n: own.rows[0].n, foreign: 0 });
    // The dedupe keys' view: the organization's live leads, no one else's.
    const keyed = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ n: number; foreign: number }>(
          sql`select count(*)::int as n, count(*) filter (where organization_id <> ${org.orgId})::int as foreign from lead_key_scope`,
        ),
      ),
    );
    const live = await withDatabase((db) =>
      db.execute<{ n: number }>(
        sql`select count(*)::int as n from leads where organization_id = ${org.orgId} and deleted_at is null`,
      ),
    );
    expect(keyed.rows[0]).toEqual({ n: live.rows[0].n, foreign: 0 });
  });

  it('changes the status of every lead with select_all in one statement', async () => {
    // A one-lead update first: the leads' statement triggers then plan their join of old and new
    // rows again for the bulk one (migration 0063), instead of reusing a plan made for one row,
    // which compared every new row with every old one (130 s here instead of 2).
    const [one] = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ id: string }>(
          sql`select id from leads where organization_id = ${org.orgId} and first_name = 'First5'`,
        ),
      ),
    ).then((result) => result.rows);
    const renamed = await call('POST', `/api/lead/update/${one.id}`, {
      token: org.token,
      body: { job_title: 'Head of Buying' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const { result, ms } = await timed(`status-change select_all over ${LEADS} leads`, () =>
      call('POST', '/api/lead/status-change', { token: org.token, body: { select_all: true, status: 2 } }),
    );
    expect(result.status, result.text).toBe(200);
    expect(result.body.data.updated).toBe(LEADS);
    expect(ms).toBeLessThan(30_000);
    const stillNew = await call('GET', '/api/lead/list', { token: org.token, query: { state_id: '1', limit: 1 } });
    expect(stillNew.body.total).toBe(0);
    const feed = await withDatabase((db) =>
      withTenant(db, org.orgId, (tx) =>
        tx.execute<{ n: number }>(sql`select count(*)::int as n from feed_entries where action = 'status_changed'`),
      ),
    );
    expect(feed.rows[0].n).toBe(LEADS);
  }, 180_000);

  it('assigns and tags the leads a filter selects, with one notification for the assignee', async () => {
    // lead_tags analyzed before this organization had a tag, as a shared table's statistics are
    // when a new customer first tags its leads: the organization's tags are estimated at about
    // one row. The first bulk tagging refreshes them; without that, replacing the tags next
    // was planned as a nested loop over the CTE of target leads (50 s here instead of 2).
    await analyzeTable('lead_tags');
    expect(await plannedRows(org.orgId, 'lead_tags')).toBeLessThan(100);
    // A rep of the organization (the caller is not told of its own assignments).
    const rep = await addMember(org, { first_name: 'Scale' });
    const assigned = await timed(`assign-user select_all over ${LEADS / 2} filtered leads`, () =>
      call('POST', '/api/lead/assign-user', {
        token: org.token,
        body: { select_all: true, filters: { city: 'even city' }, assigned_to: rep.userId },
      }),
    );
    expect(assigned.result.body.data.updated).toBe(LEADS / 2);
    const notices = await call('GET', '/api/notification/list', { token: rep.token });
    expect(
      notices.body.data.filter((notice: { title: string }) => notice.title === `${LEADS / 2} leads assigned to you`),
    ).toHaveLength(1);
    const tags = (await call('GET', '/api/custom-lookups/list', { token: org.token, query: { type: 'tags' } })).body
      .data;
    const tagged = await timed(`assign-tags select_all over ${LEADS} leads`, () =>
      call('POST', '/api/lead/assign-tags', {
        token: org.token,
        body: { select_all: true, tags: [tags[0].id, tags[1].id] },
      }),
    );
    expect(tagged.result.body.data.updated).toBe(LEADS);
    expect(await plannedRows(org.orgId, 'lead_tags')).toBeGreaterThan(LEADS);
    const replaced = await timed(`set-assign-tags select_all over ${LEADS} leads`, () =>
      call('POST', '/api/lead/set-assign-tags', { token: org.token, body: { select_all: true, tags: [tags[1].id] } }),
    );
    expect(replaced.result.body.data.updated).toBe(LEADS);
    expect(Math.max(assigned.ms, tagged.ms, replaced.ms)).toBeLessThan(30_000);
  }, 300_000);

  it('tags leads named by id: at the statistics threshold the refresh follows the statement, below it the COMMIT rides with it', async () => {
    const ids = await withDatabase((db) =>
      withTenant(db, org.orgId, async (tx) =>
        (
          await tx.execute<{ id: number }>(
            sql`select id from leads where organization_id = ${org.orgId} order by id limit ${STATISTICS_REFRESH_ROWS / 2 + 100}`,
          )
        ).rows.map((row) => Number(row.id)),
      ),
    );
    const newTag = async (name: string) => {
      const added = await call('POST', '/api/custom-lookups/add', {
        token: org.token,
        body: { module_name: 'lead', type: 'tags', name: `${name} ${crypto.randomUUID().slice(0, 6)}` },
      });
      expect(added.status, added.text).toBe(201);
      return added.body.data.id as number;
    };
    const tags = [await newTag('Named A'), await newTag('Named B')];
    // 2 tags on 600 leads: 1 200 rows, at least the threshold.
    const many = await statementsOf(() =>
      call('POST', '/api/lead/assign-tags', { token: org.token, body: { ids, tags } }),
    );
    expect(many.response.status, many.response.text).toBe(200);
    expect(many.response.body.data).toEqual({ updated: ids.length });
    expect(many.statements.filter((text) => /refresh_table_statistics/.test(text))).toHaveLength(1);
    const fewTag = await newTag('Few');
    const few = await statementsOf(() =>
      call('POST', '/api/lead/assign-tags', { token: org.token, body: { ids: ids.slice(0, 3), tags: [fewTag] } }),
    );
    expect(few.response.status, few.response.text).toBe(200);
    expect(few.response.body.data).toEqual({ updated: 3 });
    expect(few.statements.some((text) => /refresh_table_statistics/.test(text))).toBe(false);
    // Scope, the tags (BEGIN with them), the one statement (COMMIT with it).
    expect(few.roundTrips, few.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  }, 120_000);
});
