/**
 * The signed unsubscribe link of every mail that is not a reply (public: the token is the
 * credential). GET shows a page with a confirm button, so a scanner that prefetches links
 * unsubscribes nobody; POST unsubscribes: it is what a mail client's one-click button sends
 * (RFC 8058, `List-Unsubscribe=One-Click`) and what the page's button sends. Like the tracking
 * routes it reads no database: the token is verified by its signature and the address goes to
 * the events queue after the response, whose consumer adds it to the suppression list.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { logError } from '../../core/log';
import { createRouter, defineRoute, htmlPage } from '../../core/routes';
import { trackingSecrets } from '../tracking';
import { escapeHtml } from './tracked-html';
import { verifyUnsubscribeToken } from './unsubscribe-token';

export const unsubscribeRoutes = createRouter();
const tags = ['Mail'];

const TokenParam = z.object({
  token: z
    .string()
    .max(1_024)
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The signed token of a List-Unsubscribe link' }),
});

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="robots" content="noindex"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">${body}</body></html>`;

function answer(c: Context<AppEnv>, status: 200 | 404, body: string) {
  return c.html(body, status, { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
}

const INVALID = page('Link not valid', '<h1>This unsubscribe link is not valid</h1><p>Nothing was changed.</p>');

unsubscribeRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/mail/unsubscribe/{token}',
    operationId: 'unsubscribePage',
    tags,
    summary: 'The unsubscribe page of a List-Unsubscribe link (changes nothing)',
    description:
      'Shows which address would be unsubscribed and a button that POSTs to the same URL. A GET never unsubscribes, since mail scanners fetch links. An invalid token: a 404 page.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: TokenParam },
    responses: { 200: htmlPage('The confirmation page'), 404: htmlPage('The token is not valid') },
  }),
  async (c) => {
    const claims = await verifyUnsubscribeToken(trackingSecrets(c.env), c.req.valid('param').token);
    if (!claims) return answer(c, 404, INVALID);
    return answer(
      c,
      200,
      page(
        'Unsubscribe',
        `<h1>Unsubscribe ${escapeHtml(claims.address)}?</h1><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      ),
    );
  },
);

unsubscribeRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/mail/unsubscribe/{token}',
    operationId: 'unsubscribeOneClick',
    tags,
    summary: 'One-click unsubscribe (RFC 8058): the address is never mailed again',
    description:
      'What a mail client’s unsubscribe button sends (`List-Unsubscribe=One-Click`, any body is accepted and ignored). A valid token queues the address for the organization’s suppression list after the response (the route reads no database); every later send skips it. Answers 200 either way for a valid token, also when repeated; an invalid token answers a 404 page and changes nothing.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: TokenParam },
    responses: { 200: htmlPage('Unsubscribed'), 404: htmlPage('The token is not valid') },
  }),
  async (c) => {
    const claims = await verifyUnsubscribeToken(trackingSecrets(c.env), c.req.valid('param').token);
    if (!claims) return answer(c, 404, INVALID);
    const message = {
      kind: 'unsubscribe' as const,
      orgId: claims.orgId,
      address: claims.address,
      at: new Date().toISOString(),
    };
    c.executionCtx.waitUntil(c.env.EVENTS.send(message).catch((error: unknown) => logError(c, error)));
    return answer(
      c,
      200,
      page(
        'Unsubscribed',
        `<h1>Unsubscribed</h1><p>${escapeHtml(claims.address)} will get no more of these emails.</p>`,
      ),
    );
  },
);
