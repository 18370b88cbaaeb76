/**
 * Builds the Hono app: request id and log line, body limit, per-request database, then one
 * route module per resource group, the OpenAPI document, and the single error/not-found handlers.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from './core/context';
import { bearerCors, ingestionCors } from './core/cors';
import { databaseAccess } from './core/database';
import { refuseBadCharacters } from './core/text-guard';
import { readConfig } from './env';
import { PayloadTooLarge } from './core/errors';
import { handleError, handleMethodNotAllowed, handleNotFound } from './core/http';
import { requestLogger } from './core/log';
import './core/validation-messages';
import { allowedMethods, validationHook } from './core/routes';
import { apiKeyRoutes } from './modules/api-keys/routes';
import { authRoutes } from './modules/auth/routes';
import { mountDocs } from './modules/docs/routes';
import { healthRoutes } from './modules/health/routes';
import { roleRoutes } from './modules/roles/routes';
import { userRoutes } from './modules/users/routes';
import { searchRoutes } from './modules/search/routes';
import { lookupRoutes } from './modules/lookups/routes';
import { customViewRoutes } from './modules/custom-views/routes';
import { leadRoutes } from './modules/leads/routes';
import { feedRoutes } from './modules/feed/routes';
import { notificationRoutes } from './modules/notifications/routes';
import { leadNoteRoutes } from './modules/lead-notes/routes';
import { leadFollowUpRoutes } from './modules/lead-follow-ups/routes';
import { leadDocumentRoutes } from './modules/lead-documents/routes';
import { fileRoutes } from './modules/files/routes';
import { importRoutes } from './modules/imports/routes';
import { exportRoutes } from './modules/exports/routes';
import { intentRoutes } from './modules/intent/routes';
import { leadEnrichmentRoutes } from './modules/lead-enrichment/routes';
import { trackingHitRoutes } from './modules/tracking/hit-routes';
import { trackingRoutes } from './modules/tracking/routes';
import { linkDomainRoutes } from './modules/tracking';
import { companyRoutes } from './modules/companies/routes';
import { contactRoutes } from './modules/contacts/routes';
import { pipelineRoutes } from './modules/pipelines/routes';
import { dealRoutes } from './modules/deals/routes';
import { forecastRoutes } from './modules/forecast/routes';
import { analyticsRoutes } from './modules/analytics/routes';
import { ingestionRoutes } from './modules/ingestion/routes';
import { webFormPageRoutes } from './modules/web-forms/page-routes';
import { webFormRoutes } from './modules/web-forms/routes';
import { meetingRoutes } from './modules/meetings/routes';
import { transcriptRoutes } from './modules/meetings';
import { calendarRoutes } from './modules/calendar/routes';
import { savedQueryRoutes } from './modules/saved-queries/routes';
import { dashboardRoutes } from './modules/dashboards/routes';
import { webhookRoutes } from './modules/webhooks/routes';
import { chatRoutes } from './modules/chat/routes';
import { bookingRoutes } from './modules/booking/routes';
import { targetAccountRoutes } from './modules/target-accounts/routes';
import { mailConfigurationRoutes } from './modules/mail/routes';
import { inboxRoutes } from './modules/mail';
import { unsubscribeRoutes } from './modules/mail';
import { creditRoutes } from './modules/credits/routes';
import { callRoutes, voiceRoutes, voiceWebhookRoutes } from './modules/voice';
import { integrationRoutes } from './modules/integrations/routes';
import { aiDashboardRoutes, aiToolRoutes, draftRoutes } from './modules/intelligence/routes';
import { MAX_UPLOAD_BYTES } from './modules/files';
import { MAX_IMPORT_BYTES } from './modules/imports';

/** JSON bodies above this are refused with 413; upload routes set their own larger limit. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * Multipart uploads as a whole: the largest per-file cap (imports, 32 MB) plus 1 MB for the other
 * fields and the multipart framing. A body is read whole before a route's per-file check, so a
 * larger allowance would only let a caller make the isolate (128 MB) hold more for nothing.
 */
export const UPLOAD_BODY_LIMIT_BYTES = Math.max(MAX_UPLOAD_BYTES, MAX_IMPORT_BYTES) + 1024 * 1024;

export const routeModules = [
  healthRoutes,
  authRoutes,
  userRoutes,
  searchRoutes,
  roleRoutes,
  apiKeyRoutes,
  lookupRoutes,
  customViewRoutes,
  leadNoteRoutes,
  leadFollowUpRoutes,
  leadDocumentRoutes,
  importRoutes,
  leadRoutes,
  feedRoutes,
  notificationRoutes,
  fileRoutes,
  exportRoutes,
  intentRoutes,
  leadEnrichmentRoutes,
  trackingRoutes,
  linkDomainRoutes,
  trackingHitRoutes,
  companyRoutes,
  contactRoutes,
  pipelineRoutes,
  dealRoutes,
  forecastRoutes,
  analyticsRoutes,
  ingestionRoutes,
  webFormRoutes,
  webFormPageRoutes,
  meetingRoutes,
  transcriptRoutes,
  calendarRoutes,
  targetAccountRoutes,
  savedQueryRoutes,
  dashboardRoutes,
  mailConfigurationRoutes,
  inboxRoutes,
  creditRoutes,
  voiceRoutes,
  callRoutes,
  integrationRoutes,
  aiToolRoutes,
  draftRoutes,
  aiDashboardRoutes,
  // Public (the signed token is the credential).
  unsubscribeRoutes,
  webhookRoutes,
  chatRoutes,
  // Public (the provider's signature, or a signed link, is the credential).
  voiceWebhookRoutes,
  // Public (no credential): an edge Worker can mount this router alone.
  bookingRoutes,
];

export function buildApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requestLogger);
  // A Worker without a valid configuration (a missing, short or published JWT_SECRET, a pooled
  // DATABASE_URL) serves nothing: every route answers 500 and the log line says why.
  app.use('*', async (c, next) => {
    c.set('config', readConfig(c.env));
    await next();
  });
  app.use('*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/v1/*', ingestionCors);
  app.use('/api/*', (c, next) => (c.req.path.startsWith('/api/v1/') ? next() : bearerCors(c, next)));
  const jsonLimit = bodyLimit({
    maxSize: JSON_BODY_LIMIT_BYTES,
    onError: () => {
      throw new PayloadTooLarge(`Request body exceeds ${JSON_BODY_LIMIT_BYTES} bytes`);
    },
  });
  const uploadLimit = bodyLimit({
    maxSize: UPLOAD_BODY_LIMIT_BYTES,
    onError: () => {
      throw new PayloadTooLarge(`Upload exceeds ${UPLOAD_BODY_LIMIT_BYTES / 1024 / 1024} MB`);
    },
  });
  app.use('/api/*', (c, next) =>
    c.req.header('content-type')?.toLowerCase().startsWith('multipart/') ? uploadLimit(c, next) : jsonLimit(c, next),
  );
  app.use('/api/*', refuseBadCharacters);
  app.use('*', databaseAccess);
  for (const module of routeModules) app.route('/', module);
  mountDocs(app);
  app.onError(handleError);
  app.notFound((c) => {
    const allowed = allowedMethods(new URL(c.req.url).pathname);
    return allowed.length > 0 ? handleMethodNotAllowed(c, allowed) : handleNotFound(c);
  });
  return app;
}
