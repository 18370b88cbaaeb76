/**
 * Database access. A request gets ONE connection of its own (`openRequestDatabase`), opened on
 * its first statement and closed after the response. The tenant scope is read by the same
 * statement that checks the caller (`scopeSession`), and every statement after it carries the scope
 * in its own round trip (scoped-statements.ts): it runs as `lm_app` under row-level security,
 * read-only requests need no BEGIN/COMMIT, and no setting outlives its statement on the server
 * backend, so a transaction-mode pooler may sit between the Worker and the database. A queue
 * batch gets a small Pool (`openDatabase`) and scopes each unit of work with `withTenant`, a
 * transaction whose settings end with it. Every sequential statement is a round trip to the
 * database's region, so `observeStatements` lets the round-trip tests count them per request.
 */
import { Client, Pool, neonConfig, type PoolClient } from '@neondatabase/serverless';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import { log } from '../core/log';
import type { Config } from '../env';
import { prepareScopedStatements, sendScoped, type ScopeHolder } from './scoped-statements';

/**
 * Drizzle over either kind of connection (the request's Client or a job batch's Pool). Built
 * without the schema: nothing uses the relational query API (`db.query.*`), and drizzle walks the
 * whole schema for it on every construction, once per request here: 1–1.7 ms of CPU a construction, timed in
 * workerd (issue 17).
 */
export type Database = NeonDatabase;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Anything that runs queries: the pool-backed database or an open transaction. */
export type Queryable = Database | Transaction;

/** The role every tenant transaction switches to; created by the migrations, without BYPASSRLS. */
export const APP_ROLE = 'lm_app';

let configuredProxy: string | undefined;

function configureDriver(proxy: string | undefined): void {
  if (proxy === configuredProxy) return;
  configuredProxy = proxy;
  if (proxy) {
    // A plain Postgres (PGlite or a local server) is reached through our WebSocket-to-TCP relay.
    neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    neonConfig.pipelineTLS = false;
  }
}

export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

/** `connection` numbers the connection (a request's, or one of a pool's); `first` marks the first statement it sends. */
/** `values` are the statement's parameters as drizzle passed them (plan tests EXPLAIN the statement with them). */
/**
 * `roundTrip` is false for a statement that costs no round trip of its own: a request's BEGIN,
 * SAVEPOINT or RELEASE, which go out with the next statement sent (`holdControl`), and what is
 * not sent at all (the COMMIT or ROLLBACK of a transaction that sent nothing, a RELEASE or a
 * savepoint's rollback with nothing run since its SAVEPOINT, a RELEASE that a COMMIT makes moot).
 */
type StatementListener = (
  text: string,
  connection: number,
  first: boolean,
  values?: unknown,
  roundTrip?: boolean,
) => void;
let connectionsOpened = 0;
const statementListeners = new Set<StatementListener>();
/** Listeners of the pools' connections (a queue batch's, a cron's): `observeStatements(…, { pools: true })`. */
const poolStatementListeners = new Set<StatementListener>();

/**
 * Calls `listener` with the text of every statement a request connection sends (with `pools`,
 * every statement a pool's connection sends instead: a queue batch's work); returns the unsubscribe.
 */
export function observeStatements(listener: StatementListener, options: { pools?: boolean } = {}): () => void {
  const listeners = options.pools ? poolStatementListeners : statementListeners;
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function statementText(query: unknown): string {
  return typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text ?? '');
}

const BEGIN = /^\s*begin\b/i;
const END_OF_TRANSACTION = /^\s*(commit|end|rollback|abort)\s*$/i;
const SAVEPOINT = /^\s*savepoint\s+(\w+)\s*$/i;
const RELEASE = /^\s*release\s+(?:savepoint\s+)?(\w+)\s*$/i;
const ROLLBACK_TO = /^\s*rollback\s+to\s+(?:savepoint\s+)?(\w+)\s*$/i;

/**
 * What a request connection does with a statement of transaction control, given the ones it holds
 * back (`held`, in order): `hold` it too (a BEGIN, a SAVEPOINT, a RELEASE: each goes out ahead of
 * the next statement sent, in the same write and under the same Sync, so it costs no round trip),
 * `drop` it with what it undoes (`keep`, what stays held: a RELEASE or a rollback to a savepoint
 * whose SAVEPOINT is still held ran nothing; a COMMIT or ROLLBACK of a transaction whose BEGIN is
 * still held sent nothing), or `send` it after `leading` (a COMMIT or ROLLBACK goes without the
 * held savepoints' statements: the COMMIT releases them, the ROLLBACK undoes them).
 * Anything else is sent after everything held.
 */
function holdControl(
  held: readonly string[],
  text: string,
): { act: 'hold' } | { act: 'drop'; keep: string[] } | { act: 'send'; leading: string[] } {
  const last = held.at(-1);
  const savepointOf = (statement: string | undefined) => (statement ? SAVEPOINT.exec(statement)?.[1] : undefined);
  if ((held.length === 0 && BEGIN.test(text)) || SAVEPOINT.test(text)) return { act: 'hold' };
  const released = RELEASE.exec(text)?.[1] ?? ROLLBACK_TO.exec(text)?.[1];
  if (released !== undefined && savepointOf(last)?.toLowerCase() === released.toLowerCase())
    return { act: 'drop', keep: held.slice(0, -1) };
  if (RELEASE.test(text)) return { act: 'hold' };
  if (END_OF_TRANSACTION.test(text)) {
    if (held.some((statement) => BEGIN.test(statement))) return { act: 'drop', keep: [] };
    // COMMIT releases every savepoint and ROLLBACK undoes them: what is held of them is moot.
    return { act: 'send', leading: [] };
  }
  return { act: 'send', leading: [...held] };
}

/**
 * A request transaction's COMMIT sent with its last statement (`commitWithNextStatement`), under
 * that statement's Sync (scoped-statements.ts `trailing`): the transaction costs one round trip
 * less. Asked for (`arm`) only at the transaction's top level, never inside a savepoint. Once the
 * statement has answered, the transaction is over: the COMMIT or ROLLBACK that drizzle sends at
 * its end (and a savepoint's RELEASE or rollback before it) is dropped, and any other statement
 * before that end is refused, since it would run outside the transaction. If the statement fails,
 * the COMMIT was skipped with it and the transaction ends as any failed one does.
 */
class CommitAhead {
  private state: 'off' | 'armed' | 'sending' | 'committed' = 'off';
  private inTransaction = false;
  private savepoints = 0;
  /** The last transaction ended by committing with its last statement. */
  committedLast = false;

  arm(): void {
    if (this.inTransaction && this.savepoints === 0 && this.state === 'off') this.state = 'armed';
  }

  /** Follows the transaction's control statements, sent or held (its depth decides `arm`). */
  track(text: string): void {
    if (BEGIN.test(text)) {
      this.inTransaction = true;
      this.savepoints = 0;
      this.committedLast = false;
    } else if (SAVEPOINT.test(text)) this.savepoints++;
    else if (RELEASE.test(text) || ROLLBACK_TO.test(text)) this.savepoints = Math.max(0, this.savepoints - 1);
    else if (END_OF_TRANSACTION.test(text)) {
      this.inTransaction = false;
      this.savepoints = 0;
      // Asked for and never used (no statement followed): the COMMIT goes as usual.
      if (this.state === 'armed') this.state = 'off';
    }
  }

  /** The statements to send after `text`: the COMMIT, when it was asked for and `text` is a statement of the transaction. */
  trailing(text: string): string[] {
    if (this.state !== 'armed' || !this.inTransaction || END_OF_TRANSACTION.test(text)) return [];
    if (BEGIN.test(text) || SAVEPOINT.test(text) || RELEASE.test(text) || ROLLBACK_TO.test(text)) return [];
    this.state = 'sending';
    return ['commit'];
  }

  sent<T>(answer: Promise<T>): Promise<T> {
    return answer.then(
      (result) => {
        this.state = 'committed';
        this.committedLast = true;
        return result;
      },
      (error) => {
        this.state = 'off';
        throw error;
      },
    );
  }

  /**
   * True for a statement of transaction control after the transaction committed with its last
   * statement (dropped: nothing is open to end); throws for any other statement.
   */
  afterCommit(text: string): boolean {
    if (this.state !== 'committed') return false;
    if (END_OF_TRANSACTION.test(text) || RELEASE.test(text) || ROLLBACK_TO.test(text)) {
      if (END_OF_TRANSACTION.test(text)) this.state = 'off';
      return true;
    }
    throw new Error(`a statement after the transaction committed with its last statement: ${text.slice(0, 80)}`);
  }
}

const commitAheadOf = new WeakMap<object, CommitAhead>();

/**
 * Asks the request connection behind `db` to send its open transaction's COMMIT with the next
 * statement, in that statement's round trip. Call it right before a transaction's last statement,
 * at its top level; after that statement answers, the transaction is committed, and the code that
 * follows must send nothing more in it (a statement would be refused). Does nothing on a pool's
 * connection, outside a transaction, or inside a savepoint. Routes reach it as the tenant
 * context's `commitWithNext` (core/database.ts), which is absent where more statements follow.
 */
export function commitWithNextStatement(db: Database): void {
  commitAheadOf.get(db)?.arm();
}

/** Whether the last transaction on `db`'s request connection committed with its last statement. */
export function committedWithLastStatement(db: Database): boolean {
  return commitAheadOf.get(db)?.committedLast === true;
}

/** What drizzle gets for a statement that was held back or not sent: it reads nothing of it. */
function unsentResult(command: string) {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}

/**
 * One connection for one request: a plain Client (never a Pool, which could silently open a
 * second, unscoped connection) that connects on its first statement. Once `scopeSession` has
 * answered, each statement is sent with the scope ahead of it (`sendScoped`).
 */
export function openRequestDatabase(config: Pick<Config, 'DATABASE_URL' | 'DB_WS_PROXY'>): DatabaseHandle {
  configureDriver(config.DB_WS_PROXY);
  const client = new Client({ connectionString: config.DATABASE_URL });
  let connecting: Promise<void> | undefined;
  let closing = false;
  // A connection the database dropped (or never opened) cannot be ended: ending it would write
  // to a closed socket and wait for an answer that never comes.
  let lost = false;
  client.on('error', (error: Error) => {
    lost = true;
    if (!closing) log.warn('database connection error', { error: error.message });
  });
  client.on('end', () => {
    lost = true;
  });
  prepareScopedStatements(client);
  const send = client.query.bind(client) as (submittable: unknown) => unknown;
  // Set by the scoping statement's answer: every later statement carries it (scoped-statements.ts).
  let scope: string | undefined;
  const holder: ScopeHolder = { current: () => scope, set: (value) => (scope = value) };
  const connection = ++connectionsOpened;
  let sent = 0;
  // A transaction's BEGIN and its savepoints' SAVEPOINT and RELEASE, held back until the next
  // statement carries them (scoped-statements.ts): none of them costs a round trip of its own.
  let held: string[] = [];
  const commitAhead = new CommitAhead();
  Object.assign(client, {
    query: (query: unknown, values?: unknown) => {
      const text = statementText(query);
      const first = sent++ === 0;
      const after = commitAhead.afterCommit(text);
      const control: ReturnType<typeof holdControl> = after ? { act: 'drop', keep: [] } : holdControl(held, text);
      const roundTrip = control.act === 'send';
      for (const listener of statementListeners) listener(text, connection, first, values, roundTrip);
      if (control.act !== 'send') {
        held = control.act === 'hold' ? [...held, text] : control.keep;
        commitAhead.track(text);
        return Promise.resolve(unsentResult(text.trim().split(/\s+/)[0].toUpperCase()));
      }
      held = [];
      commitAhead.track(text);
      const trailing = commitAhead.trailing(text);
      connecting ??= client.connect();
      const answer = connecting.then(() =>
        sendScoped(send, query, values, holder, APP_ROLE, control.leading, trailing),
      );
      return trailing.length ? commitAhead.sent(answer) : answer;
    },
  });
  const db = drizzle({ client, casing: 'snake_case' });
  commitAheadOf.set(db, commitAhead);
  return {
    db,
    close: async () => {
      closing = true;
      if (connecting)
        await connecting.then(
          () => (lost ? undefined : client.end()),
          () => undefined,
        );
    },
  };
}

/**
 * Runs `work` on a pool of its own (a cron entry, a queue batch: work outside any request) and
 * closes the pool after it, whether `work` succeeded or not.
 */
export async function withOwnDatabase<T>(
  config: Pick<Config, 'DATABASE_URL' | 'DB_WS_PROXY'>,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  const handle = openDatabase(config);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

export function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DB_WS_PROXY'>): DatabaseHandle {
  configureDriver(config.DB_WS_PROXY);
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 4 });
  let closing = false;
  // A connection can drop outside any query: while idle in the pool, or once the pool has let
  // it go at close() (the server or Neon's proxy closes the WebSocket after Terminate). Without
  // a listener node-postgres rethrows that as an uncaught exception. Queries in flight still
  // reject with the error; after close() it is expected and not logged.
  const onConnectionError = (error: Error) => {
    if (!closing) log.warn('database connection error', { error: error.message });
  };
  pool.on('error', onConnectionError);
  pool.on('connect', (client: PoolClient) => {
    client.on('error', onConnectionError);
    // The pool's statements can be observed too (a queue batch's, a cron's), as a request's are.
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    const connection = ++connectionsOpened;
    let sent = 0;
    Object.assign(client, {
      query: (...args: unknown[]) => {
        const first = sent++ === 0;
        for (const listener of poolStatementListeners) listener(statementText(args[0]), connection, first);
        return send(...args);
      },
    });
  });
  const db = drizzle({ client: pool, casing: 'snake_case' });
  return {
    db,
    close: () => {
      closing = true;
      return pool.end();
    },
  };
}

/**
 * Scopes the request's own connection to one organization for the rest of the request, in the
 * same round trip as `select`, the caller check (or nothing). The settings are transaction-local:
 * on a request connection (`openRequestDatabase`) every later statement carries them itself
 * (scoped-statements.ts), so nothing stays on the server session, and the connection can go
 * through a transaction-mode pooler. Inside a transaction they hold until its end.
 * `select` runs with the connecting role's rights (the role switch takes effect from the next
 * statement), so it must filter by organization itself.
 */
export async function scopeSession<Row extends Record<string, unknown>>(
  db: Queryable,
  organization: number | OrganizationLookup,
  select?: SQL,
): Promise<Row & { scope: string }> {
  const organizationId =
    typeof organization === 'number' ? sql`${String(organization)}` : sql`coalesce((${organization.sql})::text, '')`;
  const result = await db.execute<Row & { scope: string }>(
    sql`select set_config('app.organization_id', ${organizationId}, true) as scope, set_config('role', ${APP_ROLE}, true) as role${select ? sql`, ${select}` : sql``}`,
  );
  return result.rows[0] as Row & { scope: string };
}

/**
 * An organization found by the scoping statement itself, for public routes that only know a
 * public key of a record (a booking slug): a scalar subquery that runs with the connecting
 * role's rights, before the role switch, so it must select the organization by a key unique
 * across organizations. When it finds nothing the session is scoped to no organization ('').
 */
export interface OrganizationLookup {
  sql: SQL;
}

/**
 * Scopes an open transaction to one organization: RLS policies read `app.organization_id`, and
 * the role switch drops superuser/owner rights so the policies apply even on PGlite.
 * Both settings are transaction-local and passed as parameters, never spliced into SQL.
 */
export async function scopeTransaction(tx: Transaction, organizationId: number): Promise<void> {
  await tx.execute(
    sql`select set_config('app.organization_id', ${String(organizationId)}, true), set_config('role', ${APP_ROLE}, true)`,
  );
}

export async function withTenant<T>(
  db: Database,
  organizationId: number,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await scopeTransaction(tx, organizationId);
    return work(tx);
  });
}
