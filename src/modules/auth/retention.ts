/**
 * The sign-in records' retention. Each of these tables is useful only for a while, and each row
 * names a person (an email, an address) or a session:
 * - a failed login counts for the login limits for LOGIN_FAILURE_WINDOW_MINUTES;
 * - an address a user logged in from is trusted for TRUSTED_ADDRESS_DAYS;
 * - a token revoked by logout is refused until it expires; after that its signature's `exp`
 *   refuses it anyway (kept REVOKED_TOKEN_GRACE_MINUTES longer, for clocks a little apart).
 * A login prunes the failures and addresses of its own account only, so the failures against an
 * account nobody logged into again (guessed passwords for a list of known emails) stayed forever,
 * and nothing ever deleted a revoked token. The minute cron now deletes all three once spent.
 */
import { sql } from 'drizzle-orm';
import { deleteInBatches } from '../../db/batches';
import type { Queryable } from '../../db/client';
import { loginFailures, loginSuccesses, revokedTokens } from '../../db/schema';
import { LOGIN_FAILURE_WINDOW_MINUTES, TRUSTED_ADDRESS_DAYS } from './login-limits';

export const REVOKED_TOKEN_GRACE_MINUTES = 60;

export interface AuthRecordsSwept {
  login_failures: number;
  login_successes: number;
  revoked_tokens: number;
}

/**
 * Deletes spent sign-in records across organizations, as the tables' owner, a batch at a time.
 * Each range has its index (login_failures_failed_idx, login_successes_succeeded_idx,
 * revoked_tokens_expires_idx), so a sweep with nothing to do reads nothing.
 */
export async function sweepAuthRecords(db: Queryable, batch = 5000, maxBatches = 20): Promise<AuthRecordsSwept> {
  return {
    login_failures: await deleteInBatches(
      db,
      loginFailures,
      sql`${loginFailures.id}`,
      sql`${loginFailures.failedAt} <= now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES})`,
      batch,
      maxBatches,
    ),
    login_successes: await deleteInBatches(
      db,
      loginSuccesses,
      sql`${loginSuccesses.emailKey}, ${loginSuccesses.ip}`,
      sql`${loginSuccesses.succeededAt} <= now() - make_interval(days => ${TRUSTED_ADDRESS_DAYS})`,
      batch,
      maxBatches,
    ),
    revoked_tokens: await deleteInBatches(
      db,
      revokedTokens,
      sql`${revokedTokens.jti}`,
      sql`${revokedTokens.expiresAt} <= now() - make_interval(mins => ${REVOKED_TOKEN_GRACE_MINUTES})`,
      batch,
      maxBatches,
    ),
  };
}
