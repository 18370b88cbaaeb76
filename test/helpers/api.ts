/**
 * A small client for tests: requests go to the Worker's own fetch handler inside workerd, the
 * same code path production requests take.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import worker from '../../src/index';
import type { JobMessage } from '../../src/jobs/messages';
import { assertMatchesContract } from './contract';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
  /** Sent as-is (for malformed bodies); overrides `body`. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  /**
   * The jobs the request sends are recorded here and never reach the queue: for a test that
   * delivers them itself. The queue consumer that wrangler.toml configures would otherwise run
   * them a moment later, behind the test's back, racing its own deliveries and fetch mocks (a
   * job the test means to leave pending, as after a lost answer, would be run again by it).
   */
  heldJobs?: JobMessage[];
}

/** Each test file gets its own client IP so rate limits never couple files together. */
export function randomIp(): string {
  return `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;
}
const fileIp = randomIp();

/**
 * The Worker's fetch handler, with every response checked against the OpenAPI document: its
 * status declared for the operation, its content type for that status, a JSON body valid
 * against the declared schema. Tests that need the raw Response use this rather than the
 * Worker's fetch directly, so no response escapes the contract.
 */
export async function fetchWorker(request: Request, heldJobs?: JobMessage[]): Promise<Response> {
  const response = heldJobs ? await fetchHoldingJobs(request, heldJobs) : await exports.default.fetch(request);
  const bytes = new Uint8Array(await response.clone().arrayBuffer());
  // Only JSON and text are decoded: files are checked by status, content type and presence.
  const textual = /json|^text\//.test(response.headers.get('content-type') ?? '');
  assertMatchesContract(
    request.method.toUpperCase(),
    new URL(request.url).pathname,
    response.status,
    response.headers,
    textual ? new TextDecoder().decode(bytes) : '',
    bytes.length,
  );
  return response;
}

/** The Worker's fetch handler with a jobs queue that records into `held` (CallOptions.heldJobs), its after-response work awaited. */
async function fetchHoldingJobs(request: Request, held: JobMessage[]): Promise<Response> {
  const queue = {
    send: async (body: JobMessage) => void held.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) =>
      void held.push(...[...messages].map((message) => message.body)),
  } as unknown as Queue<JobMessage>;
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    request as Request<unknown, IncomingRequestCfProperties>,
    { ...env, JOBS: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(path, 'http://lead.test');
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { 'cf-connecting-ip': fileIp, ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  let body: BodyInit | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetchWorker(new Request(url, { method, headers, body }), options.heldJobs);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // non-JSON bodies (pixels, pages) stay as text
  }
  return { status: response.status, body: parsed as T, headers: response.headers, text };
}

export function uniqueEmail(label = 'user'): string {
  return `${label}-${crypto.randomUUID().slice(0, 12)}@example.com`;
}

export interface SignedUp {
  token: string;
  email: string;
  password: string;
  userId: number;
  orgId: number;
}

export async function signupOrganization(name = 'Acme'): Promise<SignedUp> {
  const email = uniqueEmail('admin');
  const password = 'correct horse battery';
  const response = await call('POST', '/api/auth/signup', {
    body: {
      organization_name: `${name} ${crypto.randomUUID().slice(0, 6)}`,
      first_name: 'Ada',
      last_name: 'Admin',
      email,
      password,
    },
    // Signups count against the per-IP auth limit; each comes from its own address so test
    // files can create as many organizations as they need.
    headers: { 'cf-connecting-ip': randomIp() },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return {
    token: response.body.access_token,
    email,
    password,
    userId: response.body.user.id,
    orgId: Number(response.body.user.organization_id),
  };
}

export function expectFailure(response: ApiResponse, status: number, type: string): void {
  if (response.status !== status || response.body?.success !== false || response.body?.error?.type !== type) {
    throw new Error(`expected ${status} ${type}, got ${response.status} ${response.text.slice(0, 500)}`);
  }
}

export interface MemberOptions {
  /** A role's name (`manager`, `sales_rep`, …) or id; omitted, user/add's default (sales_rep). */
  role?: string | number;
  email?: string;
  first_name?: string;
  last_name?: string;
  phone_no?: string;
  password?: string;
}

export interface Member {
  token: string;
  userId: number;
  email: string;
}

/**
 * A user added to the owner's organization (POST /api/user/add, with the role if one is named)
 * and signed in from an address of their own, so the login never counts against another's
 * rate limit; answers their token, id and email.
 */
export async function addMember(owner: Pick<SignedUp, 'token'>, options: MemberOptions = {}): Promise<Member> {
  const { role, password = 'password123', ...profile } = options;
  let roleId = typeof role === 'number' ? role : undefined;
  if (typeof role === 'string') {
    const roles = await call('GET', '/api/role/list', { token: owner.token, query: { limit: 100 } });
    roleId = roles.body.data?.find((row: { name: string }) => row.name === role)?.id;
    if (roleId === undefined) throw new Error(`no role ${role}: ${roles.status} ${roles.text}`);
  }
  const email = profile.email ?? uniqueEmail(typeof role === 'string' ? role.replace(/_/g, '-') : 'member');
  const added = await call('POST', '/api/user/add', {
    token: owner.token,
    body: {
      first_name: 'Member',
      phone_no: '+15550100',
      ...profile,
      email,
      password,
      ...(roleId === undefined ? {} : { role_id: roleId }),
    },
  });
  if (added.status !== 201) throw new Error(`user add: ${added.status} ${added.text}`);
  const login = await call('POST', '/api/auth/login', {
    body: { email, password },
    headers: { 'cf-connecting-ip': randomIp() },
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
  return { token: login.body.access_token, userId: added.body.data.id, email };
}

/** A user of the organization holding the named role, signed in; answers the token. */
export async function memberToken(owner: Pick<SignedUp, 'token'>, roleName: string): Promise<string> {
  return (await addMember(owner, { role: roleName })).token;
}
