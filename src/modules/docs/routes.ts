/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, and
 * an interactive reference page over it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { AppEnv } from '../../core/context';

export function openApiConfig(origin: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead Management API',
      version: '1.0.0',
      description:
        'Multi-tenant lead management: capture, enrich, score and work leads. Every failure uses the envelope {success:false, error:{message, type, code}}.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: origin }],
  };
}

export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  });
  app.doc31('/api/openapi.json', (c) => openApiConfig(new URL(c.req.url).origin));
  app.get('/api/docs', Scalar({ url: '/api/openapi.json', pageTitle: 'Lead Management API' }));
}
