/**
 * Statements that carry their tenant scope with them. Once a request connection is scoped
 * (`scopeSession`), each later statement goes out as two: first
 * `select set_config('app.organization_id', $1, true), set_config('role', 'lm_app', true)`, then the
 * statement itself, pipelined in one write and closed by one Sync. PostgreSQL runs everything up to
 * a Sync as one implicit transaction, so the settings hold for exactly that statement and end with
 * it: one round trip, as before, and nothing left on the server session.
 *
 * That is what lets the Worker sit behind a transaction-mode pooler (Neon's `-pooler` endpoint,
 * Hyperdrive, PgBouncer's `pool_mode = transaction`), which may hand each transaction of a client
 * connection to a different server backend and never resets a backend between clients. A scope
 * set for the session would stay behind on a backend for whichever client gets it next, and would
 * be missing from the backend this client's next statement lands on.
 *
 * The mechanism is the driver's own: `client.query` accepts any object with `submit(connection)`
 * (node-postgres' Submittable). The neon driver bundles node-postgres' Query class without
 * exporting it, so its class is taken from a query queued on a client that has not connected yet
 * (`driverQueryClass`). The subclass writes the scope statement's Parse/Bind/Execute before the
 * Query's own messages, always takes the extended protocol (so that both share the one Sync), and
 * swallows the scope statement's row and completion, so drizzle sees the statement's result alone.
 *
 * A transaction's BEGIN rides the same way (`leading`): the request connection holds it back
 * (client.ts) and the transaction's first statement writes it ahead of its own messages, so
 * opening a transaction costs no round trip of its own. If that statement fails, the block it
 * opened is aborted as if BEGIN had gone alone, and the ROLLBACK that follows ends it. A
 * savepoint's SAVEPOINT and RELEASE ride the same way, in the order they were asked for: a
 * statement that fails after its SAVEPOINT leaves the savepoint to roll back to, as if the
 * SAVEPOINT had gone alone.
 *
 * A transaction's COMMIT can ride the other way (`trailing`): written after its last statement's
 * Execute, under the same Sync (client.ts `commitWithNextStatement`). If the statement fails the
 * server skips everything up to the Sync, the COMMIT with it, and the transaction stays open and
 * aborted for the ROLLBACK that follows, as if the COMMIT had never been asked for; if the COMMIT
 * itself fails, the statement's promise rejects with its error.
 */
import type { Client } from '@neondatabase/serverless';

/** The statement sent ahead of each scoped statement; its values are the organization and the role. */
export const SCOPE_PREFIX = `select set_config('app.organization_id', $1, true), set_config('role', $2, true)`;

/** How `scopeSession`'s statement begins: the connection learns its scope from that statement's `scope` column. */
export const SCOPE_STATEMENT_START = "select set_config('app.organization_id', ";
/** And what follows its organization, which no other statement says (`scopeTransaction`'s has no `scope` column). */
const SCOPE_STATEMENT_COLUMNS = ", true) as scope, set_config('role', ";

/** `scopeSession`'s statement: the one whose answer names the connection's scope. */
function isScopingStatement(text: string): boolean {
  return text.startsWith(SCOPE_STATEMENT_START) && text.includes(SCOPE_STATEMENT_COLUMNS);
}

/**
 * Transaction control goes without the prefix: inside a transaction each statement carries it,
 * and BEGIN, COMMIT, ROLLBACK and the savepoints need none (a prefix before BEGIN would open the
 * implicit transaction that BEGIN then has to turn into an explicit one).
 */
const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|end|rollback|abort|savepoint|release)\b/i;

/** The parts of the driver's connection a query writes to. */
interface ProtocolWriter {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(message: { portal?: string; rows?: number }): void;
}

/** The parts of node-postgres' Query this module relies on. */
interface DriverQuery {
  text?: string;
  values?: unknown;
  callback?: (error: Error | null, result?: unknown) => void;
  _result: { rows: unknown[] };
  submit(connection: ProtocolWriter): Error | undefined;
  requiresPreparation(): boolean;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: ProtocolWriter): void;
  handleReadyForQuery(connection: ProtocolWriter): void;
  _getRows(connection: ProtocolWriter & { sync(): void }, rows: number | undefined): void;
  portal?: string;
}
type DriverQueryClass = new (config: unknown, values?: unknown) => DriverQuery;

let queryClass: DriverQueryClass | undefined;

/** node-postgres' Query as the neon driver bundles it, from a query queued on a client that never connects. */
function driverQueryClass(probe: Client): DriverQueryClass {
  if (queryClass) return queryClass;
  const internals = probe as unknown as { queryQueue?: DriverQuery[]; _connected?: boolean; _connecting?: boolean };
  if (internals._connected || internals._connecting)
    throw new Error('the query class is read from a client that has not connected');
  // Queued, never sent: the client is not connected. Its promise is dropped unsettled.
  void probe.query('select 1').catch(() => undefined);
  const queued = internals.queryQueue?.pop();
  const found = queued?.constructor as DriverQueryClass | undefined;
  if (!found || typeof found.prototype.submit !== 'function') throw new Error('the database driver has no Query class');
  queryClass = found;
  return found;
}

/**
 * Where a request connection's statements learn their scope: `current()` is read when a statement
 * is submitted (after every earlier statement of the connection has been answered), and the
 * scoping statement's answer sets it, before the next statement is submitted.
 */
export interface ScopeHolder {
  current(): string | undefined;
  set(scope: string): void;
}

/** The class of the statements of one kind of connection: built once, from the driver's Query. */
function scopedQueryClass(Base: DriverQueryClass) {
  return class ScopedQuery extends Base {
    /** The scope this statement carries, once submitted; undefined sends it alone. */
    private carried: string | undefined;
    /** Held-back transaction control (BEGIN, SAVEPOINT, RELEASE) went ahead of this statement. */
    private led = false;
    /** Completions still to swallow before this statement's own: the held statements', the scope statement's. */
    private swallowing = 0;
    /** This statement's own completion has come: the completions after it are the trailing statements'. */
    private completed = false;

    constructor(
      config: unknown,
      values: unknown,
      private readonly holder: ScopeHolder,
      private readonly role: string,
      /** This is `scopeSession`'s statement: its answer names the scope. */
      private readonly scoping: boolean,
      /** Transaction control held back for this statement to send ahead of itself, in order. */
      private readonly leading: readonly string[],
      /** Transaction control to send after this statement, under its Sync: the COMMIT of `commitWithNextStatement`. */
      private readonly trailing: readonly string[],
    ) {
      super(config, values);
    }

    override requiresPreparation(): boolean {
      // The statements ahead of this one share its Sync only in the extended protocol.
      return this.carried !== undefined || this.led || this.trailing.length > 0 || super.requiresPreparation();
    }

    override submit(connection: ProtocolWriter): Error | undefined {
      const text = typeof this.text === 'string' ? this.text : '';
      // A query the base refuses (no text, values not a list) goes alone, so that its refusal
      // leaves no half-sent exchange on the connection.
      const sendable = text !== '' && (this.values == null || Array.isArray(this.values));
      this.carried = sendable && !this.scoping && !TRANSACTION_CONTROL.test(text) ? this.holder.current() : undefined;
      // A statement the base refuses sends nothing, so neither does its BEGIN: its refusal ends
      // the transaction's work, and the ROLLBACK after it finds no block open (a warning, no error).
      this.led = sendable && this.leading.length > 0;
      if (this.led) {
        for (const leading of this.leading) {
          connection.parse({ text: leading, name: '', types: [] });
          connection.bind({ portal: '', statement: '', values: [] });
          connection.execute({ portal: '', rows: 0 });
          this.swallowing++;
        }
      }
      if (this.carried !== undefined) {
        connection.parse({ text: SCOPE_PREFIX, name: '', types: [] });
        connection.bind({ portal: '', statement: '', values: [this.carried, this.role] });
        connection.execute({ portal: '', rows: 0 });
        this.swallowing++;
      }
      return super.submit(connection);
    }

    override _getRows(connection: ProtocolWriter & { sync(): void }, rows: number | undefined): void {
      // The trailing statements go after this one's Execute and before its Sync: if this one
      // fails, the server skips them (up to the Sync), so a COMMIT never follows a failure.
      if (this.trailing.length === 0 || rows) {
        super._getRows(connection, rows);
        return;
      }
      connection.execute({ portal: this.portal ?? '', rows });
      for (const trailing of this.trailing) {
        connection.parse({ text: trailing, name: '', types: [] });
        connection.bind({ portal: '', statement: '', values: [] });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    }

    override handleDataRow(message: unknown): void {
      if (this.swallowing === 0 && !this.completed) super.handleDataRow(message);
    }

    override handleCommandComplete(message: unknown, connection: ProtocolWriter): void {
      if (this.swallowing > 0) {
        this.swallowing--;
        return;
      }
      // A trailing statement's completion (its COMMIT): the statement's result is whole already.
      if (this.completed) return;
      this.completed = true;
      super.handleCommandComplete(message, connection);
    }

    override handleReadyForQuery(connection: ProtocolWriter): void {
      if (this.scoping) {
        // The first column, `scope`, in either row shape. Fails closed: an answer without it
        // scopes the connection to no organization, never leaves it with the connecting role.
        const row = this._result.rows[0] as Record<string, unknown> | unknown[] | undefined;
        const scope = Array.isArray(row) ? row[0] : row?.scope;
        this.holder.set(typeof scope === 'string' ? scope : '');
      }
      super.handleReadyForQuery(connection);
    }
  };
}

let scopedClass: ReturnType<typeof scopedQueryClass> | undefined;

/**
 * Sends `query` (drizzle's text or config, and its values) through `send` (the client's own
 * `query`, which takes a submittable), carrying the holder's scope if it has one by the time the
 * statement is submitted, and after `leading` (held-back BEGIN, SAVEPOINT and RELEASE) in the
 * same round trip. `prepareScopedStatements` must have run first.
 */
export function sendScoped(
  send: (submittable: unknown) => unknown,
  query: unknown,
  values: unknown,
  holder: ScopeHolder,
  role: string,
  leading: readonly string[] = [],
  trailing: readonly string[] = [],
): Promise<unknown> {
  if (!scopedClass) throw new Error('prepareScopedStatements(client) must run before the first statement');
  const text = typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text ?? '');
  const statement = new scopedClass(query, values, holder, role, isScopingStatement(text), leading, trailing);
  return new Promise((resolve, reject) => {
    statement.callback = (error, result) => (error ? reject(error) : resolve(result));
    send(statement);
  });
}

/** Reads the driver's Query class from `client`, which must not have connected yet (once per isolate). */
export function prepareScopedStatements(client: Client): void {
  scopedClass ??= scopedQueryClass(driverQueryClass(client));
}
