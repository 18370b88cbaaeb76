/**
 * The booking module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { AvailabilityQuery, AvailabilitySchema } from './availability-query';
export { bumpBookingVersion, invalidateBookingCache } from './booking-version';
export { callerAvailability } from './service';
export { instantOf } from './time-zones';
export {
  bookingSettingsInput,
  bookingSettingsRead,
  insertWithFreeSlug,
  presentBookingSettings,
  timeZoneInput,
} from './settings';
export type { BookingSettingsRow } from './settings';
