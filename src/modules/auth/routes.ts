/**
 * Authentication: login and logout as the spec gives them, and signup (beyond the spec) so a
 * new organization can start using the service.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { Forbidden } from '../../core/errors';
import { ok } from '../../core/http';
import { clientIp, limitAuthAttempts } from '../../core/rate-limit';
import {
  bodyIssuesAreBadRequest,
  createRouter,
  defineRoute,
  envelope,
  ErrorEnvelope,
  jsonBody,
} from '../../core/routes';
import { readConfig } from '../../env';
import { LoginBody, SignupBody, TokenGrantSchema } from './schemas';
import { emailTakenConflict } from '../users';
import { login, logout, signup, type TokenGrant } from './service';

export const authRoutes = createRouter();

function grantResponse<S extends 200 | 201>(c: Context<AppEnv>, grant: TokenGrant, message: string, status: S) {
  return c.json({ success: true as const, message, ...grant, data: grant }, status);
}

const grantContent = { content: { 'application/json': { schema: TokenGrantSchema } } };

const loginRoute = defineRoute({
  method: 'post',
  path: '/api/auth/login',
  operationId: 'login',
  rateLimited: true,
  tags: ['Authentication'],
  summary: 'Exchange email and password for a 30-day bearer token',
  description:
    'Exchanges an email and password for a bearer token valid 30 days (send it as `Authorization: Bearer <token>`). A wrong password is a 401; an email without an account is a 404, as the spec’s login errors require (so the status does tell whether an email has an account; the check costs the same time either way, and each address may try the auth routes a limited number of times a minute). Failed logins are limited (429 with Retry-After) without locking the account out: 5 failures for one account from one address hold that address back until the oldest leaves the 15-minute window; from 10 failures for one account (from any addresses) within the window, each further attempt waits a delay that doubles (1 s, 2 s, 4 s … at most 15 minutes) after the latest failure, except from an address the account logged in from within 30 days, which only its own failures hold back. A successful login forgets the account’s failures.',
  auth: 'public',
  request: { body: jsonBody(LoginBody) },
  responses: {
    200: { description: 'Token issued', ...grantContent },
    401: {
      description:
        'Wrong password (error.code invalid_credentials); an email without an account is a 404, as the spec requires',
      content: { 'application/json': { schema: ErrorEnvelope } },
    },
    403: {
      description:
        'The account is inactive (error.code account_inactive) or its organization is not active (error.code no_organization)',
      content: { 'application/json': { schema: ErrorEnvelope } },
    },
  },
});

authRoutes.openapi(
  loginRoute,
  async (c) => {
    await limitAuthAttempts(c);
    const { email, password } = c.req.valid('json');
    const grant = await login(c.var.database(), readConfig(c.env).JWT_SECRET, email, password, clientIp(c));
    c.set('logOrgId', Number(grant.user.organization_id));
    return grantResponse(c, grant, 'Logged in', 200);
  },
  bodyIssuesAreBadRequest,
);

const signupRoute = defineRoute({
  method: 'post',
  path: '/api/auth/signup',
  operationId: 'signup',
  rateLimited: true,
  tags: ['Authentication'],
  summary: 'Create an organization, its default roles and its admin user; answers like login',
  description:
    'Creates a new organization with its default roles and lookup values, and its first user as admin, then answers like login with a token for that user. Emails are unique across organizations, since login is by email alone. Can be disabled per deployment (SIGNUP_ENABLED).',
  auth: 'public',
  request: { body: jsonBody(SignupBody) },
  responses: {
    201: { description: 'Organization and admin created', ...grantContent },
    409: emailTakenConflict,
  },
});

authRoutes.openapi(signupRoute, async (c) => {
  await limitAuthAttempts(c);
  const config = readConfig(c.env);
  if (!config.SIGNUP_ENABLED) throw new Forbidden('Signup is disabled on this deployment', 'signup_disabled');
  const grant = await signup(c.var.database(), config.JWT_SECRET, c.req.valid('json'));
  c.set('logOrgId', Number(grant.user.organization_id));
  return grantResponse(c, grant, 'Organization created', 201);
});

const logoutRoute = defineRoute({
  method: 'post',
  path: '/api/auth/logout',
  operationId: 'logout',
  tags: ['Authentication'],
  summary: 'Revoke the bearer token used for this request',
  description:
    'Revokes the bearer token used for this request; other tokens of the same user stay valid. `data` is null.',
  auth: 'bearer',
  // One insert (atomic alone): no transaction around it.
  transaction: false,
  responses: { 200: envelope(z.null().openapi({ description: 'Always null' }), 'Token revoked') },
});

authRoutes.openapi(logoutRoute, async (c) => {
  await logout(c.var.tenant);
  return ok(c, null, 'Logged out');
});
