/**
 * Requests and job deliveries for the webhook tests with a jobs queue that records what is sent,
 * so no delivery runs behind the test's back (miniflare's own consumer would attempt it).
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import type { JobMessage } from '../../src/jobs/messages';
import { randomIp, type SignedUp } from './api';

/** A jobs queue that records what is sent, so nothing runs behind the test's back. */
export function recordingQueue() {
  const sent: { body: JobMessage; delaySeconds?: number }[] = [];
  const queue = {
    send: async (body: JobMessage, options?: { delaySeconds?: number }) => {
      sent.push({ body, delaySeconds: options?.delaySeconds });
    },
    sendBatch: async (messages: { body: JobMessage }[]) => {
      for (const message of messages) sent.push({ body: message.body });
    },
  } as unknown as Queue<JobMessage>;
  return { queue, sent, bindings: { ...env, JOBS: queue } as typeof env };
}

/** A request through the Worker with a recording jobs queue; effects after the commit awaited. Without `owner`: a public request. */
export async function callRecording(owner: SignedUp | null, method: string, path: string, body?: unknown) {
  const recording = recordingQueue();
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`http://lead.test${path}`, {
      method,
      headers: {
        ...(owner ? { authorization: `Bearer ${owner.token}` } : {}),
        'content-type': 'application/json',
        'cf-connecting-ip': randomIp(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    recording.bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const json = (await response.json()) as { data: Record<string, unknown> };
  return { status: response.status, body: json, sent: recording.sent.map((entry) => entry.body) };
}
