/**
 * Companies by name and contacts by email, compared without case, through their unique indexes
 * (migration 0074). Inside a tenant transaction row-level security keeps lower() (not leakproof)
 * out of index conditions on the tables, so the name check of a company create or update, "link
 * or create by name" of a lead's company, the company import's match and a contact's email check
 * each read every company or contact of the organization. They now read company_key_scope and
 * contact_key_scope, which confine themselves to the transaction's organization. The company
 * list's industry filter compares the stored key column industry_key (migration 0076) instead. Plans are read
 * with sequential scans disabled: the question is whether an index can serve the key, not what
 * this shared database's statistics prefer.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyNamedSql } from '../src/db/company-names';
import { openDatabase, withTenant, type Transaction } from '../src/db/client';
import { companies, companyKeyScope } from '../src/db/schema';
import { companyFilterWhere } from '../src/modules/companies/filters';
import { readConfig } from '../src/env';
import { heldCompaniesSql, importCompaniesBatch } from '../src/modules/companies/import-batch';
import { actorContext } from '../src/db/tenant';
import { contactEmailHolderSql } from '../src/modules/contacts/service';
import { signupOrganization, type SignedUp } from './helpers/api';

const handle = openDatabase(readConfig(env));
let org: SignedUp;
let other: SignedUp;

async function seed(owner: SignedUp, count: number) {
  await withTenant(handle.db, owner.orgId, async (tx) => {
    await tx.execute(sql`
      insert into companies (organization_id, company_name, website_domain)
      select ${owner.orgId}, 'Keyed Company ' || g, 'keyed-' || g || '.example' from generate_series(1, ${count}) as g`);
    await tx.execute(sql`
      insert into contacts (organization_id, name, email)
      select ${owner.orgId}, 'Keyed Contact ' || g, 'Keyed.Contact' || g || '@Keys.Example' from generate_series(1, ${count}) as g`);
  });
}

beforeAll(async () => {
  [org, other] = await Promise.all([signupOrganization('Keyed'), signupOrganization('Keyed other')]);
  await Promise.all([seed(org, 500), seed(other, 20)]);
  await handle.db.execute(sql`analyze companies`);
  await handle.db.execute(sql`analyze contacts`);
});

afterAll(() => handle.close());

/** The plan of `statement` inside the organization's tenant transaction, sequential scans off. */
function explain(statement: (tx: Transaction) => ReturnType<typeof sql>): Promise<string> {
  return withTenant(handle.db, org.orgId, async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const result = await tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${statement(tx)}`);
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** The index condition of the first scan of `index` in `plan`, or null when it serves none. */
function indexCondition(plan: string, index: string): string | null {
  const lines = plan.split('\n');
  const at = lines.findIndex((line) => line.includes(`on ${index}`) || line.includes(`using ${index}`));
  return at === -1 ? null : (lines.slice(at + 1).find((line) => line.includes('Index Cond:')) ?? null);
}

describe('companies by name and contacts by email', () => {
  it('finds a company by name through the unique name index, never reading every company', async () => {
    const plan = await explain(
      () =>
        sql`select ${companyKeyScope.id} from ${companyKeyScope} where ${companyNamedSql(org.orgId, ['KEYED company 77'])}`,
    );
    expect(plan).not.toContain('Seq Scan');
    expect(indexCondition(plan, 'companies_organization_name_key') ?? 'not read', plan).toContain(
      'lower(company_name)',
    );
    const found = await withTenant(handle.db, org.orgId, (tx) =>
      tx
        .select({ id: companyKeyScope.id, name: companyKeyScope.companyName })
        .from(companyKeyScope)
        .where(companyNamedSql(org.orgId, ['KEYED company 77', 'keyed COMPANY 78', 'Keyed Company 9999'])),
    );
    expect(found.map((row) => row.name).sort()).toEqual(['Keyed Company 77', 'Keyed Company 78']);
  });

  it("matches an import's rows by CRM record, domain and name, each through its index", async () => {
    const plan = await explain(() =>
      heldCompaniesSql(org.orgId, 'hubspot', {
        externalIds: ['crm-1'],
        domains: ['keyed-12.example'],
        names: ['Keyed Company 13'],
      }),
    );
    expect(plan).not.toContain('Seq Scan');
    expect(indexCondition(plan, 'companies_organization_name_key') ?? 'not read', plan).toContain(
      'lower(company_name)',
    );
    expect(indexCondition(plan, 'companies_organization_domain_idx') ?? 'not read', plan).toContain('website_domain');
    const held = await withTenant(handle.db, org.orgId, (tx) =>
      tx.execute<{ kind: string; website_domain: string; name_key: string }>(
        heldCompaniesSql(org.orgId, 'hubspot', {
          externalIds: ['crm-1'],
          domains: ['keyed-12.example'],
          names: ['KEYED Company 13'],
        }),
      ),
    );
    const companies = held.rows.filter((row) => row.kind === 'held');
    expect(companies.map((row) => row.name_key).sort()).toEqual(['keyed company 12', 'keyed company 13']);
    // Each name's key, lowered by the database, in the order given.
    expect(held.rows.filter((row) => row.kind === 'key').map((row) => row.name_key)).toEqual(['keyed company 13']);
  });

  it('an import row names an existing company whatever letters its case folds: a final Σ, a dotted İ', async () => {
    // JavaScript lowers 'ΟΔΟΣ' to 'οδος' and 'İ' to 'i' with a combining dot; PostgreSQL's lower()
    // (the unique index's expression) to 'οδοσ' and 'i'. Keyed in JavaScript, these rows missed
    // their companies and the index then refused them as new ones.
    const ids = await withTenant(handle.db, org.orgId, async (tx) => {
      const result = await tx.execute<{ id: number }>(sql`
        insert into companies (organization_id, company_name)
        values (${org.orgId}, 'ΟΔΟΣ ΕΜΠΟΡΙΚΗ'), (${org.orgId}, 'İZMİR TEKSTİL')
        returning id`);
      return result.rows.map((row) => Number(row.id));
    });
    const imported = await withTenant(handle.db, org.orgId, (tx) =>
      importCompaniesBatch(
        { db: tx, orgId: org.orgId, ...actorContext({ kind: 'user', userId: org.userId, role: 'admin' }) },
        'hubspot',
        [
          { rowNumber: 1, externalId: 'gr-1', values: { company_name: 'ΟΔΟΣ ΕΜΠΟΡΙΚΗ', industry_type: 'Retail' } },
          { rowNumber: 2, externalId: 'tr-1', values: { company_name: 'İZMİR TEKSTİL', industry_type: 'Textiles' } },
        ],
      ),
    );
    expect(imported.skipped).toEqual([]);
    expect(imported.errors).toEqual([]);
    expect(imported.created).toBe(0);
    expect(imported.merged).toEqual([
      { rowNumber: 1, companyId: ids[0] },
      { rowNumber: 2, companyId: ids[1] },
    ]);
    const rows = await withTenant(handle.db, org.orgId, (tx) =>
      tx.execute<{ id: number; external_id: string; industry_type: string }>(sql`
        select id, external_id, industry_type from companies where id in (${ids[0]}, ${ids[1]}) order by id`),
    );
    expect(rows.rows.map((row) => [Number(row.id), row.external_id, row.industry_type])).toEqual([
      [ids[0], 'gr-1', 'Retail'],
      [ids[1], 'tr-1', 'Textiles'],
    ]);
  });

  it('filters companies by industry, any case, through the industry index', async () => {
    // The key is a stored column compared with texteq (leakproof), so row-level security lets
    // the index serve it; lower(industry_type) on the table stayed a filter after the policy.
    const where = companyFilterWhere({ orgId: org.orgId, userId: org.userId }, { industry: 'SHIPBUILDING' });
    const plan = await explain(() => sql`select ${companies.id} from ${companies} where ${where}`);
    expect(plan).not.toContain('Seq Scan');
    expect(indexCondition(plan, 'companies_organization_industry_key_idx') ?? 'not read', plan).toContain(
      'industry_key',
    );
    const found = await withTenant(handle.db, org.orgId, async (tx) => {
      await tx.execute(sql`update companies set industry_type = 'Shipbuilding' where company_name = 'Keyed Company 7'`);
      return tx.execute<{ id: number; company_name: string }>(
        sql`select ${companies.id}, ${companies.companyName} from ${companies} where ${where}`,
      );
    });
    expect(found.rows.map((row) => row.company_name)).toEqual(['Keyed Company 7']);
  });

  it("checks a contact's email through the unique email index, never reading every contact", async () => {
    const plan = await explain(() => contactEmailHolderSql(org.orgId, 'keyed.contact77@keys.example'));
    expect(plan).not.toContain('Seq Scan');
    expect(indexCondition(plan, 'contacts_organization_email_key') ?? 'not read', plan).toContain('lower(email)');
  });

  it('shows nothing through the views outside a tenant transaction, and only its own rows inside one', async () => {
    for (const view of ['company_key_scope', 'contact_key_scope']) {
      const outside = await handle.db.execute<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(view)}`,
      );
      expect(outside.rows[0].n, view).toBe(0);
      const inside = await withTenant(handle.db, other.orgId, (tx) =>
        tx.execute<{ n: number; foreign: number }>(
          sql`select count(*)::int as n, count(*) filter (where organization_id <> ${other.orgId})::int as foreign
            from ${sql.identifier(view)}`,
        ),
      );
      const own = await handle.db.execute<{ n: number }>(
        view === 'company_key_scope'
          ? sql`select count(*)::int as n from companies where organization_id = ${other.orgId} and deleted_at is null`
          : sql`select count(*)::int as n from contacts where organization_id = ${other.orgId} and deleted_at is null and email is not null`,
      );
      expect(own.rows[0].n, view).toBeGreaterThanOrEqual(20);
      expect(inside.rows[0], view).toEqual({ n: own.rows[0].n, foreign: 0 });
    }
  });
});
