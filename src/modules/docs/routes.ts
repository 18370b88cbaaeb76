/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, and
 * an interactive reference page over it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../core/context';
import { routeRegistry } from '../../core/routes';
import { registerWebhookPayloads } from '../webhooks';

/**
 * Every tag an operation uses, declared at the top level with its description, in the order the
 * reference page shows them. A tag used by a route but missing here fails test/openapi-docs.test.ts.
 */
export const TAGS: Record<string, string> = {
  Authentication: 'Sign up, log in and log out. Login answers a bearer token (30 days) for `Authorization: Bearer`.',
  Users: 'The users of an organization: your profile, the user list, adding, updating and deleting users, passwords.',
  Roles: 'Roles of the organization. Access rules use the built-in admin, manager and sales_rep roles.',
  'API keys': 'Keys for server-to-server calls (header `x-api-key`), created and revoked by admins.',
  Leads: 'The lead record: create, read, update, soft-delete, list with filters, custom fields and bulk actions.',
  'Lead notes': 'Free-text notes on a lead; every change writes a feed entry.',
  'Lead follow-ups': 'Scheduled follow-ups on a lead, with a date, notes and a status.',
  'Lead documents': 'Files uploaded to a lead, and its profile image.',
  Companies:
    'Companies (accounts): create with a logo, read, update, soft-delete, list and stats under one set of filters, similar companies, and offline enrichment as a queued job.',
  Contacts:
    'Contacts (people at a company): create, read, update, list with filters, set-based bulk update and soft delete; email unique per organization.',
  Files: 'Uploads kept in storage, and attachments of stored or drive files to leads, contacts and companies.',
  Imports: 'Asynchronous lead imports from CSV or XLSX files: the job, its progress and its per-row outcomes.',
  Exports: 'Asynchronous exports of records to CSV or XLSX: the job, its progress and the file.',
  Lookups: 'Per-organization pick lists: lead statuses, sources, priorities, tags and the like.',
  'Saved views':
    'Named list views (filters, columns, sorting), private to their creator or shared with the organization.',
  'Activity feed': 'Who changed what and when: an entry per change of a record, with before/after values.',
  Notifications: 'Per-user notices: lead assignments and finished imports and exports.',
  Pipelines:
    'Sales pipelines and their ordered stages (won, lost, probability, max days in stage); the default pipeline’s Won and Lost stages are protected.',
  Deals: 'Deals on leads: a value, an expected close date and a stage of a pipeline; every stage change is recorded.',
  Analytics:
    'Dashboard numbers: a period’s headline numbers and breakdowns against the previous period, open-lead aging and the top accounts.',
  Forecasting:
    'Deal forecasts (stage probability adjusted by documented factors), pipeline forecast by period, deals at risk and forecast accuracy.',
  Search: 'One search across the organization’s records.',
  Health: 'Liveness of the service and its database.',
  'Lead enrichment':
    'Enriched profiles of people and leads (the local provider, or Apollo when connected), each value with its source and time, merged into a lead’s empty fields only; bulk jobs with per-item results.',
  'Intent signals and alerts':
    'Behavioural signals on leads, the decayed intent score built from them, alerts when a lead turns hot, and the hot-lead list.',
  Tracking:
    'Signed email-open pixels and click redirects: minted per lead, answered at the edge without a database read, recorded as intent signals through a queue.',
  'Ingestion by API key':
    'Lead capture from other systems with `x-api-key`: create (with dedupe by email and profile URL, duplicate and merge) and list.',
  'Web forms':
    'Hosted lead-capture forms: manage them (bearer) and serve their public page and submissions (`/api/v1/web-form/{form_link}`).',
  Meetings:
    'Meetings of the reps with leads, contacts and companies, and a rep’s own free slots (the booking page’s engine).',
  'Target accounts':
    'Account-based marketing: companies targeted as accounts with a computed account health, their stakeholders and outreach plans, bulk email (refused until a mail account exists), and the ABM funnel and top-engaged reports.',
  'Saved queries':
    'Declarative aggregates over leads, deals, companies and contacts (module, filters, metric, group_by, date bucket from allow-lists), run as one parameterised statement and shaped for a widget.',
  Dashboards:
    'Saved dashboards: widgets over saved queries and built-in metrics, personal to their owner or shared with the organization.',
  Webhooks:
    'Outbound webhooks (beyond the spec): endpoints that receive the organization’s events, signed per Standard Webhooks, with a delivery log and replay; each event’s body is under `webhooks`.',
  'Team chat':
    'Slack (chat_a) and Microsoft Teams (chat_b): channel lists, test notifications, and (beyond the spec) channel subscriptions to the webhook events, posted when they happen; a local provider stands in offline.',
  'Public booking':
    'A rep’s public booking page and its API (no credential): profile, free slots in the visitor’s zone, and confirming a slot.',
  Credits:
    'The organization’s credits: balance and this month’s use, the price of each paid feature (AI tools, email drafts, AI dashboards, meeting summaries, enrichment), and admin grants. Every paid call reserves its price first; a failed call is refunded.',
  Calendar:
    'Connected calendars (Google, Outlook, or the local one): their events, connecting and syncing them (busy times feed the availability and the booking page); a booked meeting is written into the rep’s calendar once.',
  AI: 'AI writing tools, AI email drafts with approval before sending (one lead or a bulk job), AI dashboards and meeting summaries. Each call is charged in credits, reserved first and refunded on failure; every output records its provider, model and prompt version.',
  Mail: 'Mail accounts (configurations) and their inbox: list, view, send and reply through Gmail, Microsoft Graph, an SMTP relay or the local mailbox; sends are queued and delivered once, with tracking and one-click unsubscribe.',
  Voice:
    'Calling: phone numbers and who may use them, the calling wallet (USD, a ledger), browser calling tokens, AI agent calls with their transcripts and recordings, and the providers’ signed webhooks (Twilio, Vapi; a local simulator without an account).',
  Integrations:
    'Connected apps of every kind (mail, CRM, team chat) and importing contacts and companies from a third-party CRM (HubSpot or the local data set) with a field mapping; connecting CRM and chat accounts is beyond the spec.',
};

export function openApiConfig() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead Management API',
      version: '1.0.0',
      description:
        'Multi-tenant lead management: capture, enrich, score and work leads. Every failure uses the envelope {success:false, error:{message, type, code}}. A query parameter an operation does not declare is a 400 bad_request naming it in error.details (a misspelt filter is never silently ignored), except on the public pages, links and webhooks whose URLs third parties extend (tracking, web forms, booking, unsubscribe, provider webhooks, recording links), which say so and ignore it. A list answered whole (every row on page 1) also takes the standard list parameters (page, limit, search_value, order_by, order_in, start_date, end_date) it does not declare: page and limit cut it into pages as on any list (page 2 of a list that fits on page 1 is empty), the others are checked but do not narrow it.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the document names whatever deployment serves it, never what a Host header claims.
    servers: [{ url: '/', description: 'This deployment' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  };
}

/**
 * The reference page loads Scalar's standalone bundle (dist/browser/standalone.js of the pinned
 * devDependency @scalar/api-reference) from this Worker, not from a CDN: it works offline and
 * loads exactly the bytes its Subresource Integrity hash names. `node scripts/docs-assets.mjs`
 * copies the bundle into the static assets (.assets/) and prints its hash, for an upgrade.
 */
export const SCALAR_VERSION = '1.72.1';
export const SCALAR_SRI = 'sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK';
export const SCALAR_BUNDLE_PATH = `/api/docs/scalar-${SCALAR_VERSION}.js`;

export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  // Declared once a route authenticates by API key (an unused scheme is a lint warning).
  if (routeRegistry.some((route) => route.auth === 'apiKey')) {
    app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyAuth', {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
  }
  if (routeRegistry.some((route) => route.auth === 'operator')) {
    const operator =
      'The service operator’s key (the Worker secret OPERATOR_API_KEY), never a tenant’s: operator routes act on the organization their input names. Without the secret the routes answer 404.';
    app.openAPIRegistry.registerComponent('securitySchemes', 'operatorBearer', {
      type: 'http',
      scheme: 'bearer',
      description: operator,
    });
    app.openAPIRegistry.registerComponent('securitySchemes', 'operatorKey', {
      type: 'apiKey',
      in: 'header',
      name: 'X-Operator-Key',
      description: operator,
    });
  }
  registerWebhookPayloads(app.openAPIRegistry);
  app.doc31('/api/openapi.json', () => openApiConfig());
  app.get('/api/docs', (c) => {
    const nonce = crypto.randomUUID().replaceAll('-', '');
    c.header('Content-Security-Policy', referencePagePolicy(nonce));
    return c.html(referencePage(nonce));
  });
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    // Through the assets binding (wrangler.toml `run_worker_first`: no asset is served past the
    // Worker), so this one response carries the headers, in `wrangler dev`, the tests and deploy.
    const asset = await c.env.ASSETS.fetch(new URL(SCALAR_BUNDLE_PATH, c.req.url));
    if (!asset.ok || !asset.body) {
      throw new Error(`${SCALAR_BUNDLE_PATH} is missing from the static assets: run node scripts/docs-assets.mjs`);
    }
    return c.body(asset.body, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      // The path names the version and the page checks the bytes (SRI): they never change.
      'cache-control': 'public, max-age=31536000, immutable',
    });
  });
}

/**
 * Only this response's two scripts run (the bundle, same-origin and SRI-checked, and the inline
 * start-up call), both by nonce; the page fetches, and loads images from, this origin only. No
 * remote origin anywhere: the default fonts (fonts.scalar.com) are turned off, system fonts serve.
 */
export function referencePagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function referencePage(nonce: string): string {
  return `<!doctype html>
<html>
  <head>
    <title>Lead Management API</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="app"></div>
    <script src="${SCALAR_BUNDLE_PATH}" integrity="${SCALAR_SRI}" nonce="${nonce}"></script>
    <script nonce="${nonce}">Scalar.createApiReference('#app', { url: '/api/openapi.json', withDefaultFonts: false });</script>
  </body>
</html>`;
}
