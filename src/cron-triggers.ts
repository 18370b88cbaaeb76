/**
 * The cron triggers wrangler.toml declares (`[triggers] crons`), by what `scheduled` runs on them
 * (src/index.ts): every minute the sweeps, once a day besides them the lead-scoring retraining
 * and the lead search words. A trigger the Worker does not know runs only the sweeps, so the two
 * lists must agree (test-node/cron-triggers.test.ts reads wrangler.toml).
 */
export const MINUTE_CRON = '* * * * *';
/** 02:17 UTC: off the hour, when most schedulers fire. */
export const DAILY_CRON = '17 2 * * *';
export const CRON_TRIGGERS = [MINUTE_CRON, DAILY_CRON] as const;
