/**
 * The tracking module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { isTrackingHit, recordHits } from './hits';
export { runLinkDomainRechecks } from './link-domain-recheck';
export { isDirectTarget, linkDomainRoutes, linkDomainsSql } from './link-domains';
export {
  openWithTrackingKey,
  sealWithTrackingKey,
  signTrackingToken,
  signWithTrackingKey,
  trackingSecrets,
  verifyTrackingToken,
  verifyWithTrackingKey,
} from './token';
export type { TrackingSecrets } from './token';
