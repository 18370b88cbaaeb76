/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, and
 * an interactive reference page over it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../core/context';
import { routeRegistry } from '../../core/routes';

export function openApiConfig() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead Management API',
      version: '1.0.0',
      description:
        'Multi-tenant lead management: capture, enrich, score and work leads. Every failure uses the envelope {success:false, error:{message, type, code}}.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the document names whatever deployment serves it, never what a Host header claims.
    servers: [{ url: '/', description: 'This deployment' }],
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
