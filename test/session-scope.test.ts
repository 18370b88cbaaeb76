/**
 * The tenant scope of a request connection: read by its scoping statement, then carried by each
 * later statement in its own round trip (src/db/scoped-statements.ts), so that nothing is left on
 * the server session and a transaction-mode pooler may hand each statement another backend. On the
 * embedded PGlite every connection shares one backend, reset at each handover as if a pooler had
 * handed over another one (scripts/lib/pglite-sessions.mjs). These tests hold on both databases,
 * and on interleaved and concurrent requests.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import {
  APP_ROLE,
  commitWithNextStatement,
  committedWithLastStatement,
  observeStatements,
  openRequestDatabase,
  scopeSession,
  withOwnDatabase,
  type DatabaseHandle,
} from '../src/db/client';
import { readConfig } from '../src/env';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';

let first: SignedUp;
let second: SignedUp;
const handles: DatabaseHandle[] = [];

function connection(): DatabaseHandle {
  const handle = openRequestDatabase(readConfig(env));
  handles.push(handle);
  return handle;
}

async function sessionOf(handle: Pick<DatabaseHandle, 'db'>): Promise<{ role: string; org: string | null }> {
  const result = await handle.db.execute<{ role: string; org: string | null }>(
    sql`select current_user as role, nullif(current_setting('app.organization_id', true), '') as org`,
  );
  return result.rows[0];
}

beforeAll(async () => {
  [first, second] = await Promise.all([signupOrganization('Scope A'), signupOrganization('Scope B')]);
  for (const org of [first, second]) {
    for (let i = 0; i < 3; i++) {
      const created = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Lead', last_name: `N${i}`, email: uniqueEmail('scope') },
      });
      expect(created.status).toBe(201);
    }
  }
});

afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
});

describe('the session scope of a request connection', () => {
  it('applies to every later statement of its connection and to no other connection', async () => {
    const scoped = connection();
    const other = connection();
    await scopeSession(scoped.db, first.orgId);
    const before = await sessionOf(other);
    expect(before.role).not.toBe(APP_ROLE);
    expect(before.org).toBeNull();
    // Interleave: the scoped connection keeps its scope after the other one ran.
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    await scopeSession(other.db, second.orgId);
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    expect(await sessionOf(other)).toEqual({ role: APP_ROLE, org: String(second.orgId) });
    const visible = await scoped.db.execute<{ organization_id: string }>(
      sql`select distinct organization_id from leads`,
    );
    expect(visible.rows.map((row) => Number(row.organization_id))).toEqual([first.orgId]);
  });

  it('leaves nothing on the server session: the scoping statement sets its settings for itself', async () => {
    // A plain client of the driver, without the request connection's carried scope: what a
    // transaction-mode pooler would hand to the next client after this statement.
    connection(); // configures the driver for the local relay, as the first request does
    const client = new Client({ connectionString: readConfig(env).DATABASE_URL });
    client.on('error', () => undefined); // the socket closing after end()
    await client.connect();
    try {
      const plain = { db: drizzle({ client }) };
      const scoped = await scopeSession(plain.db, first.orgId);
      expect(scoped.scope).toBe(String(first.orgId));
      const after = await sessionOf(plain);
      expect(after.role).not.toBe(APP_ROLE);
      expect(after.org).toBeNull();
    } finally {
      await client.end();
    }
  });

  it('carries the scope with every later statement, even after the server session was reset', async () => {
    const scoped = connection();
    await scopeSession(scoped.db, first.orgId);
    // What a pooler handing the next statement another backend amounts to: nothing of the session left.
    await scoped.db.execute(sql`reset all`);
    await scoped.db.execute(sql`reset role`);
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
    const visible = await scoped.db.execute<{ organization_id: string }>(
      sql`select distinct organization_id from leads`,
    );
    expect(visible.rows.map((row) => Number(row.organization_id))).toEqual([first.orgId]);
    // And inside a transaction of the same connection, every statement too.
    const inside = await scoped.db.transaction(async (tx) => {
      await tx.execute(sql`reset all`);
      return (
        await tx.execute<{ org: string | null }>(
          sql`select nullif(current_setting('app.organization_id', true), '') as org`,
        )
      ).rows[0].org;
    });
    expect(inside).toBe(String(first.orgId));
  });

  it('fails closed: a scoping statement that names no scope leaves later statements in no organization, as lm_app', async () => {
    const scoped = connection();
    // The scoping statement's shape, answering no row and so no scope.
    await scoped.db.execute(
      sql`select set_config('app.organization_id', ${String(first.orgId)}, true) as scope, set_config('role', ${APP_ROLE}, true) as role where false`,
    );
    expect(await sessionOf(scoped)).toEqual({ role: APP_ROLE, org: null });
    const visible = await scoped.db.execute<{ n: number }>(sql`select count(*)::int as n from leads`);
    expect(visible.rows[0].n).toBe(0);
  });

  it('is gone for a new connection after the scoped one closed', async () => {
    const scoped = openRequestDatabase(readConfig(env));
    await scopeSession(scoped.db, first.orgId);
    await scoped.close();
    const next = connection();
    const session = await sessionOf(next);
    expect(session.role).not.toBe(APP_ROLE);
    expect(session.org).toBeNull();
  });

  it('never runs a connection with a setting another connection SET', async () => {
    const setter = connection();
    const other = connection();
    const workMem = async (handle: DatabaseHandle) =>
      (await handle.db.execute<{ value: string }>(sql`select current_setting('work_mem') as value`)).rows[0].value;
    const before = await workMem(other);
    const probe = before === '77kB' ? '78kB' : '77kB';
    // Set and read back in one statement: on PGlite, another test file's connection may take the
    // shared session between two statements of the setter, which would reset it (by design).
    const set = await setter.db.execute<{ value: string }>(
      sql`select set_config('work_mem', ${probe}, false) as applied, current_setting('work_mem') as value`,
    );
    expect(set.rows[0].value).toBe(probe);
    // While the setter is still open, and after it closed.
    expect(await workMem(other)).toBe(before);
    await setter.close();
    expect(await workMem(connection())).toBe(before);
  });

  it('keeps concurrent requests of two organizations apart', async () => {
    const requests = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? first : second));
    const responses = await Promise.all(
      requests.map((org) => call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } })),
    );
    const expected = await Promise.all(
      [first, second].map(async (org) =>
        (await call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } })).body.data.map(
          (lead: { id: number }) => lead.id,
        ),
      ),
    );
    expect(expected.map((ids: number[]) => ids.length)).toEqual([3, 3]);
    responses.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.body.data.map((lead: { id: number }) => lead.id)).toEqual(expected[i % 2]);
    });
  });
});

/** Each statement the connections are asked for, with whether it cost a round trip of its own. */
function recorded(): { sent: { text: string; roundTrip: boolean }[]; stop: () => void } {
  const sent: { text: string; roundTrip: boolean }[] = [];
  const stop = observeStatements((text, _connection, _first, _values, roundTrip = true) => {
    sent.push({ text: text.trim(), roundTrip });
  });
  return { sent, stop };
}

/** The first word of each recorded statement, lower case, with whether it cost a round trip. */
const commands = (sent: { text: string; roundTrip: boolean }[]) =>
  sent.map((entry) => ({ text: entry.text.split(/\s+/)[0].toLowerCase(), roundTrip: entry.roundTrip }));

/** The connection runs statements outside any transaction: two of them, two transaction ids. */
async function expectOutsideTransaction(handle: DatabaseHandle): Promise<void> {
  const one = await handle.db.execute<{ id: string }>(sql`select txid_current()::text as id`);
  const two = await handle.db.execute<{ id: string }>(sql`select txid_current()::text as id`);
  expect(one.rows[0].id).not.toBe(two.rows[0].id);
}

describe('a transaction on a request connection', () => {
  it('sends its BEGIN with its first statement: one round trip, and every statement in the one transaction', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const { sent, stop } = recorded();
    let ids: string[];
    try {
      ids = await handle.db.transaction(async (tx) => {
        const one = await tx.execute<{ id: string }>(sql`select txid_current()::text as id`);
        const two = await tx.execute<{ id: string }>(sql`select txid_current()::text as id`);
        return [one.rows[0].id, two.rows[0].id];
      });
    } finally {
      stop();
    }
    // Without the BEGIN ahead of it, the first statement would run in a transaction of its own.
    expect(ids[0]).toBe(ids[1]);
    expect(sent.map((entry) => [entry.text.split(' ')[0].toLowerCase(), entry.roundTrip])).toEqual([
      ['begin', false],
      ['select', true],
      ['select', true],
      ['commit', true],
    ]);
    // The scope still holds inside it, and after it.
    expect(await sessionOf(handle)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
  });

  it('rolls back the first statement with the rest when the work fails', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(
          sql`insert into feed_entries (organization_id, model_type, model_id, action) values (${first.orgId}, 'lead', ${modelId}, 'updated')`,
        );
        throw new Error('the handler failed');
      }),
    ).rejects.toThrow('the handler failed');
    const left = await handle.db.execute<{ n: number }>(
      sql`select count(*)::int as n from feed_entries where organization_id = ${first.orgId} and model_id = ${modelId}`,
    );
    expect(left.rows[0].n).toBe(0);
    // The connection is usable after the rollback, outside any transaction.
    await expectOutsideTransaction(handle);
  });

  it('rolls back when the first statement itself fails, and the connection goes on', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`select 1 / 0`);
      }),
    ).rejects.toThrow();
    expect(await sessionOf(handle)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
  });

  /** A feed entry of a model id no test uses, inserted by `db`, and how many of them the organization has. */
  function feedMarker() {
    const modelId = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    return {
      insert: (
        db: DatabaseHandle['db'] | Parameters<Parameters<DatabaseHandle['db']['transaction']>[0]>[0],
        action: string,
      ) =>
        db.execute(
          sql`insert into feed_entries (organization_id, model_type, model_id, action) values (${first.orgId}, 'lead', ${modelId}, ${action})`,
        ),
      actions: async (db: DatabaseHandle['db']) =>
        (
          await db.execute<{ action: string }>(
            sql`select action from feed_entries where organization_id = ${first.orgId} and model_id = ${modelId} order by id`,
          )
        ).rows.map((row) => row.action),
    };
  }

  it('sends a savepoint’s SAVEPOINT and RELEASE with the statements after them: no round trip of their own, and the savepoint still real', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const marker = feedMarker();
    const { sent, stop } = recorded();
    let ids: string[];
    try {
      ids = await handle.db.transaction(async (tx) => {
        await marker.insert(tx, 'created');
        const inner = await tx.transaction(async (savepoint) => {
          await marker.insert(savepoint, 'updated');
          return (await savepoint.execute<{ id: string }>(sql`select txid_current()::text as id`)).rows[0].id;
        });
        // A savepoint whose work fails is rolled back alone; the transaction goes on.
        await expect(
          tx.transaction(async (savepoint) => {
            await marker.insert(savepoint, 'deleted');
            await savepoint.execute(sql`select 1 / 0`);
          }),
        ).rejects.toThrow();
        const after = (await tx.execute<{ id: string }>(sql`select txid_current()::text as id`)).rows[0].id;
        return [inner, after];
      });
    } finally {
      stop();
    }
    expect(ids[0]).toBe(ids[1]);
    expect(await marker.actions(handle.db)).toEqual(['created', 'updated']);
    expect(sent.map((entry) => [entry.text.split(' ')[0].toLowerCase(), entry.roundTrip])).toEqual([
      ['begin', false],
      ['insert', true],
      ['savepoint', false],
      ['insert', true],
      ['select', true],
      ['release', false],
      ['savepoint', false],
      ['insert', true],
      ['select', true],
      ['rollback', true],
      ['select', true],
      ['commit', true],
    ]);
    expect(await sessionOf(handle)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
  });

  it('rolls back to a savepoint whose first statement failed, the SAVEPOINT having gone with it', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const marker = feedMarker();
    await handle.db.transaction(async (tx) => {
      await marker.insert(tx, 'created');
      await expect(
        tx.transaction(async (savepoint) => {
          await savepoint.execute(sql`select 1 / 0`);
        }),
      ).rejects.toThrow();
      await marker.insert(tx, 'updated');
    });
    expect(await marker.actions(handle.db)).toEqual(['created', 'updated']);
  });

  it('rolls back a savepoint released with nothing after it when the transaction fails', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const marker = feedMarker();
    await expect(
      handle.db.transaction(async (tx) => {
        await marker.insert(tx, 'created');
        await tx.transaction((savepoint) => marker.insert(savepoint, 'updated'));
        throw new Error('the handler failed');
      }),
    ).rejects.toThrow('the handler failed');
    expect(await marker.actions(handle.db)).toEqual([]);
    // And commits it when the transaction ends well: the COMMIT releases it.
    await handle.db.transaction(async (tx) => {
      await tx.transaction((savepoint) => marker.insert(savepoint, 'updated'));
    });
    expect(await marker.actions(handle.db)).toEqual(['updated']);
  });

  it('sends nothing for a savepoint that runs no statement', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const { sent, stop } = recorded();
    try {
      await handle.db.transaction(async (tx) => {
        await tx.transaction(async () => undefined);
        await expect(
          tx.transaction(async () => {
            throw new Error('nothing ran');
          }),
        ).rejects.toThrow('nothing ran');
      });
    } finally {
      stop();
    }
    expect(sent.map((entry) => entry.roundTrip)).toEqual([false, false, false, false, false, false]);
  });

  it('sends nothing at all when the transaction runs no statement', async () => {
    const handle = connection();
    const { sent, stop } = recorded();
    try {
      await handle.db.transaction(async () => undefined);
    } finally {
      stop();
    }
    expect(sent.map((entry) => entry.roundTrip)).toEqual([false, false]);
    // The next statement goes alone, with no BEGIN left behind for it.
    const { sent: after, stop: stopAfter } = recorded();
    try {
      await expectOutsideTransaction(handle);
    } finally {
      stopAfter();
    }
    expect(after.every((entry) => entry.roundTrip)).toBe(true);
  });
});

describe('a transaction that commits with its last statement (commitWithNextStatement)', () => {
  const modelIds = () => 910_000_000 + Math.floor(Math.random() * 1_000_000);
  const insert = (db: Pick<DatabaseHandle['db'], 'execute'>, modelId: number, action: string) =>
    db.execute(
      sql`insert into feed_entries (organization_id, model_type, model_id, action) values (${first.orgId}, 'lead', ${modelId}, ${action})`,
    );
  /** The marker's rows as another connection sees them: committed ones only. */
  const committed = async (modelId: number) => {
    const observer = connection();
    await scopeSession(observer.db, first.orgId);
    const result = await observer.db.execute<{ action: string }>(
      sql`select action from feed_entries where organization_id = ${first.orgId} and model_id = ${modelId} order by id`,
    );
    return result.rows.map((row) => row.action);
  };

  it('commits with that statement, in its round trip: the writes are visible elsewhere at once, and the COMMIT after it is not sent', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    const { sent, stop } = recorded();
    let seenInside: string[] = [];
    try {
      await handle.db.transaction(async (tx) => {
        await insert(tx, modelId, 'created');
        commitWithNextStatement(handle.db);
        await insert(tx, modelId, 'updated');
        // Before drizzle's COMMIT: another connection already sees both rows.
        seenInside = await committed(modelId);
      });
    } finally {
      stop();
    }
    expect(seenInside).toEqual(['created', 'updated']);
    expect(committedWithLastStatement(handle.db)).toBe(true);
    const own = commands(sent)
      .filter((entry) => ['begin', 'insert', 'commit'].includes(entry.text))
      .slice(0, 4);
    expect(own).toEqual([
      { text: 'begin', roundTrip: false },
      { text: 'insert', roundTrip: true },
      { text: 'insert', roundTrip: true },
      { text: 'commit', roundTrip: false },
    ]);
    // The connection goes on outside any transaction.
    await expectOutsideTransaction(handle);
  });

  it('makes a transaction of one statement a single round trip, its BEGIN ahead of it and its COMMIT after it', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    const { sent, stop } = recorded();
    try {
      await handle.db.transaction(async (tx) => {
        commitWithNextStatement(handle.db);
        await insert(tx, modelId, 'created');
      });
    } finally {
      stop();
    }
    expect(sent.map((entry) => entry.roundTrip)).toEqual([false, true, false]);
    expect(await committed(modelId)).toEqual(['created']);
  });

  it('commits nothing when that statement fails: the COMMIT is skipped with it and the earlier writes roll back', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    await expect(
      handle.db.transaction(async (tx) => {
        await insert(tx, modelId, 'created');
        commitWithNextStatement(handle.db);
        await tx.execute(sql`select 1 / 0`);
      }),
    ).rejects.toThrow();
    expect(committedWithLastStatement(handle.db)).toBe(false);
    expect(await committed(modelId)).toEqual([]);
    // The connection goes on, still scoped.
    expect(await sessionOf(handle)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
  });

  it('refuses a statement after it (it would run outside the transaction); the committed writes stand', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    const refused = await handle.db
      .transaction(async (tx) => {
        commitWithNextStatement(handle.db);
        await insert(tx, modelId, 'created');
        await insert(tx, modelId, 'updated');
      })
      .then(
        () => undefined,
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
    expect(refused).toMatch(/a statement after the transaction committed with its last statement: insert into/);
    expect(await committed(modelId)).toEqual(['created']);
    expect(committedWithLastStatement(handle.db)).toBe(true);
    // The ROLLBACK drizzle sent after the refusal was dropped; the connection goes on.
    expect(await sessionOf(handle)).toEqual({ role: APP_ROLE, org: String(first.orgId) });
  });

  it('does nothing inside a savepoint: the savepoint and the transaction end as usual', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    const { sent, stop } = recorded();
    try {
      await handle.db.transaction(async (tx) => {
        await tx.transaction(async (savepoint) => {
          commitWithNextStatement(handle.db);
          await insert(savepoint, modelId, 'created');
        });
        await insert(tx, modelId, 'updated');
      });
    } finally {
      stop();
    }
    expect(commands(sent).at(-1)).toEqual({ text: 'commit', roundTrip: true });
    expect(committedWithLastStatement(handle.db)).toBe(false);
    expect(await committed(modelId)).toEqual(['created', 'updated']);
  });

  it('does nothing outside a transaction', async () => {
    const handle = connection();
    await scopeSession(handle.db, first.orgId);
    const modelId = modelIds();
    commitWithNextStatement(handle.db);
    await insert(handle.db, modelId, 'created');
    await insert(handle.db, modelId, 'updated');
    expect(await committed(modelId)).toEqual(['created', 'updated']);
  });
});

describe('closing a connection', () => {
  /**
   * Every WebSocket the driver opens while `work` runs, wrapped to record what is sent on it and
   * when it is closed. workerd throws on a send after close(); the wrapper records it instead.
   */
  async function socketEvents(work: () => Promise<void>): Promise<string[][]> {
    const sockets: string[][] = [];
    const previous = neonConfig.webSocketConstructor;
    neonConfig.webSocketConstructor = function RecordingWebSocket(url: string) {
      const socket = new WebSocket(url);
      const events: string[] = [];
      sockets.push(events);
      const send = socket.send.bind(socket);
      const close = socket.close.bind(socket);
      let closed = false;
      socket.send = (data: ArrayBuffer | ArrayBufferView | string) => {
        const bytes =
          typeof data === 'string'
            ? new TextEncoder().encode(data)
            : new Uint8Array(
                ArrayBuffer.isView(data) ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) : data,
              );
        // A frontend message's type is its first byte; 'X' is Terminate.
        const type = String.fromCharCode(bytes[0]);
        events.push(closed ? `send after close: ${type}` : `send ${type}`);
        if (!closed) send(data);
      };
      socket.close = (code?: number, reason?: string) => {
        closed = true;
        events.push('close');
        close(code, reason);
      };
      return socket;
    } as unknown as typeof WebSocket;
    try {
      await work();
      // The driver sends coalesced writes on a zero-delay timer: give any left after close() its turn.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      neonConfig.webSocketConstructor = previous;
    }
    return sockets;
  }

  it('ends a request connection with Terminate, its last message', async () => {
    const sockets = await socketEvents(async () => {
      const handle = openRequestDatabase(readConfig(env));
      await scopeSession(handle.db, first.orgId);
      await sessionOf(handle);
      await handle.close();
    });
    expect(sockets).toHaveLength(1);
    // The server closes the socket once it has read Terminate.
    expect(sockets[0].at(-1)).toBe('send X');
  });

  it('ends every connection of a job pool with Terminate, and sends nothing on its socket after closing it', async () => {
    const sockets = await socketEvents(async () => {
      await withOwnDatabase(readConfig(env), async (db) => {
        // Two at once, so that the pool opens two connections.
        await Promise.all([db.execute(sql`select pg_sleep(0.05)`), db.execute(sql`select pg_sleep(0.05)`)]);
      });
    });
    expect(sockets).toHaveLength(2);
    for (const events of sockets) expect(events.slice(-2)).toEqual(['send X', 'close']);
  });
});
