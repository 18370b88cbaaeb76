import { expect, it } from 'vitest';
import { call, signupOrganization } from './helpers/api';

it('frees each request’s database connection (more requests than the embedded server has connection slots)', async () => {
  const org = await signupOrganization('Leak');
  for (let i = 0; i < 260; i++) {
    const response = await call('GET', '/api/api-keys/list', { token: org.token });
    expect(response.status, `request ${i}`).toBe(200);
  }
}, 300_000);
