/**
 * The auth module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { FreshTokenSchema } from './schemas';
export { grantFor } from './service';
export { sweepAuthRecords } from './retention';
export { type LimitState, limitColumns, recordFailure, retryAfterSeconds } from './login-limits';
