/** Concurrent signups with one email: one account, and every other answer is the documented 409 email_taken. */
import { describe, expect, it } from 'vitest';
import { call, randomIp, uniqueEmail } from './helpers/api';

describe('POST /api/auth/signup under concurrency', () => {
  it('creates one account for one email and answers the others 409 email_taken', async () => {
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', '/api/auth/signup', {
          body: { organization_name: `Race ${i}`, first_name: 'Ada', email, password: 'correct horse battery' },
          headers: { 'cf-connecting-ip': randomIp() },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    const refused = responses.filter((response) => response.status !== 201);
    expect(refused.map((response) => [response.status, response.body.error?.code])).toEqual(
      Array(5).fill([409, 'email_taken']),
    );
  });
});
