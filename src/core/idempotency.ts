/**
 * Idempotency keys, the way Stripe has them: a POST that creates something may carry
 * `Idempotency-Key`; its first successful response is stored under the key, scoped to the caller,
 * and a retry with the same key and the same request gets that response again (status, body,
 * content type, plus `Idempotent-Replayed: true`) without running the handler.
 *
 * - Same key, another request (SHA-256 of method, path with query, and body bytes; a multipart
 *   body without its random boundary): 422 validation_error, code `Idempotency-Key`.
 * - Same key while the first request still runs: 409 conflict, code `idempotency_key_in_use`,
 *   at once: the first holds a transaction-level advisory lock on (organization, scope, key) and
 *   the retry only tries it (`pg_try_advisory_xact_lock`), so it never waits and never writes.
 * - The stored response is written by the request's own transaction, after the handler, so the
 *   records and their key commit together or not at all. A failed request (4xx, 5xx) rolls back
 *   and stores nothing: the client may retry it with the same key.
 * - Keys last IDEMPOTENCY_TTL_HOURS: an older row is neither replayed nor in the way of a new
 *   request with its key (it is overwritten), and the cron sweep deletes it.
 *
 * Cost on the wire, inside the transaction the request runs in anyway: one statement that takes
 * the lock and reads the stored response, one that stores it. Requests without the header pay nothing.
 * Which routes: see `defineRoute` (every POST answering 201, for callers with a scope, and the
 * operator routes, whose keys are the operator's under the organization they act on:
 * core/auth/operator.ts runAsOrganization).
 */
import { Buffer } from 'node:buffer';
import { and, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteInBatches } from '../db/batches';
import type { Database, Queryable } from '../db/client';
import type { Bindings } from '../env';
import { hasCredentialsKey, keyringOf, openSecret, SecretUnreadable, sealSecret } from '../providers/secrets';
import { idempotencyKeys } from '../db/schema';
import type { Actor } from '../db/tenant';
import type { AppEnv } from './context';
import { BadRequest, Conflict, ValidationFailed } from './errors';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_TTL_HOURS = 24;

/** Visible ASCII, spaces allowed inside (a UUID, a ULID, "order-42 retry"…). */
const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const notExpired = sql`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

/**
 * Whose keys these are. Keys never collide across callers: two users of one organization, or a
 * user and an API key, may use the same key for different requests. A web-form submission (a
 * public route run as the form's organization) scopes them by form and client IP.
 */
export function idempotencyScope(actor: Actor): string | null {
  if (actor.kind === 'user') return `user:${actor.userId}`;
  if (actor.kind === 'apiKey') return `api_key:${actor.keyId}`;
  if (actor.kind === 'webForm') return `web_form:${actor.formId}:ip:${actor.ip}`;
  return null;
}

/**
 * Responses a key stores and replays: successes, and the 303 of a form post (its Location is kept
 * as the stored body, since a redirect has none).
 */
export function isStorableResponse(status: number): boolean {
  return (status >= 200 && status < 300) || status === 303;
}

/** The header's value, or undefined when absent; a malformed one is a 400 naming the header. */
export function readIdempotencyKey(c: Context<AppEnv>): string | undefined {
  const value = c.req.header(IDEMPOTENCY_HEADER);
  if (value === undefined) return undefined;
  if (value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY_PATTERN.test(value)) {
    throw new BadRequest(
      `${IDEMPOTENCY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
      IDEMPOTENCY_HEADER,
    );
  }
  return value;
}

function hex(digest: ArrayBuffer): string {
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The parts of the body that identify the request. A multipart body is cut at its boundary,
 * which clients draw at random for every attempt, so that a retry that rebuilds the same form
 * is the same request; the parts are views of the body, never copies (uploads reach 32 MB).
 */
function bodyParts(body: Uint8Array, contentType: string | undefined): Uint8Array[] {
  const boundary = contentType?.match(/^multipart\/[^;]*;.*?boundary="?([^";]+)"?/i)?.[1];
  if (!boundary) return [body];
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (let at = bytes.indexOf(delimiter, from); at !== -1; at = bytes.indexOf(delimiter, from)) {
    parts.push(body.subarray(from, at));
    from = at + delimiter.length;
  }
  parts.push(body.subarray(from));
  return parts;
}

/** SHA-256 of method, path with query and body (its parts each hashed, then the list of their hashes). */
async function fingerprint(c: Context<AppEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const body = new Uint8Array(await c.req.arrayBuffer());
  const parts = bodyParts(body, c.req.header('content-type'));
  const digests = await Promise.all(parts.map((part) => crypto.subtle.digest('SHA-256', part)));
  const head = `${c.req.method} ${url.pathname}${url.search}\n${parts.length}\n`;
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(head + digests.map(hex).join('\n'))));
}

/**
 * What a sealedReplay route stores instead of its answer when the server has no CREDENTIALS_KEY:
 * the key still deduplicates the request (a retry creates nothing), but the answer, which holds a
 * secret shown once, is not kept at all; its replay answers 409 `idempotency_replay_unavailable`.
 */
const WITHHELD_BODY = 'withheld:secret-shown-once';

/**
 * The replay of a stored answer holding a secret that cannot be shown again: kept without it (no
 * CREDENTIALS_KEY when stored), or sealed under a key the server no longer has (rotated away, or
 * CREDENTIALS_KEY unset since). The request it stands for did succeed once: a 409, never a 500.
 */
function replayUnavailable(): Conflict {
  return new Conflict(
    `The request with this ${IDEMPOTENCY_HEADER} already succeeded, but its response held a secret that is shown only once and cannot be replayed; nothing was created again. List the records to find what it created, and revoke or rotate its secret if it was lost`,
    'idempotency_replay_unavailable',
  );
}

interface StoredResponse {
  request_hash: string;
  status: number;
  content_type: string | null;
  body: string;
}

/** One request's key: what it is, whose, and the fingerprint of the request it stands for. */
export class IdempotentRequest {
  private constructor(
    readonly orgId: number,
    readonly scope: string,
    readonly key: string,
    readonly requestHash: string,
    /** The Worker's bindings when the answer holds a secret (route `sealedReplay`): stored sealed under CREDENTIALS_KEY. */
    private readonly sealWith: Bindings | null = null,
  ) {}

  /**
   * The request's key when the route is idempotent, the header is present and the caller has a
   * scope (`ownScope`, else the actor's: an operator route's is `operator`, under the organization
   * it acts on); otherwise null (the request runs as if no key had been sent). Reads the body once
   * (Hono caches it for the validator), before the transaction opens.
   */
  static async of(
    c: Context<AppEnv>,
    orgId: number,
    actor: Actor,
    ownScope?: string,
  ): Promise<IdempotentRequest | null> {
    if (!c.var.idempotent) return null;
    const key = readIdempotencyKey(c);
    const scope = ownScope ?? idempotencyScope(actor);
    if (key === undefined || scope === null) return null;
    return new IdempotentRequest(orgId, scope, key, await fingerprint(c), c.var.sealedReplay ? c.env : null);
  }

  /**
   * First statement of the transaction: tries the lock and reads a stored response. Returns the
   * replay of that response, or null when the request should run; throws 409 while another
   * request holds the key and 422 when the key was used for another request.
   */
  async replayOrLock(db: Queryable, c: Context<AppEnv>): Promise<Response | null> {
    const lockName = `idempotency:${this.orgId}:${this.scope}:${this.key}`;
    const result = await db.execute<{ locked: boolean; stored: StoredResponse | null }>(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${lockName}, 0)) as locked,
        (select json_build_object('request_hash', ${idempotencyKeys.requestHash}, 'status', ${idempotencyKeys.status},
            'content_type', ${idempotencyKeys.contentType}, 'body', ${idempotencyKeys.body})
          from ${idempotencyKeys}
          where ${and(
            eq(idempotencyKeys.organizationId, this.orgId),
            eq(idempotencyKeys.scope, this.scope),
            eq(idempotencyKeys.key, this.key),
            gt(idempotencyKeys.createdAt, notExpired),
          )}) as stored`,
    );
    const { locked, stored } = result.rows[0];
    // A stored response has committed: it answers whoever else holds the lock meanwhile.
    if (stored) {
      if (stored.request_hash !== this.requestHash) {
        throw ValidationFailed.field(
          IDEMPOTENCY_HEADER,
          `This ${IDEMPOTENCY_HEADER} was already used for a different request (method, path or body); send a new key for a new request`,
        );
      }
      if (stored.status === 303) {
        return c.body(null, 303, { Location: stored.body, [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
      }
      // A sealed answer (route sealedReplay) is opened for the caller it was stored for.
      const body = this.sealWith ? await this.openStored(stored.body) : stored.body;
      return c.body(body, stored.status as 200, {
        ...(stored.content_type ? { 'Content-Type': stored.content_type } : {}),
        [IDEMPOTENT_REPLAYED_HEADER]: 'true',
      });
    }
    if (!locked) throw inUse();
    return null;
  }

  /** A sealed stored answer, opened; 409 idempotency_replay_unavailable when it cannot be (see replayUnavailable). */
  private async openStored(stored: string): Promise<string> {
    if (stored === WITHHELD_BODY || !this.sealWith || !hasCredentialsKey(this.sealWith)) throw replayUnavailable();
    try {
      return await openSecret<string>(await keyringOf(this.sealWith), this.orgId, stored);
    } catch (error) {
      if (error instanceof SecretUnreadable) throw replayUnavailable();
      throw error;
    }
  }

  /**
   * Last statement of the transaction, after a successful handler: stores its response. An
   * expired row under the key is replaced; a live one means another request with the key
   * committed between this one's lock and read (the lock is released at commit, the read's
   * snapshot may predate it): then this request is refused and rolls back, so still only one writes.
   */
  async store(db: Queryable, response: Response): Promise<void> {
    const text = response.status === 303 ? (response.headers.get('location') ?? '') : await response.clone().text();
    // An answer holding a secret shown once is a credential at rest: sealed like the rest (providers/secrets.ts).
    // Without CREDENTIALS_KEY the answer is not kept: the key still deduplicates, its replay is a 409.
    const body = !this.sealWith
      ? text
      : hasCredentialsKey(this.sealWith)
        ? (await sealSecret(await keyringOf(this.sealWith), this.orgId, text)).sealed
        : WITHHELD_BODY;
    const stored = await db
      .insert(idempotencyKeys)
      .values({
        organizationId: this.orgId,
        scope: this.scope,
        key: this.key,
        requestHash: this.requestHash,
        status: response.status,
        contentType: response.headers.get('content-type'),
        body,
      })
      .onConflictDoUpdate({
        target: [idempotencyKeys.organizationId, idempotencyKeys.scope, idempotencyKeys.key],
        set: {
          requestHash: sql`excluded.request_hash`,
          status: sql`excluded.status`,
          contentType: sql`excluded.content_type`,
          body: sql`excluded.body`,
          createdAt: sql`now()`,
        },
        setWhere: lt(idempotencyKeys.createdAt, notExpired),
      })
      .returning({ key: idempotencyKeys.key });
    if (stored.length === 0) throw inUse();
  }
}

function inUse(): Conflict {
  return new Conflict(
    `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry it shortly to get its response`,
    'idempotency_key_in_use',
  );
}

/**
 * Deletes keys older than IDEMPOTENCY_TTL_HOURS (the cron trigger's sweep), at most `batch` rows
 * a statement so no sweep holds long locks. Runs as the connection's owner, across organizations.
 */
export function sweepIdempotencyKeys(db: Database, batch = 5000, maxBatches = 20): Promise<number> {
  const keys = idempotencyKeys;
  return deleteInBatches(
    db,
    keys,
    sql`${keys.organizationId}, ${keys.scope}, ${keys.key}`,
    lt(keys.createdAt, notExpired) as SQL,
    batch,
    maxBatches,
  );
}
