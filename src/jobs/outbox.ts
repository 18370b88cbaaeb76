/**
 * The transactional outbox: how a request starts a job. `enqueueJob` writes the message as a
 * row in the caller's transaction and registers its send for after the commit, so a message
 * leaves if and only if the job it points at has committed. A send that fails (or never runs,
 * because the isolate went away) leaves the row behind, and the cron sweep sends it.
 * Delivery is at least once: a send whose row delete then fails is sent again by the sweep,
 * which job handlers tolerate (they claim and checkpoint in Postgres).
 */
import { and, eq, getTableColumns, getTableName, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { log } from '../core/log';
import { inBatches } from '../db/batches';
import { withOwnDatabase, type Database, type Queryable } from '../db/client';
import { jobOutbox } from '../db/schema';
import type { TenantContext } from '../db/tenant';
import { readConfig, type Bindings } from '../env';
import type { JobKind, JobMessage } from './messages';

/** Rows younger than this belong to a request whose own after-commit send may still be under way. */
export const OUTBOX_SWEEP_AFTER_SECONDS = 10;
/** A queue's sendBatch takes at most 100 messages; a sweep sends at most this many batches. */
const SWEEP_BATCH = 100;
const SWEEP_MAX_BATCHES = 20;

/** A message without its organization: the outbox takes it from the context, so it cannot differ. */
export type OutboxMessage = JobMessage extends infer M ? (M extends JobMessage ? Omit<M, 'orgId'> : never) : never;

export async function enqueueJob(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  message: OutboxMessage,
): Promise<void> {
  const body = { ...message, orgId: ctx.orgId } as JobMessage;
  const [row] = await ctx.db
    .insert(jobOutbox)
    .values({ organizationId: ctx.orgId, message: body })
    .returning({ id: jobOutbox.id });
  sendAfterCommit(ctx, row.id, body);
}

/**
 * A job row and its outbox message in one statement (one round trip where a job insert and
 * enqueueJob took two): `values` inserted into `table` (a job table with an `id`), the message
 * `{ kind, orgId, jobId }` written from the row it returns, and sent after the commit as
 * enqueueJob's. Answers the job as a select of `table` would read it: the statement's last CTE is
 * named after the table and holds the inserted row, so drizzle maps the columns as usual.
 */
export async function insertJob<TTable extends PgTable & { id: AnyPgColumn }>(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  kind: JobKind,
  table: TTable,
  values: TTable['$inferInsert'],
): Promise<TTable['$inferSelect']> {
  const written = ctx.db.$with('job_written', {}).as(ctx.db.insert(table).values(values).returning().getSQL());
  const message = sql`jsonb_build_object('kind', ${kind}::text, 'orgId', ${ctx.orgId}::bigint, 'jobId', job_written.id)`;
  const outbox = ctx.db.$with('job_message', {}).as(outboxInsertSql(ctx.orgId, sql`job_written`, message));
  const asTable = ctx.db.$with(getTableName(table), {}).as(sql`select * from job_written`);
  const [row] = await ctx.db
    .with(written, outbox, asTable)
    .select({ ...getTableColumns(table), outboxId: sql<string>`(select id from job_message)` })
    .from(table as PgTable);
  const { outboxId, ...job } = row as Record<string, unknown> & { outboxId: string };
  sendAfterCommit(ctx, Number(outboxId), { kind, orgId: ctx.orgId, jobId: Number(job.id) } as JobMessage);
  return job as TTable['$inferSelect'];
}

/**
 * The send of an outbox row a caller wrote itself (inside a larger statement, to spare a round
 * trip: outboxInsertSql), registered for after the commit as enqueueJob does.
 */
export function sendAfterCommit(ctx: Pick<TenantContext, 'orgId' | 'effects'>, rowId: number, body: JobMessage) {
  // Without effects (a transaction outside requests and withTenantEffects) the row waits for the sweep.
  ctx.effects?.afterCommit(async ({ db, env }) => {
    await env.JOBS.send(body);
    await db.delete(jobOutbox).where(and(eq(jobOutbox.organizationId, ctx.orgId), eq(jobOutbox.id, rowId)));
  });
}

/**
 * An outbox insert for a CTE: one row per row of `from`, its message built by `message` (a jsonb
 * expression over `from`'s columns), returning the row's id. The caller sends each after the
 * commit with sendAfterCommit.
 */
export function outboxInsertSql(orgId: number, from: SQL, message: SQL): SQL {
  return sql`insert into ${jobOutbox} (organization_id, message)
    select ${orgId}, ${message} from ${from}
    returning id`;
}

/**
 * A job row and its outbox message, written by two CTEs of the caller's own statement (so a
 * write that starts a job costs no extra round trip): `<name>_job` runs `jobInsert` (an INSERT
 * into a job table returning `id`, any number of rows), `<name>_outbox` writes the message of each
 * job it returned. The statement must return the outbox rows (`select id, message from
 * <name>_outbox`), which the caller hands to `sendRowsAfterCommit`.
 */
export function jobOutboxCtes(orgId: number, name: string, kind: JobMessage['kind'], jobInsert: SQL): SQL {
  const job = sql.identifier(`${name}_job`);
  return sql`${job} as (${jobInsert}), ${sql.identifier(`${name}_outbox`)} as (
    insert into ${jobOutbox} (organization_id, message)
    select ${orgId}::bigint, jsonb_build_object('kind', ${kind}::text, 'orgId', ${orgId}::bigint, 'jobId', j.id)
    from ${job} j
    returning id, message
  )`;
}

/**
 * Sends outbox rows a statement wrote itself (`jobOutboxCtes`) after the commit, then deletes
 * them, as `enqueueJob` does; without effects they wait for the sweep.
 * `consumerDeletes`: the job's handler deletes its own outbox row when it runs (deleteOutboxRows),
 * so the request spends no statement on it; a message sent twice meanwhile is harmless.
 */
export function sendRowsAfterCommit(
  ctx: Pick<TenantContext, 'orgId' | 'effects'>,
  rows: { id: number | string; message: JobMessage }[],
  options: { consumerDeletes?: boolean } = {},
): void {
  if (rows.length === 0) return;
  ctx.effects?.afterCommit(async ({ db, env }) => {
    // A queue's sendBatch takes at most 100 messages: more are sent in batches of that many.
    for (let start = 0; start < rows.length; start += SWEEP_BATCH) {
      await env.JOBS.sendBatch(rows.slice(start, start + SWEEP_BATCH).map((row) => ({ body: row.message })));
    }
    if (options.consumerDeletes) return;
    await db.delete(jobOutbox).where(
      and(
        eq(jobOutbox.organizationId, ctx.orgId),
        inArray(
          jobOutbox.id,
          rows.map((row) => Number(row.id)),
        ),
      ),
    );
  });
}

/**
 * Deletes the outbox rows of these messages (a handler of a kind sent with `consumerDeletes`), in
 * the handler's transaction, in one statement; the messages are of one organization.
 */
export async function deleteOutboxRows(db: Queryable, messages: JobMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await db
    .delete(jobOutbox)
    .where(
      and(
        eq(jobOutbox.organizationId, messages[0].orgId),
        sql`${jobOutbox.message} in (select jsonb_array_elements(${JSON.stringify(messages)}::jsonb))`,
      ),
    );
}

/**
 * Sends every outbox row older than OUTBOX_SWEEP_AFTER_SECONDS and deletes it, oldest first.
 * Runs as the connection's owner role outside any tenant scope, like the queue consumer: it
 * crosses organizations by design and reads nothing but the messages. Each batch is locked
 * (SKIP LOCKED, so two sweeps never send the same rows) and deleted only if its send succeeded.
 */
export async function sweepOutbox(db: Database, queue: Queue<JobMessage>): Promise<number> {
  return inBatches(
    () =>
      db.transaction(async (tx) => {
        const rows = await tx
          .select({ id: jobOutbox.id, message: jobOutbox.message })
          .from(jobOutbox)
          .where(lt(jobOutbox.createdAt, sql`now() - make_interval(secs => ${OUTBOX_SWEEP_AFTER_SECONDS})`))
          .orderBy(jobOutbox.createdAt, jobOutbox.id)
          .limit(SWEEP_BATCH)
          .for('update', { skipLocked: true });
        if (rows.length === 0) return 0;
        await queue.sendBatch(rows.map((row) => ({ body: row.message })));
        await tx.delete(jobOutbox).where(
          inArray(
            jobOutbox.id,
            rows.map((row) => row.id),
          ),
        );
        return rows.length;
      }),
    SWEEP_BATCH,
    SWEEP_MAX_BATCHES,
  );
}

/** The cron trigger's entry (wrangler.toml [triggers]): one sweep on its own connection. */
export async function runOutboxSweep(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const sent = await sweepOutbox(db, env.JOBS);
    if (sent > 0) log.warn('outbox sweep sent messages whose send after commit had not happened', { sent });
    return sent;
  });
}
