/**
 * withTenantEffects, the transaction that queue consumers and provider callbacks write in: what
 * the work registers runs once the outcome is known and before it returns, after the commit (its
 * rows visible) or after the rollback (its rows gone), never both; a failing effect is logged and
 * costs the caller nothing.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTenantEffects } from '../src/core/transaction-effects';
import { withOwnDatabase, type Database } from '../src/db/client';
import { jobOutbox } from '../src/db/schema';
import { readConfig } from '../src/env';
import { signupOrganization, type SignedUp } from './helpers/api';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Effects');
});

const withDatabase = <T>(work: (db: Database) => Promise<T>) => withOwnDatabase(readConfig(env), work);

async function outboxRow(db: Database, id: number) {
  const rows = await db
    .select({ id: jobOutbox.id })
    .from(jobOutbox)
    .where(and(eq(jobOutbox.organizationId, org.orgId), eq(jobOutbox.id, id)));
  return rows.length;
}

describe('withTenantEffects', () => {
  it('runs the after-commit effects once the work committed, with its rows visible, before it returns', async () => {
    const seen: string[] = [];
    await withDatabase(async (db) => {
      const id = await withTenantEffects(db, env, org.orgId, async (tx, effects) => {
        const [row] = await tx
          .insert(jobOutbox)
          .values({ organizationId: org.orgId, message: { kind: 'lead-scoring', orgId: org.orgId, jobId: 0 } })
          .returning({ id: jobOutbox.id });
        effects.afterCommit(async ({ db: outside }) => {
          seen.push(`committed:${await outboxRow(outside, row.id)}`);
        });
        effects.afterRollback(async () => {
          seen.push('rolled back');
        });
        return row.id;
      });
      expect(seen).toEqual(['committed:1']);
      await db.delete(jobOutbox).where(eq(jobOutbox.id, id));
    });
  });

  it('runs the after-rollback effects when the work throws, with its rows gone, and rethrows', async () => {
    const seen: string[] = [];
    let written = 0;
    await withDatabase(async (db) => {
      const failure = withTenantEffects(db, env, org.orgId, async (tx, effects) => {
        const [row] = await tx
          .insert(jobOutbox)
          .values({ organizationId: org.orgId, message: { kind: 'lead-scoring', orgId: org.orgId, jobId: 0 } })
          .returning({ id: jobOutbox.id });
        written = row.id;
        effects.afterCommit(async () => {
          seen.push('committed');
        });
        effects.afterRollback(async ({ db: outside }) => {
          seen.push(`rolled back:${await outboxRow(outside, row.id)}`);
        });
        throw new Error('the work failed');
      });
      await expect(failure).rejects.toThrow('the work failed');
    });
    expect(written).toBeGreaterThan(0);
    expect(seen).toEqual(['rolled back:0']);
  });

  it('returns the committed result though an effect fails, and still runs the effects after it', async () => {
    const seen: string[] = [];
    const result = await withDatabase((db) =>
      withTenantEffects(db, env, org.orgId, async (_tx, effects) => {
        effects.afterCommit(async () => {
          throw new Error('the queue is down');
        });
        effects.afterCommit(async () => {
          seen.push('second');
        });
        return 'done';
      }),
    );
    expect(result).toBe('done');
    expect(seen).toEqual(['second']);
  });
});
