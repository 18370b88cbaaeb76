/**
 * What calling costs the wallet (cents of USD) and the limits that go with it. These are our
 * prices to the organization, not the provider's invoice: a call is charged per started minute.
 */
export const CALL_CENTS_PER_MINUTE = 5;
/** An agent call is cut off after this long; its price is held when it is placed. */
export const AGENT_CALL_MAX_MINUTES = 10;
export const AGENT_CALL_HOLD_CENTS = CALL_CENTS_PER_MINUTE * AGENT_CALL_MAX_MINUTES;
/** A completed outbound call at least this long is engagement: a `manual` intent signal on its lead. */
export const ENGAGED_CALL_SECONDS = 30;
/**
 * No call outlasts this: Twilio's default time limit for a call (`timeLimit`, 14 400 s). A call
 * still open after it is surely over at the provider, whose report was lost.
 */
export const CALL_MAX_SECONDS = 4 * 60 * 60;
/** Twilio's default outbound rate per account (calls per second); queued calls wait their turn. */
export const CALLS_PER_SECOND = 1;
/** The caller id the simulator uses when the organization has no number of its own. */
export const LOCAL_CALLER_ID = '+14155550100';

export function callPriceCents(durationSec: number): number {
  return Math.ceil(Math.max(0, durationSec) / 60) * CALL_CENTS_PER_MINUTE;
}
