/**
 * The local stack itself: the WebSocket relay and the embedded database behave as Neon and a
 * real server do, so connections are freed and queue batches end.
 */
import { expect, it } from 'vitest';
import { call, signupOrganization } from './helpers/api';

it('frees each request’s database connection (more requests than the embedded server has connection slots)', async () => {
  const org = await signupOrganization('Leak');
  for (let i = 0; i < 260; i++) {
    const response = await call('GET', '/api/api-keys/list', { token: org.token });
    expect(response.status, `request ${i}`).toBe(200);
  }
}, 300_000);

it('lets the queue consumer finish each batch, so jobs enqueued one after another all run', async () => {
  // No test-driven delivery here: only the queue consumer that wrangler.toml configures. A batch
  // whose database WebSockets stay open never ends, and the queue then delivers nothing more.
  const org = await signupOrganization('Queue');
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await call('POST', '/api/exports/create', { token: org.token, body: { export_type: 'companies' } });
    expect(created.status, created.text).toBe(202);
    ids.push(created.body.data.id);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = await call('GET', '/api/exports/list', { token: org.token, query: { limit: 100 } });
      const job = listed.body.data.find((candidate: { id: number }) => candidate.id === ids[i]);
      if (job.status === 'completed') break;
      expect(Date.now(), `export ${i + 1} of 3 still ${job.status}`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}, 120_000);
