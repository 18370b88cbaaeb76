// PGlite has one backend session; @electric-sql/pglite-socket multiplexes every client connection
// onto it, keeping a connection exclusive only inside an explicit transaction. A real server gives
// each connection its own session, and the Worker relies on that: it scopes a request's own
// connection once (`set_config('role', 'lm_app', false)`, `app.organization_id`) and runs the
// request's reads without BEGIN. This queue gives PGlite's connections that semantics:
// - an extended-protocol sequence (Parse … Sync) and a transaction run to their end before another
//   connection's message is taken, so no connection sees another's half-sent statement;
// - when the session passes to another connection, the settings a session may change (role and
//   the app.* scope) are saved for the one leaving and restored for the one arriving, so no
//   connection ever runs with another's role or organization;
// - every handover starts from the server's defaults (RESET ALL): a setting a connection SETs
//   (a planner switch typed in psql, a search_path) never reaches another connection. The price is
//   that such a setting lasts only until another connection runs; only the role and the scope
//   follow a connection across handovers. A real server keeps every setting per connection.
const SESSION_SETTINGS = ['role', 'app.organization_id'];
const DEFAULTS = { role: 'none', 'app.organization_id': '' };

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
    /** handler id → its saved settings (only for connections whose settings differ from the defaults). */
    this.saved = new Map();
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

  /**
   * One call to PGlite for a handover: reads the leaving connection's role and scope, resets every
   * setting to the server's default (RESET ALL leaves the role alone, hence the explicit one), and
   * applies `settings`. The simple protocol takes no parameters, so the values are quoted literals;
   * RESET ALL runs first, so the quoting meets the default standard_conforming_strings.
   */
  async swapSettings(settings) {
    const quote = (value) => `'${String(value).replaceAll("'", "''")}'`;
    const [read] = await this.db.exec(
      `select ${SESSION_SETTINGS.map((name, i) => `current_setting(${quote(name)}, true) as s${i}`).join(', ')};` +
        ' reset all;' +
        ` select ${SESSION_SETTINGS.map((name) => `set_config(${quote(name)}, ${quote(settings[name] ?? DEFAULTS[name])}, false)`).join(', ')}`,
    );
    const row = read.rows[0];
    return Object.fromEntries(SESSION_SETTINGS.map((name, i) => [name, row[`s${i}`] ?? DEFAULTS[name]]));
  }

  /** Hands the session from the current owner to `handlerId`, saving and restoring session settings. */
  async switchTo(handlerId) {
    if (this.owner === handlerId) return;
    const leaving = await this.swapSettings(this.saved.get(handlerId) ?? DEFAULTS);
    if (this.owner !== null) {
      const isDefault = SESSION_SETTINGS.every((name) => leaving[name] === DEFAULTS[name]);
      if (isDefault) this.saved.delete(this.owner);
      else this.saved.set(this.owner, leaving);
    }
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

  /** A connection went away: drop its queued messages and its saved settings. */
  clearQueueForHandler(handlerId) {
    this.queue = this.queue.filter((entry) => {
      if (entry.handlerId !== handlerId) return true;
      entry.reject(new Error('Handler disconnected'));
      return false;
    });
    this.saved.delete(handlerId);
  }

  /** Ends what a departed owner left open (a transaction, an unsynced exchange, its settings). */
  async clearTransactionIfNeeded(handlerId) {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    await this.swapSettings(DEFAULTS);
    this.owner = null;
    this.midExchange = false;
    await this.processQueue();
  }
}
