/**
 * The route registry. Every endpoint is declared with `defineRoute`, which records its method,
 * path, auth kind, required roles and zod schemas once: the same record drives request
 * validation, the OpenAPI document, the auth and role middleware, and the cross-tenant,
 * bad-input and role test sweeps.
 */
import { createRoute, OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { apiKeyAuthFor } from './auth/api-key';
import type { ApiKeyScope } from './auth/api-key-cache';
import { bearerAuth } from './auth/bearer';
import { OPERATOR_KEY_HEADER, operatorAuth } from './auth/operator';
import { hasRole, type RoleName } from '../db/tenant';
import type { AppEnv } from './context';
import { jsonEtag } from './etag';
import { BadRequest, Forbidden, UnsupportedMediaType, ValidationFailed, type FieldIssue } from './errors';
import { applyContract } from './response-headers';
import { dateInput } from './schemas';
import { leaveBodyToRoute } from './text-guard';

/**
 * bearer: a user of an organization; apiKey: an organization's key; public: nobody in particular;
 * operator: the service's operator (core/auth/operator.ts), acting on an organization its input names.
 */
export type AuthKind = 'bearer' | 'apiKey' | 'public' | 'operator';

export interface RegisteredRoute {
  method: string;
  /** OpenAPI form, e.g. /api/lead/view/{id} */
  path: string;
  auth: AuthKind;
  /** Bearer routes only: the roles that may call it; absent means every user of the organization. */
  roles?: readonly RoleName[];
  /** API-key routes only: the scope the key must hold. */
  scope?: ApiKeyScope;
  operationId: string;
  params?: z.ZodType;
  query?: z.ZodType;
  /** The first declared body media type's schema (the only one on most routes). */
  body?: z.ZodType;
  /** The first declared body media type. */
  bodyMediaType?: string;
  /** Every body media type the route takes (JSON and multipart on company add/update), with its schema. */
  bodies: { mediaType: string; schema: z.ZodType }[];
  /** POST answering 201 for a bearer or API-key caller, an operator POST, or opted in (a 202 mail send): honours Idempotency-Key (core/idempotency.ts). */
  idempotent: boolean;
  /** JSON GET: ETag on 200, 304 for a matching If-None-Match. */
  etag: boolean;
  /**
   * What a query parameter the route does not declare gets: `reject`, a 400 naming it (every route
   * unless it opts out); `ignore`, nothing (`unknownQuery: 'ignore'` in defineRoute).
   */
  unknownQuery: 'reject' | 'ignore';
  /** The query parameters the route declares (its query schema's keys). */
  queryKeys: readonly string[];
}

export const routeRegistry: RegisteredRoute[] = [];

/** The authentication middleware of a route: an API-key route's checks its scope too. */
function authMiddleware(auth: AuthKind, scope: ApiKeyScope | undefined): MiddlewareHandler<AppEnv>[] {
  if (auth === 'bearer') return [bearerAuth];
  if (auth === 'apiKey') return [apiKeyAuthFor(scope ?? null)];
  if (auth === 'operator') return [operatorAuth];
  return [];
}

const FieldIssueSchema = z
  .object({
    field: z
      .string()
      .openapi({ description: 'The field, parameter or header at fault (dotted path)', example: 'email' }),
    message: z
      .string()
      .openapi({ description: 'What is wrong with it, in plain words', example: 'must be a valid email address' }),
  })
  .openapi('FieldIssue', {
    description: 'One invalid input',
    example: { field: 'email', message: 'must be a valid email address' },
  });

export const ErrorEnvelope = z
  .object({
    success: z.literal(false).openapi({ description: 'Always false on a failure' }),
    error: z
      .object({
        message: z
          .string()
          .openapi({ description: 'Human-readable explanation', example: 'email: must be a valid email address' }),
        type: z.string().openapi({
          description:
            'Error class: bad_request, validation_error, unauthorized, payment_required, forbidden, not_found, method_not_allowed, conflict, gone, payload_too_large, unsupported_media_type, rate_limited, service_unavailable or internal_error',
          example: 'validation_error',
        }),
        code: z.union([z.string(), z.number(), z.null()]).openapi({
          description: 'Machine-readable detail: the first invalid field for 400/422, a reason code otherwise, or null',
          example: 'email',
        }),
        details: z
          .array(FieldIssueSchema)
          .optional()
          .openapi({ description: 'Every invalid field (400 and 422 only)' }),
      })
      .openapi({ description: 'What went wrong' }),
  })
  .openapi('Error', {
    description: 'The failure envelope of every error response',
    example: {
      success: false,
      error: {
        message: 'email: must be a valid email address',
        type: 'validation_error',
        code: 'email',
        details: [{ field: 'email', message: 'must be a valid email address' }],
      },
    },
  });

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ErrorEnvelope } } };
}

export type FailureVariant = {
  /** error.code of this failure. */
  code: string;
} & (
  | {
      /** error.details: what the client needs to act on it (e.g. the existing record's id on a conflict). */
      details: z.ZodObject;
      /** A valid value of `details`, for the component's example. */
      example: Record<string, unknown>;
    }
  | { details?: never; example?: never }
);

const DECLARED_FAILURES = {
  conflict: {
    status: 409,
    error: 'What conflicts',
    why: 'Why the request conflicts',
    details: 'What the client needs to act on the conflict',
  },
  gone: { status: 410, error: 'What is gone', why: 'What was removed for good', details: 'When it was removed' },
  payment_required: {
    status: 402,
    error: 'What is not covered',
    why: 'Why the request is not covered',
    details: 'What it costs and what is available',
  },
} as const;

/**
 * A declared failure whose `code` and `details` a typed client can read: the envelope with
 * `type` fixed, `code` one of the variants' codes, and `details` of the variant's declared shape.
 * `name` names the component schema.
 */
function declaredFailure(
  type: keyof typeof DECLARED_FAILURES,
  name: string,
  description: string,
  variants: [FailureVariant, ...FailureVariant[]],
) {
  const words = DECLARED_FAILURES[type];
  const envelopes = variants.map((variant) =>
    z.object({
      success: z.literal(false).openapi({ description: 'Always false on a failure' }),
      error: z
        .object({
          message: z.string().openapi({ description: 'Human-readable explanation' }),
          type: z.literal(type).openapi({ description: `Always ${type} on a ${words.status}` }),
          code: z.literal(variant.code).openapi({ description: words.why }),
          ...(variant.details ? { details: variant.details.openapi({ description: words.details }) } : {}),
        })
        .openapi({ description: words.error }),
    }),
  );
  const schema = (
    envelopes.length === 1 ? envelopes[0] : z.union(envelopes as unknown as [z.ZodObject, z.ZodObject])
  ).openapi(name, {
    description,
    example: {
      success: false,
      error: {
        message: description,
        type,
        code: variants[0].code,
        ...(variants[0].example ? { details: variants[0].example } : {}),
      },
    },
  });
  return { description, content: { 'application/json': { schema } } };
}

/**
 * A declared 409 (`type: conflict`), e.g. the existing lead's id in `details` on a duplicate.
 */
export function conflictResponse(name: string, description: string, variants: [FailureVariant, ...FailureVariant[]]) {
  return declaredFailure('conflict', name, description, variants);
}

/** A declared 410 (`type: gone`): the record is there, what it held was removed for good. */
export function goneResponse(name: string, description: string, variant: FailureVariant) {
  return declaredFailure('gone', name, description, [variant]);
}

/** A declared 402 (`type: payment_required`): the balance does not cover the request; nothing was done. */
export function paymentRequiredResponse(name: string, description: string, variant: FailureVariant) {
  return declaredFailure('payment_required', name, description, [variant]);
}

const IDEMPOTENCY_IN_USE =
  'Idempotency-Key in use by a request still running (error.code idempotency_key_in_use); retry shortly';

const IdempotencyKeyInUse = conflictResponse('IdempotencyKeyInUseConflict', IDEMPOTENCY_IN_USE, [
  { code: 'idempotency_key_in_use' },
]).content['application/json'].schema;

const IDEMPOTENCY_SEALED =
  'Idempotency-Key in use by a request still running (error.code idempotency_key_in_use; retry shortly), or already used by a request that succeeded whose answer held a secret shown only once and cannot be replayed (error.code idempotency_replay_unavailable: the server has no CREDENTIALS_KEY, or the key that sealed it was rotated away); nothing was created again';

const IdempotencySealedConflict = conflictResponse('IdempotencySealedReplayConflict', IDEMPOTENCY_SEALED, [
  { code: 'idempotency_key_in_use' },
  { code: 'idempotency_replay_unavailable' },
]).content['application/json'].schema;

/**
 * The 409 of a route that honours Idempotency-Key: its own conflicts, or the key still in use
 * (a sealedReplay route: or its stored answer that cannot be replayed).
 */
function withIdempotencyConflict(own: unknown, sealed: boolean) {
  const response = own as { description: string; content: { 'application/json': { schema: z.ZodType } } } | undefined;
  const description = sealed ? IDEMPOTENCY_SEALED : IDEMPOTENCY_IN_USE;
  const schema = sealed ? IdempotencySealedConflict : IdempotencyKeyInUse;
  if (!response) return { description, content: { 'application/json': { schema } } };
  return {
    description: `${response.description}; or ${description}`,
    content: {
      'application/json': { schema: z.union([response.content['application/json'].schema, schema]) },
    },
  };
}

const DATABASE_UNAVAILABLE = errorResponse(
  'The database is unavailable: for a moment when its connection was lost or refused (error.code database_unavailable; retry after Retry-After seconds, with the same Idempotency-Key on a create), or until an operator grants the connecting role lm_app (error.code app_role_not_granted)',
);

const PAYLOAD_TOO_LARGE = errorResponse(
  'The body exceeds the size limit (1 MB for JSON; uploads: the route’s own limit)',
);

const MALFORMED = 'Malformed request: unparseable JSON, wrong content type or a malformed parameter';
const MALFORMED_OR_UNKNOWN =
  'Malformed request: unparseable JSON, wrong content type, a malformed parameter, or a query parameter the operation does not declare (error.details names each one)';

function sharedErrors(
  auth: AuthKind,
  roles: readonly RoleName[] | undefined,
  scope: ApiKeyScope | undefined,
  bodyMediaType: string | undefined,
  strictQuery: boolean,
) {
  const malformed = errorResponse(strictQuery ? MALFORMED_OR_UNKNOWN : MALFORMED);
  const forbidden = roles
    ? `Forbidden: the caller's role is not ${roles.join(' or ')} (error.code ${forbiddenCode(roles)})`
    : scope
      ? `Forbidden: the key is invalid, revoked or expired, the caller is outside its allowed IPs or domains, or the key lacks the ${scope} scope (error.code insufficient_scope); error.code names the rule`
      : 'Forbidden: the caller may not do this; error.code names the rule';
  if (auth === 'operator') {
    return {
      400: malformed,
      401: errorResponse(
        `No operator key sent (Authorization: Bearer or ${OPERATOR_KEY_HEADER}; error.code operator_key_missing)`,
      ),
      403: errorResponse(
        'Not the operator key: a wrong key, or a tenant credential (an admin’s token, an API key), which never reaches operator routes (error.code operator_only)',
      ),
      404: errorResponse(
        'The record the input names does not exist; or the deployment has no OPERATOR_API_KEY, and the route answers as if it did not exist',
      ),
      ...(bodyMediaType
        ? { 413: PAYLOAD_TOO_LARGE, 415: errorResponse(`The body's Content-Type is not ${bodyMediaType}`) }
        : {}),
      422: errorResponse('Validation failed; error.code names the first field, error.details lists every field'),
      500: errorResponse('Server error'),
      503: DATABASE_UNAVAILABLE,
    };
  }
  return {
    400: malformed,
    ...(auth === 'public'
      ? {}
      : { 401: errorResponse('Missing or invalid credentials'), 403: errorResponse(forbidden) }),
    404: errorResponse('Not found (records of other organizations are never visible)'),
    ...(bodyMediaType
      ? { 413: PAYLOAD_TOO_LARGE, 415: errorResponse(`The body's Content-Type is not ${bodyMediaType}`) }
      : {}),
    422: errorResponse('Validation failed; error.code names the first field, error.details lists every field'),
    429: errorResponse('Rate limited; retry after Retry-After seconds'),
    500: errorResponse('Server error'),
    503: DATABASE_UNAVAILABLE,
  };
}

const securityFor: Record<AuthKind, RouteConfig['security']> = {
  bearer: [{ bearerAuth: [] }],
  apiKey: [{ apiKeyAuth: [] }],
  public: [],
  // Either header carries the operator key.
  operator: [{ operatorBearer: [] }, { operatorKey: [] }],
};

/** `admin_only`, `admin_or_manager_only`: names exactly the roles the route admits. */
function forbiddenCode(roles: readonly RoleName[]): string {
  return `${roles.join('_or_')}_only`;
}

/**
 * Runs after the bearer middleware, before validation and the handler: a user whose role is not
 * listed gets 403 and the request changes nothing. Roles are read from the same statement that
 * checks the token, so the check costs no round trip.
 */
function requireRoles(roles: readonly RoleName[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!hasRole(c.var.tenant.actor, roles)) {
      throw new Forbidden(`This action needs the ${roles.join(' or ')} role`, forbiddenCode(roles));
    }
    await next();
  };
}

/**
 * `roles` restricts a bearer route to users holding one of the listed built-in roles. API keys
 * and public callers are not users and hold no role, so only bearer routes may declare roles.
 * `scope`: the scope an API key must hold to call the route (403 insufficient_scope otherwise,
 * before the route reads or writes anything); every API-key route names one.
 */
type AuthAndRoles =
  | { auth: 'bearer'; roles?: readonly [RoleName, ...RoleName[]]; scope?: never }
  | { auth: 'apiKey'; scope: ApiKeyScope; roles?: never }
  | { auth: 'public'; roles?: never; scope?: never }
  | { auth: 'operator'; roles?: never; scope?: never };

export type DefinedRouteConfig = Omit<RouteConfig, 'middleware' | 'security' | 'operationId' | 'description'> &
  AuthAndRoles & {
    operationId: string;
    /**
     * What the operation does, its side effects and notable rules (Markdown). defineRoute appends
     * the roles note and the "Errors" paragraph generated from the declared responses.
     */
    description: string;
    /**
     * `false`: the handler's writes are single statements that stand alone (each atomic by itself,
     * races settled by unique indexes), so the request runs without BEGIN/COMMIT, two round trips
     * fewer. Writes of authenticated routes otherwise run in one transaction.
     */
    transaction?: false;
    /** A public route that still counts against a rate limit (login, signup): its responses carry the RateLimit headers. */
    rateLimited?: true;
    /**
     * Honours Idempotency-Key although the route answers no 201: a public POST that runs as a
     * tenant with a scope for keys (a web-form submission, see idempotencyScope), a POST that
     * queues something a retry must not do twice (a mail send answers 202 queued), or a paid call
     * answering 200 (the AI tools), whose retry must not be charged again.
     */
    idempotency?: true;
    /**
     * The answer holds a secret shown only in it (a webhook's signing secret): the response an
     * Idempotency-Key stores for a retry is sealed under CREDENTIALS_KEY like any credential at
     * rest (core/idempotency.ts), never kept in clear text.
     */
    sealedReplay?: true;
    /** Route middleware that runs before authentication (e.g. one that sets c.var.scopeRead). */
    beforeAuth?: MiddlewareHandler<AppEnv>[];
    /**
     * The handler checks its body's characters itself (`badCharacter`, core/text-guard.ts) and
     * answers its own way (the hosted web form answers its HTML form with the error beside the
     * field): the app-wide guard leaves this route's body alone. Its query is still checked.
     */
    checksOwnCharacters?: true;
    /**
     * `ignore`: query parameters the route does not declare are ignored. Only for public routes
     * whose URLs third parties extend with parameters the caller does not control (a tracking
     * pixel or redirect carrying `utm_source` or `fbclid`, a hosted form or booking page, a
     * provider's webhook or callback, a signed download link). Every other route rejects them: a
     * 400 naming each one, so a misspelt filter is never silently dropped.
     */
    unknownQuery?: 'ignore';
  };

/** Marks the request as one whose writes need no transaction (see DefinedRouteConfig.transaction). */
const withoutTransaction: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('transactional', false);
  await next();
};

/** Marks the request as one that honours Idempotency-Key (see core/idempotency.ts). */
const withIdempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('idempotent', true);
  await next();
};

/** Marks the request as one whose stored replay is sealed (see DefinedRouteConfig.sealedReplay). */
const withSealedReplay: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('sealedReplay', true);
  await next();
};

function isJsonOnly(response: unknown): boolean {
  const content = (response as { content?: Record<string, unknown> } | undefined)?.content;
  return !!content && Object.keys(content).every((mediaType) => mediaType === 'application/json');
}

export function defineRoute<const C extends DefinedRouteConfig>(config: C) {
  const {
    auth,
    roles,
    scope,
    transaction,
    rateLimited,
    idempotency,
    sealedReplay,
    beforeAuth,
    checksOwnCharacters,
    unknownQuery,
    ...route
  } = config;
  const method = route.method.toUpperCase();
  if (checksOwnCharacters) leaveBodyToRoute(method, pathPattern(route.path));
  // Creates (201) for a caller keys can be scoped to. Public routes have none before they run
  // (signup); one that runs as a tenant can opt in (`idempotency`, with a scope in idempotencyScope).
  // Every operator POST (a grant, a top-up: money a retry must not add twice), its keys the
  // operator's under the organization it acts on (core/auth/operator.ts runAsOrganization).
  const tenantAuth = auth === 'bearer' || auth === 'apiKey';
  const idempotent =
    method === 'POST' && ((tenantAuth && 201 in route.responses) || auth === 'operator' || idempotency === true);
  const etagged = method === 'GET' && isJsonOnly(route.responses[200]);
  const authChain = [
    ...(transaction === false ? [withoutTransaction] : []),
    ...(idempotent ? [withIdempotency] : []),
    ...(idempotent && sealedReplay ? [withSealedReplay] : []),
    ...authMiddleware(auth, scope),
  ];
  const querySchema = route.request?.query as z.ZodType | undefined;
  const queryKeys = declaredKeys(querySchema, `${method} ${route.path}`);
  const strictQuery = unknownQuery !== 'ignore';
  // The spec's list endpoints all accept its standard list parameters: one answered whole (every
  // row on page 1) that declares none of them still takes them rather than refusing them as unknown.
  const wholeListKeys = answersList(route.responses[200])
    ? STANDARD_LIST_PARAMETERS.filter((key) => !queryKeys.includes(key))
    : [];
  const acceptedQueryKeys = [...queryKeys, ...wholeListKeys];
  const content = route.request?.body?.content;
  const bodyMediaTypes = content ? Object.keys(content) : [];
  const bodyMediaType = bodyMediaTypes[0];
  const declared: RouteConfig['responses'] = {
    ...sharedErrors(auth, roles, scope, bodyMediaTypes.length ? bodyMediaTypes.join(' or ') : undefined, strictQuery),
    ...route.responses,
  };
  if (idempotent) declared[409] = withIdempotencyConflict(route.responses[409], sealedReplay === true);
  const contract = applyContract(
    declared,
    { rateLimited: tenantAuth || rateLimited === true, etag: etagged, idempotent },
    errorResponse,
  );
  routeRegistry.push({
    method,
    path: route.path,
    auth,
    roles,
    scope,
    operationId: route.operationId,
    params: route.request?.params as z.ZodType | undefined,
    query: querySchema,
    body: bodyMediaType ? (content?.[bodyMediaType] as { schema?: z.ZodType } | undefined)?.schema : undefined,
    bodyMediaType,
    bodies: bodyMediaTypes.flatMap((mediaType) => {
      const schema = (content?.[mediaType] as { schema?: z.ZodType } | undefined)?.schema;
      return schema ? [{ mediaType, schema }] : [];
    }),
    idempotent,
    etag: etagged,
    unknownQuery: strictQuery ? 'reject' : 'ignore',
    queryKeys,
  });
  return createRoute({
    ...route,
    description: withErrors(
      roles
        ? withRolesNote(route.description, roles)
        : scope
          ? withScopeNote(route.description, scope)
          : strictQuery
            ? route.description
            : `${route.description}\n\n${IGNORED_QUERY_NOTE}`,
      contract.responses,
    ),
    ...(roles ? { 'x-roles': roles } : {}),
    middleware: [
      ...(bodyMediaTypes.length ? [requireMediaType(bodyMediaTypes)] : []),
      ...(beforeAuth ?? []),
      ...authChain,
      ...(roles ? [requireRoles(roles)] : []),
      ...(strictQuery ? [rejectUnknownQuery(acceptedQueryKeys)] : []),
      ...(wholeListKeys.length ? [checkStandardListParameters(wholeListKeys)] : []),
      ...(etagged ? [jsonEtag] : []),
    ],
    security: securityFor[auth],
    ...(contract.parameters.length > 0
      ? { parameters: [...((route as { parameters?: unknown[] }).parameters ?? []), ...contract.parameters] }
      : {}),
    responses: contract.responses,
  } as Omit<
    C,
    | 'auth'
    | 'roles'
    | 'scope'
    | 'transaction'
    | 'rateLimited'
    | 'idempotency'
    | 'sealedReplay'
    | 'beforeAuth'
    | 'checksOwnCharacters'
    | 'unknownQuery'
  > & {
    middleware: MiddlewareHandler<AppEnv>[];
  });
}

const IGNORED_QUERY_NOTE =
  'Query parameters the operation does not declare are ignored (third parties append their own, such as `utm_source` or `fbclid`).';

/**
 * The keys of a route's query schema (an object, possibly refined or piped). A schema of another
 * shape fails at definition: the unknown-parameter check must know what the route takes.
 */
/**
 * The spec's standard list parameters ("All list endpoints accept", service-interface.md): a list
 * answered whole takes them without declaring them, and they do not narrow it (docs/conventions.md).
 */
export const STANDARD_LIST_PARAMETERS = [
  'page',
  'limit',
  'search_value',
  'order_by',
  'order_in',
  'start_date',
  'end_date',
] as const;

/**
 * The standard list parameters' rules where a route does not declare them (the same as a paged
 * list's, `listParamsShape` in core/list.ts, without defaults): a malformed one is a 400 naming it,
 * never accepted in silence.
 */
const STANDARD_LIST_RULES = {
  page: z.coerce.number().int().min(1).max(1_000_000),
  limit: z.coerce.number().int().min(1).max(1_000_000),
  search_value: z.string().trim().max(200),
  order_by: z.string().max(64),
  order_in: z
    .string()
    .max(4)
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(['ASC', 'DESC'], { message: 'must be ASC or DESC' })),
  start_date: dateInput(),
  end_date: dateInput(),
} satisfies Record<(typeof STANDARD_LIST_PARAMETERS)[number], z.ZodType>;

/**
 * On a list answered whole, the standard list parameters it does not declare: each one sent is
 * checked (400 naming it), and `page` and `limit` cut the answer (`wholeListWindow`, applied by
 * `list` in core/http.ts): page 2 of a list that fits on page 1 is empty, as a paged list's is, so
 * a client paging until an empty page stops; until 2026-12-02 every page answered every row.
 */
function checkStandardListParameters(
  keys: readonly (typeof STANDARD_LIST_PARAMETERS)[number][],
): MiddlewareHandler<AppEnv> {
  const schema = z.object(Object.fromEntries(keys.map((key) => [key, STANDARD_LIST_RULES[key].optional()])));
  return async (c, next) => {
    const sent = Object.fromEntries(
      keys.flatMap((key) => (c.req.query(key) === undefined ? [] : [[key, c.req.query(key)]])),
    );
    const parsed = schema.safeParse(sent);
    if (!parsed.success) throw badRequestFrom(issuesOf(parsed.error, 'query'));
    const { page, limit } = parsed.data as { page?: number; limit?: number };
    if (page !== undefined || limit !== undefined) c.set('wholeListWindow', { page: page ?? 1, limit });
    await next();
  };
}

/** Whether a 200 answers the list envelope: `data` an array beside `total`. */
function answersList(response: unknown): boolean {
  const schema = (response as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[
    'application/json'
  ]?.schema;
  if (!(schema instanceof z.ZodObject)) return false;
  const shape = schema.shape as Record<string, unknown>;
  return 'total' in shape && shape.data instanceof z.ZodArray;
}

function declaredKeys(schema: z.ZodType | undefined, route: string): string[] {
  let current: unknown = schema;
  while (current && !(current instanceof z.ZodObject)) {
    if (current instanceof z.ZodPipe) current = current.in;
    else throw new Error(`${route}: its query schema must be an object, to know which parameters it takes`);
  }
  return current ? Object.keys((current as z.ZodObject).shape) : [];
}

/**
 * A query parameter the route does not declare is a 400 `bad_request` naming every such parameter
 * (`error.code` the first, `error.details` each), before the declared ones are validated: a
 * misspelt filter (`serch_value`) would otherwise answer as if no filter were given. Runs after
 * authentication and roles, as validation does.
 */
function rejectUnknownQuery(keys: readonly string[]): MiddlewareHandler<AppEnv> {
  const declared = new Set(keys);
  return async (c, next) => {
    const url = c.req.url;
    const start = url.indexOf('?');
    if (start !== -1) {
      const unknown = [...new Set(new URLSearchParams(url.slice(start + 1)).keys())].filter(
        (key) => !declared.has(key),
      );
      if (unknown.length > 0) throw unknownQueryParameters(unknown);
    }
    await next();
  };
}

function unknownQueryParameters(names: string[]): BadRequest {
  const message =
    names.length === 1 ? `Unknown query parameter: ${names[0]}` : `Unknown query parameters: ${names.join(', ')}`;
  const failure = new BadRequest(message, names[0]);
  Object.assign(failure, {
    details: names.map((field) => ({ field, message: 'is not a query parameter of this route' })),
  });
  return failure;
}

/**
 * A body of another media type than the route's is refused with 415, before authentication and
 * validation. A route that takes several (JSON or multipart) also refuses a body without a
 * Content-Type: nothing says which of its schemas applies.
 */
function requireMediaType(mediaTypes: readonly string[]): MiddlewareHandler<AppEnv> {
  const expected = mediaTypes.join(' or ');
  return async (c, next) => {
    const given = c.req.header('content-type')?.split(';')[0].trim().toLowerCase();
    if (given ? !mediaTypes.includes(given) : mediaTypes.length > 1) throw new UnsupportedMediaType(expected);
    await next();
  };
}

/** On a route that takes JSON or multipart: whether this request's body is the form. */
export function sentAsForm(c: Context): boolean {
  const given = c.req.header('content-type')?.split(';')[0].trim().toLowerCase();
  return given === 'multipart/form-data' || given === 'application/x-www-form-urlencoded';
}

const pathPatterns = new Map<string, RegExp>();

/** The pattern a route's path (`/api/lead/view/{id}`) matches concrete paths with. */
function pathPattern(path: string): RegExp {
  let pattern = pathPatterns.get(path);
  if (!pattern) {
    const source = path
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    pattern = new RegExp(`^${source}$`);
    pathPatterns.set(path, pattern);
  }
  return pattern;
}

/** The methods the registry serves at a concrete path (`/api/lead/view/12`), for a 405's Allow header. */
export function allowedMethods(pathname: string): string[] {
  const methods = new Set<string>();
  for (const route of routeRegistry) if (pathPattern(route.path).test(pathname)) methods.add(route.method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

function withRolesNote(description: string, roles: readonly RoleName[]): string {
  return `${description}\n\nRequires the role ${roles.join(' or ')}; any other user gets 403.`;
}

function withScopeNote(description: string, scope: ApiKeyScope): string {
  return `${description}\n\nRequires an API key holding the \`${scope}\` scope; any other key gets 403 \`insufficient_scope\`.`;
}

/**
 * Appends the "Errors" paragraph: every declared error status with its response description, read
 * from the route's final `responses` (shared errors included), so it cannot drift from them.
 */
function withErrors(description: string, responses: RouteConfig['responses']): string {
  const errors = Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, response]) => `- ${status} — ${(response as { description: string }).description}`);
  return errors.length ? `${description}\n\n**Errors**\n\n${errors.join('\n')}` : description;
}

/** What a whole-input issue names: the body (JSON or form), or the query/path/header input. */
const WHOLE_INPUT: Record<string, string> = { json: 'body', form: 'body' };

function issuesOf(error: z.ZodError, target: string): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join('.') : (WHOLE_INPUT[target] ?? target),
    message: issue.message,
  }));
}

type ValidationResult = { target: string } & ({ success: true } | { success: false; error: z.ZodError });

function badRequestFrom(issues: FieldIssue[]): BadRequest {
  const failure = new BadRequest(`${issues[0].field}: ${issues[0].message}`, issues[0].field);
  Object.assign(failure, { details: issues });
  return failure;
}

/** Body rule violations are 422; malformed query, path or header values are 400. */
export function validationHook(result: ValidationResult): undefined {
  if (result.success) return undefined;
  const issues = issuesOf(result.error, result.target);
  if (result.target === 'json' || result.target === 'form') throw new ValidationFailed(issues);
  throw badRequestFrom(issues);
}

/** For endpoints whose contract says a missing or invalid body field is a 400 (login). */
export function bodyIssuesAreBadRequest(result: ValidationResult): undefined {
  if (result.success) return undefined;
  throw badRequestFrom(issuesOf(result.error, result.target));
}

/**
 * The router every module registers its routes on. A required body declared in several media
 * types (JSON or multipart) is validated by the schema of the media type sent: the library
 * validates every declared type of a required body, so the route is registered with the body
 * optional (each validator then runs only for its own Content-Type; requireMediaType refuses a
 * body with none) and the document still says it is required.
 */
export function createRouter() {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) => {
    const body = route.request?.body;
    if (!body?.required || Object.keys(body.content).length < 2) {
      return (register as (...args: unknown[]) => unknown)(route, ...rest);
    }
    const optional = { ...body, required: false };
    const registered = (register as (...args: unknown[]) => unknown)(
      { ...route, request: { ...route.request, body: optional } },
      ...rest,
    );
    // The document reads the same request object after registration: it says required.
    optional.required = true;
    return registered;
  }) as typeof register;
  return router;
}

/** Path parameter for numeric ids: anything but a positive safe integer is a 400 naming the parameter. */
export function idParam<const N extends string = 'id'>(name: N = 'id' as N) {
  return z.object({
    [name]: z.coerce
      .number({ error: `${name} must be a positive integer` })
      .int(`${name} must be a positive integer`)
      .positive(`${name} must be a positive integer`)
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({
        param: { name, in: 'path' },
        description:
          'Numeric id of the record (a positive integer); a record of another organization, or a deleted one, answers 404',
        example: 1,
        type: 'integer',
        minimum: 1,
      }),
  } as { [K in N]: z.ZodNumber });
}

const successFlag = z.literal(true).openapi({ description: 'Always true on a success' });
const successMessage = z.string().openapi({
  description: 'Human-readable outcome, for display or logs; do not parse it',
  example: 'Lead created',
});

/** The success envelope schema for the OpenAPI document. */
export function envelope<T extends z.ZodType>(data: T, description = 'OK') {
  return {
    description,
    content: {
      'application/json': {
        schema: z.object({ success: successFlag, message: successMessage, data }),
      },
    },
  };
}

/**
 * The list envelope of every answer whose `data` is an array. `whole`: a list answered whole in one
 * page (a top-N ranking, a record's small child list; see `wholeList` in http.ts): the same fields,
 * described as what they hold there.
 */
export function listEnvelope<T extends z.ZodType>(
  item: T,
  description = 'A page of records',
  options: { whole?: boolean; rows?: string; total?: string } = {},
) {
  const whole = options.whole === true;
  return {
    description,
    content: {
      'application/json': {
        schema: z.object({
          success: successFlag,
          message: successMessage,
          data: z.array(item).openapi({
            description:
              options.rows ?? (whole ? 'Every row of the list' : 'The records of this page, in the requested order'),
          }),
          total: z
            .number()
            .int()
            .openapi({
              description:
                options.total ??
                (whole
                  ? 'How many rows the list holds (all of them are in data)'
                  : 'Rows matching the filters: exact, except when total_is_estimate is true'),
            }),
          total_is_estimate: z.boolean().openapi({
            description: whole
              ? 'Always false: the total is counted'
              : "true when a filtered list matches more than 10 000 rows and total is the planner's estimate (never below 10 001); false when total is exact",
          }),
          page: z
            .number()
            .int()
            .openapi({
              description: whole
                ? 'Always 1: the list is answered whole'
                : 'The `page` parameter as applied (1 when omitted); with a `cursor`, the cursor chose the rows',
            }),
          limit: z
            .number()
            .int()
            .openapi({
              description: whole
                ? 'The `limit` applied when the list takes one, else the number of rows'
                : 'The page size applied (the requested limit, capped at 100)',
            }),
          next_cursor: z
            .string()
            .nullable()
            .openapi({
              description: whole
                ? 'Always null: there is no next page'
                : 'Pass as `cursor` for the next page (keyset); null on the last page',
            }),
        }),
      },
    },
  };
}

/** A response that is an HTML page (the public pages: booking, web forms, unsubscribe). */
export function htmlPage(description: string) {
  return { description, content: { 'text/html': { schema: z.string().openapi({ description: 'An HTML page' }) } } };
}

/**
 * A streamed file download: one entry per content type the route can answer with (the stored,
 * sniffed type), and the headers that come with it.
 */
export function binaryDownload(description: string, contentTypes: readonly string[]) {
  const schema = z.string().openapi({ type: 'string', format: 'binary' });
  return {
    description,
    headers: {
      'Content-Disposition': {
        description: 'attachment (or inline for images), with the file name: `attachment; filename="leads.csv"`',
        schema: { type: 'string' as const },
      },
      'Content-Length': { description: 'Size of the file in bytes', schema: { type: 'integer' as const } },
    },
    content: Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
  };
}

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { 'application/json': { schema } } };
}
