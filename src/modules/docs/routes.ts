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
}

/**
 * The reference page loads Scalar's standalone bundle at one pinned version, checked by its
 * Subresource Integrity hash (the sha384 of dist/browser/standalone.js in the npm package, which
 * the CDN serves byte for byte; `node scripts/scalar-sri.mjs <version>` prints it for an upgrade).
 */
export const SCALAR_VERSION = '1.72.1';
export const SCALAR_SRI = 'sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK';
export const SCALAR_BUNDLE_URL = `https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}/dist/browser/standalone.js`;

/** Only the pinned bundle and this response's own inline script run; the page may fetch only this origin. */
export function referencePagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${SCALAR_BUNDLE_URL}`,
    "style-src 'unsafe-inline'",
    'font-src https://fonts.scalar.com',
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
    <script src="${SCALAR_BUNDLE_URL}" integrity="${SCALAR_SRI}" crossorigin="anonymous" nonce="${nonce}"></script>
    <script nonce="${nonce}">Scalar.createApiReference('#app', { url: '/api/openapi.json' });</script>
  </body>
</html>`;
}
