/**
 * Mail in tests: requests whose queue sends (jobs and events) are recorded instead of delivered (so a test
 * delivers them itself, as often as it likes, through the Worker's own queue handler), and the
 * mail accounts a test needs.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { EVENTS_QUEUE } from '../../src/jobs/events-runner';
import type { EventMessage, JobMessage } from '../../src/jobs/messages';
import { call, randomIp, type SignedUp } from './api';

const ip = randomIp();

/** A request through the Worker whose jobs queue only records (nothing is delivered in the background). */
export async function requestRecordingJobs(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: BodyInit; headers?: Record<string, string> } = {},
) {
  const sent: JobMessage[] = [];
  const events: EventMessage[] = [];
  const eventsQueue = { send: async (body: EventMessage) => void events.push(body) } as unknown as Queue<EventMessage>;
  const queue = {
    send: async (body: JobMessage) => void sent.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) =>
      void sent.push(...[...messages].map((message) => message.body)),
  } as unknown as Queue<JobMessage>;
  const headers: Record<string, string> = { 'cf-connecting-ip': ip, ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(new URL(path, 'http://lead.test'), { method, headers, body }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    { ...env, JOBS: queue, EVENTS: eventsQueue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // HTML pages stay text.
  }
  return { status: response.status, headers: response.headers, body: parsed as any, text, sent, events };
}

/** Delivers job messages to the Worker's queue handler as one batch, as the queue would (attempt `attempts`), with the suite's bindings or `bindings`. */
/** A message the delivery sent to the jobs queue (a snooze: the job's own message, with the provider's wait). */
export interface SentJob {
  body: JobMessage;
  delaySeconds?: number;
}

/**
 * Delivers jobs-queue messages to the Worker's queue handler. What the delivery sends to the jobs
 * queue is recorded (`sent`) and passed on to the bindings' queue, except a delayed send to the
 * real one: the runner's snooze of a throttled job, which the test delivers itself (miniflare
 * would deliver it behind the test's back, after the test's mocks are gone).
 */
export async function deliverJobs(messages: JobMessage[], attempts = 1, bindings: typeof env = env) {
  const sent: SentJob[] = [];
  const target = bindings.JOBS;
  const passOn = (options?: QueueSendOptions) => target !== env.JOBS || !options?.delaySeconds;
  const jobs = {
    send: async (body: JobMessage, options?: QueueSendOptions) => {
      sent.push({ body, delaySeconds: options?.delaySeconds });
      if (passOn(options)) await target.send(body, options);
    },
    sendBatch: async (batch: Iterable<MessageSendRequest<JobMessage>>, options?: QueueSendBatchOptions) => {
      const all = [...batch];
      sent.push(
        ...all.map((message) => ({ body: message.body, delaySeconds: message.delaySeconds ?? options?.delaySeconds })),
      );
      await target.sendBatch(all, options);
    },
  } as unknown as Queue<JobMessage>;
  const batch = createMessageBatch<JobMessage>(
    'lead-management-jobs',
    messages.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts, body })),
  );
  // The pool's result does not keep a retry's delay: each message's retry records it here.
  const retryDelays: (number | undefined)[] = [];
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    message.retry = (options) => {
      retryDelays.push(options?.delaySeconds);
      retry(options);
    };
  }
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, { ...bindings, JOBS: jobs });
  return { ...(await getQueueResult(batch, ctx)), retryDelays, sent };
}

/** Delivers events-queue messages (tracking hits, unsubscribes) to the Worker's queue handler. */
export async function deliverEvents(messages: EventMessage[], bindings: typeof env = env) {
  const batch = createMessageBatch<EventMessage>(
    EVENTS_QUEUE,
    messages.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, bindings);
  return getQueueResult(batch, ctx);
}

export async function addLocalAccount(owner: SignedUp, address: string): Promise<number> {
  const response = await call('POST', '/api/mail-configurations/add', {
    token: owner.token,
    body: { mailer: 'local', from_address: address, from_name: 'Rep Local' },
  });
  if (response.status !== 201) throw new Error(`local account: ${response.status} ${response.text}`);
  return response.body.data.id;
}
