/**
 * The voice module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { voiceJobHandler } from './voice-job';
export { callRoutes } from './call-routes';
export { voiceRoutes } from './routes';
export { voiceWebhookRoutes } from './webhook-routes';
export { runNumberRentals } from './rentals';
