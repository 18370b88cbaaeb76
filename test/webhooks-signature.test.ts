/**
 * Standard Webhooks signing and the SSRF rules for targets: the specification's own example
 * (the reference library's test vector), a receiver verifying with the `standardwebhooks`
 * package, and the addresses a webhook may not be sent to.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook } from '../src/providers/webhooks/signature';
import { targetProblem } from '../src/providers/webhooks/target';

describe('webhook signatures', () => {
  it('match the specification’s example vector', async () => {
    // standard-webhooks/standard-webhooks libraries/javascript/src/webhook.test.ts, "sign function works".
    const headers = await signWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('verify with the standardwebhooks library, and fail for another secret or a changed body', async () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ type: 'lead.created', timestamp: new Date().toISOString(), data: { lead_id: 1 } });
    const headers = await signWebhook(secret, 'msg_abc', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
  });
});

describe('webhook targets', () => {
  const strict = { local: false, allowedPorts: [] };

  it('take a public https URL on the standard port', () => {
    expect(targetProblem('https://hooks.example.com/in', strict)).toBeNull();
    expect(targetProblem('https://hooks.example.com:443/in', strict)).toBeNull();
    expect(targetProblem('https://93.184.216.34/in', strict)).toBeNull();
    expect(targetProblem('https://[2606:4700:4700::1111]/in', strict)).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/in', 'must be an https URL'],
    ['ftp://hooks.example.com/in', 'must be an https URL'],
    ['https://localhost/in', 'must not point at localhost'],
    ['https://api.localhost/in', 'must not point at localhost'],
    ['https://127.0.0.1/in', 'must not point at a loopback address'],
    ['https://10.1.2.3/in', 'must not point at a private address'],
    ['https://192.168.0.10/in', 'must not point at a private address'],
    ['https://172.16.5.4/in', 'must not point at a private address'],
    ['https://169.254.169.254/latest/meta-data', 'must not point at a linkLocal address'],
    ['https://100.64.0.1/in', 'must not point at a carrierGradeNat address'],
    ['https://[::1]/in', 'must not point at a loopback address'],
    ['https://[fd00::1]/in', 'must not point at a uniqueLocal address'],
    ['https://[::ffff:10.0.0.1]/in', 'must not point at a private address'],
    ['https://0.0.0.0/in', 'must not point at a unspecified address'],
    ['https://[::127.0.0.1]/in', 'must not point at a reserved address'],
    ['https://[::a9fe:a9fe]/in', 'must not point at a reserved address'],
    ['https://hooks.example.com:8443/in', 'must use the standard port (443) unless the server allows another'],
    ['https://user:pw@hooks.example.com/in', 'must not carry a user name or password'],
    ['https://intranet/in', 'must have a public host name'],
    ['not a url', 'must be an absolute URL'],
  ])('refuse %s', (url, problem) => {
    expect(targetProblem(url, strict)).toBe(problem);
  });

  it('allow a configured port, and http and loopback in local development', () => {
    expect(targetProblem('https://hooks.example.com:8443/in', { local: false, allowedPorts: [8443] })).toBeNull();
    expect(targetProblem('http://127.0.0.1:9000/in', { local: true, allowedPorts: [] })).toBeNull();
    expect(targetProblem('http://localhost:9000/in', { local: true, allowedPorts: [] })).toBeNull();
    expect(targetProblem('ftp://localhost/in', { local: true, allowedPorts: [] })).toBe('must be an http or https URL');
  });
});
