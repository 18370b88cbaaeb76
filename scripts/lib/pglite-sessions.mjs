// PGlite has one backend session; @electric-sql/pglite-socket multiplexes every client connection
// onto it, keeping a connection exclusive only inside an explicit transaction. This queue makes it
// behave as a transaction-mode pooler (PgBouncer's `pool_mode = transaction`, Neon's `-pooler`
// endpoint, Hyperdrive) in front of one backend:
// - an extended-protocol sequence (Parse … Sync) and a transaction run to their end before another
//   connection's message is taken, so no connection sees another's half-sent statement;
// - between two of them the backend may pass to another connection, and every handover starts
//   from the server's defaults (RESET ALL, and the role reset, which RESET ALL leaves alone). So a
//   connection that set something for its session finds it gone as soon as another one ran, as it
//   would behind a pooler that hands it another backend. The Worker sets nothing for a session: a
//   request's statements carry their tenant scope each (src/db/scoped-statements.ts), and the
//   tests run against this queue, so a statement that relied on a session setting would fail them.
//   A pooler in transaction mode does not reset a backend between clients; this queue does, so that
//   a setting typed in psql (a planner switch, a search_path) never reaches the Worker's statements.
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'

/** True when a message leaves the connection between statements (a ReadyForQuery follows it). */
function endsExchange(message) {
  const type = message[0];
  // The startup packet starts with its length (first byte 0), not a type byte.
  return type === 0 || type === SYNC || type === QUERY || type === TERMINATE;
}

export class SessionQueue {
  constructor(db) {
    this.db = db;
    this.queue = [];
    this.processing = false;
    this.owner = null;
    /** The owner sent part of an extended-protocol exchange and has not synced yet. */
    this.midExchange = false;
  }

  enqueue(handlerId, message, onData) {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      if (!this.processing) this.processQueue();
    });
  }

  getQueueLength() {
    return this.queue.length;
  }

  /** The owner keeps the session while it is inside a transaction or an unsynced exchange. */
  next() {
    if (this.owner !== null && (this.midExchange || this.db.isInTransaction())) {
      const at = this.queue.findIndex((entry) => entry.handlerId === this.owner);
      return at === -1 ? null : this.queue.splice(at, 1)[0];
    }
    return this.queue.shift() ?? null;
  }

  /** Every setting back to the server's default, the role included (one call to PGlite). */
  async resetSession() {
    await this.db.exec('reset all; reset role');
  }

  /** Hands the session from the current owner to `handlerId`, from the server's defaults. */
  async switchTo(handlerId) {
    if (this.owner === handlerId) return;
    if (this.owner !== null) await this.resetSession();
    this.owner = handlerId;
  }

  async processQueue() {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let entry = this.next(); entry; entry = this.next()) {
        try {
          // PGlite's own query() takes its mutex, so the switch runs before runExclusive; nothing
          // else can use the session meanwhile, since this queue is its only user.
          await this.switchTo(entry.handlerId);
          await this.db.runExclusive(async () => {
            let bytes = 0;
            await this.db.execProtocolRawStream(entry.message, {
              onRawData: (data) => {
                bytes += data.length;
                entry.onData(data);
              },
            });
            this.midExchange = !endsExchange(entry.message);
            entry.resolve(bytes);
          });
        } catch (error) {
          entry.reject(error);
        }
      }
    } finally {
      this.processing = false;
    }
  }

  /** A connection went away: drop its queued messages. */
  clearQueueForHandler(handlerId) {
    this.queue = this.queue.filter((entry) => {
      if (entry.handlerId !== handlerId) return true;
      entry.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  /** Ends what a departed owner left open (a transaction, an unsynced exchange, its settings). */
  async clearTransactionIfNeeded(handlerId) {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    await this.resetSession();
    this.owner = null;
    this.midExchange = false;
    await this.processQueue();
  }
}
