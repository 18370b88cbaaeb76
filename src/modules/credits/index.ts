/**
 * The credits module's public surface: the ledger service other modules charge through
 * (reserve before the work, settle on success, refund on failure; docs/domains/credits.md),
 * the price table, the 402 response to declare, the cron sweep that expires reservations nobody
 * closed, and the routes.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export {
  creditBalance,
  grantCredits,
  grantStartingCredits,
  insufficientCredits,
  refundCredits,
  reserveCredits,
  settleCredits,
} from './ledger';
export type { CreditsContext, Reservation, ReservationState } from './ledger';
export {
  expireReservations,
  RESERVATION_SWEEP_LOOKBACK_HOURS,
  RESERVATION_TTL_MINUTES,
  runReservationSweep,
} from './expiry';
export { CREDIT_FEATURES, FEATURE_PRICES, STARTING_GRANT, priceOf } from './prices';
export type { CreditFeature, FeaturePrice } from './prices';
export { insufficientCreditsResponse } from './schemas';
