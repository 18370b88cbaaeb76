/**
 * The SMTP relay adapter (src/providers/mail/smtp.ts) against a scripted SMTP relay on loopback
 * (test/helpers/fake-smtp-relay.ts, started by the global setup): worker-mailer opens a real TCP
 * connection through cloudflare:sockets, so nothing of ours or of the library is replaced (the
 * Workers runner cannot mock the `cloudflare:sockets` module itself). Asserted: the exact SMTP
 * dialogue (EHLO, AUTH PLAIN, MAIL FROM, one RCPT TO per recipient, DATA, QUIT) and the message
 * built (our Message-ID, threading and List-Unsubscribe headers, both bodies), and the failures
 * (a refused login is an auth failure, a refused recipient a rejection, neither keeping the
 * relay's text).
 */
import { env } from 'cloudflare:workers';
import PostalMime from 'postal-mime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkerMailer } from 'worker-mailer';
import { ProviderFailure } from '../src/providers/failures';
import { RecipientsRefused, SenderRefused } from '../src/providers/mail/bounces';
import type { OutgoingMail } from '../src/providers/mail/interface';
import {
  HANDED_OVER_UNANSWERED,
  handoverProbeSupported,
  smtpRelay,
  type WorkerMailerInternals,
} from '../src/providers/mail/smtp';

const ports = env as unknown as { LM_TEST_SMTP_PORT: string; LM_TEST_SMTP_CONTROL_PORT: string };
const settings = { host: '127.0.0.1', port: Number(ports.LM_TEST_SMTP_PORT), security: 'starttls' as const };

/** What the relay recorded of the session that logged in as `username`. */
async function session(username: string): Promise<{ commands: string[]; data: string[] }> {
  const response = await fetch(`http://127.0.0.1:${ports.LM_TEST_SMTP_CONTROL_PORT}/${encodeURIComponent(username)}`);
  return response.json();
}

function account(label: string) {
  const username = `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  return { username, password: 'app-password-123' };
}

function plain(username: string) {
  return `AUTH PLAIN ${btoa(`\0${username}\0app-password-123`)}`;
}

function mail(overrides: Partial<OutgoingMail> = {}): OutgoingMail {
  return {
    from: { address: 'rep@example.com', name: 'Ada Rep' },
    to: ['grace@example.org'],
    cc: ['alan@example.org'],
    bcc: [],
    subject: 'Our pricing',
    text: 'Hello Grace',
    html: '<p>Hello Grace</p>',
    messageId: '<m1@example.com>',
    inReplyTo: null,
    references: [],
    headers: {
      'List-Unsubscribe': '<https://api.example.com/api/v1/mail/unsubscribe/abc.def>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    providerThreadId: null,
    replyToProviderMessageId: null,
    ...overrides,
  };
}

describe('SMTP relay adapter over cloudflare:sockets', () => {
  it('verifies an account with EHLO and AUTH PLAIN, then QUIT, sending no mail', async () => {
    const credentials = account('verify');
    await expect(smtpRelay(settings, credentials, 'rep@example.com').verify()).resolves.toEqual({
      address: 'rep@example.com',
    });
    const recorded = await session(credentials.username);
    expect(recorded.commands).toEqual(['EHLO 127.0.0.1', plain(credentials.username), 'QUIT']);
    expect(recorded.data).toEqual([]);
  });

  it('sends one message: MAIL FROM, a RCPT TO per recipient, DATA with our headers and both bodies', async () => {
    const credentials = account('send');
    const sent = await smtpRelay(settings, credentials, 'rep@example.com').send(
      mail({ inReplyTo: '<earlier@example.org>', references: ['<first@example.org>', '<earlier@example.org>'] }),
    );
    expect(sent).toEqual({ providerMessageId: '<m1@example.com>', providerThreadId: null });
    const recorded = await session(credentials.username);
    expect(recorded.commands).toEqual([
      'EHLO 127.0.0.1',
      plain(credentials.username),
      'MAIL FROM: <rep@example.com>',
      'RCPT TO: <grace@example.org>',
      'RCPT TO: <alan@example.org>',
      'DATA',
      'QUIT',
    ]);
    expect(recorded.data).toHaveLength(1);
    const [head, ...rest] = recorded.data[0].split('\r\n\r\n');
    const headers = head.split('\r\n');
    expect(headers).toEqual(
      expect.arrayContaining([
        'MIME-Version: 1.0',
        'From: "Ada Rep" <rep@example.com>',
        'To: grace@example.org',
        'CC: alan@example.org',
        'Subject: Our pricing',
        'Message-ID: <m1@example.com>',
        'In-Reply-To: <earlier@example.org>',
        'References: <first@example.org> <earlier@example.org>',
        'List-Unsubscribe: <https://api.example.com/api/v1/mail/unsubscribe/abc.def>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      ]),
    );
    expect(headers.some((header) => /^bcc:/i.test(header))).toBe(false);
    const body = rest.join('\r\n\r\n');
    expect(body).toContain('Content-Type: text/plain; charset="UTF-8"');
    expect(body).toContain('Hello Grace');
    expect(body).toContain('Content-Type: text/html; charset="UTF-8"');
    expect(body).toContain('<p>Hello Grace</p>');
  });

  it('a line break in the subject or the sender’s name adds no header; quotes and non-ASCII are encoded (RFC 2047)', async () => {
    const credentials = account('headers');
    await smtpRelay(settings, credentials, 'rep@example.com').send(
      mail({
        from: { address: 'rep@example.com', name: 'Ada "The Rep"\r\nReply-To: spy@example.net' },
        subject: 'Our pricing\r\nBcc: spy@example.net\r\n\r\n<b>forged body</b>',
      }),
    );
    const [data] = (await session(credentials.username)).data;
    const head = data.split('\r\n\r\n')[0];
    expect(head).not.toMatch(/^(bcc|reply-to):/im);
    const parsed = await PostalMime.parse(data);
    expect(parsed.subject).toBe('Our pricing Bcc: spy@example.net <b>forged body</b>');
    expect(parsed.from).toEqual({ address: 'rep@example.com', name: 'Ada "The Rep" Reply-To: spy@example.net' });
    expect(parsed.replyTo).toBeUndefined();
    expect(parsed.html).toContain('<p>Hello Grace</p>');

    const accented = account('accented');
    const subject = `Ihr Angebot für Müller & Söhne – ${'Grüße '.repeat(40)}`.slice(0, 254).trim();
    await smtpRelay(settings, accented, 'rep@example.com').send(
      mail({ from: { address: 'rep@example.com', name: 'José “Pepe” Núñez' }, subject }),
    );
    const [raw] = (await session(accented.username)).data;
    for (const line of raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
    const decoded = await PostalMime.parse(raw);
    expect(decoded.subject).toBe(subject);
    expect(decoded.from).toEqual({ address: 'rep@example.com', name: 'José “Pepe” Núñez' });
  });

  it('a refused login is an auth failure, a refused recipient a rejection, neither keeping the relay’s text', async () => {
    const refusedLogin = account('refused');
    const login = await smtpRelay(settings, refusedLogin, 'rep@example.com')
      .verify()
      .catch((error: unknown) => error);
    expect(login).toBeInstanceOf(ProviderFailure);
    expect(login).toMatchObject({ kind: 'auth', status: 535 });
    expect((login as ProviderFailure).reason).not.toContain('credentials invalid');

    const credentials = account('rcpt');
    const refused = await smtpRelay(settings, credentials, 'rep@example.com')
      .send(mail({ to: ['unknown@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderFailure);
    expect(refused).toMatchObject({ kind: 'rejected', status: 550 });
    expect((refused as ProviderFailure).reason).not.toContain('No such user');
    expect((await session(credentials.username)).data).toEqual([]);
  });

  it('a refused recipient whose address holds “auth” or digits is a rejection of the message, not of the login', async () => {
    // The relay's answer echoes the address (`Invalid RCPT TO: <unknown-author@…> 550 …`): taking
    // "auth" in it for a refused login marked the whole account needs_reconnect, and digits in it
    // for the reply code made a permanent refusal a temporary one, retried for hours.
    for (const address of ['unknown-author@example.org', 'unknown.451@example.org', 'unknown@oauth.example.org']) {
      const credentials = account('rcpt-auth');
      const refused = await smtpRelay(settings, credentials, 'rep@example.com')
        .send(mail({ to: [address], cc: [] }))
        .catch((error: unknown) => error);
      expect(refused, address).toBeInstanceOf(ProviderFailure);
      expect(refused, address).toMatchObject({ kind: 'rejected', status: 550 });
    }
  });

  it('Exchange Online’s 550 5.1.10 at RCPT TO is a hard bounce; a bare 550 naming spam is a policy refusal, not one', async () => {
    const notFound = await smtpRelay(settings, account('notfound'), 'rep@example.com')
      .send(mail({ to: ['notfound-1@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(RecipientsRefused);
    expect(notFound).toMatchObject({ addresses: ['notfound-1@example.org'], enhancedStatus: '5.1.10' });
    const spam = await smtpRelay(settings, account('spamword'), 'rep@example.com')
      .send(mail({ to: ['spamword-1@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(spam).toBeInstanceOf(ProviderFailure);
    expect(spam).not.toBeInstanceOf(RecipientsRefused);
    expect(spam).toMatchObject({ kind: 'rejected', status: 550 });
  });
});

describe('SMTP relay adapter: the relay refusing the sender', () => {
  it('a refusal at MAIL FROM, Postfix’s “Sender address rejected” at RCPT TO and Exchange’s 5.7.60 after the message are SenderRefused, not a recipient’s bounce', async () => {
    const cases = [
      { label: 'fromdenied', status: 550, code: '5.1.0' },
      { label: 'notowner', status: 553, code: '5.7.1' },
      { label: 'sendas', status: 550, code: '5.7.60' },
    ];
    for (const { label, status, code } of cases) {
      const credentials = account(label);
      const refused = await smtpRelay(settings, credentials, 'rep@example.com')
        .send(mail({ to: ['grace@example.org'], cc: [] }))
        .catch((error: unknown) => error);
      expect(refused, label).toBeInstanceOf(SenderRefused);
      expect(refused, label).not.toBeInstanceOf(RecipientsRefused);
      expect(refused, label).toMatchObject({ kind: 'rejected', status, code, address: 'rep@example.com' });
      // Our words only: never the relay's text (it may echo what we sent, or the login).
      const reason = (refused as SenderRefused).reason;
      expect(reason).toContain('smtp refused to send as rep@example.com');
      expect(reason).not.toMatch(/Sender denied|not owned|Client does not/);
      expect(reason).not.toContain(credentials.username);
    }
  });
});

describe('SMTP relay adapter: timeouts and worker-mailer’s internals', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const quick = { responseTimeoutMs: 400 };

  it('the installed worker-mailer still has the internals the adapter patches (body, start calling it, readTimeout, reader, socket)', async () => {
    // If this fails, worker-mailer changed: smtp.ts then treats every unanswered failure as handed
    // over (no retry) and cannot end a session the relay hangs up on; update the adapter.
    const prototype = WorkerMailer.prototype as unknown as WorkerMailerInternals;
    expect(typeof prototype.body).toBe('function');
    expect(String(prototype.start)).toMatch(/\bthis\.body\(\)/);
    expect(handoverProbeSupported(prototype)).toBe(true);
    expect(typeof prototype.readTimeout).toBe('function');
    const credentials = account('internals');
    const live = await WorkerMailer.connect({
      host: settings.host,
      port: settings.port,
      startTls: true,
      credentials,
      authType: 'plain',
    });
    const internals = live as unknown as WorkerMailerInternals;
    expect(typeof internals.reader?.read).toBe('function');
    expect(typeof internals.socket?.close).toBe('function');
    await live.close();
  });

  it('a relay that does not answer RCPT TO fails within the response timeout, to be retried (nothing was handed over)', async () => {
    // worker-mailer ignores responseTimeoutMs: before, the wait was its socket timeout (15 s).
    const started = Date.now();
    const outcome = await smtpRelay(settings, account('stall'), 'rep@example.com', quick)
      .send(mail({ to: ['stall-1@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toBeInstanceOf(ProviderFailure);
    expect(outcome).toMatchObject({ kind: 'unavailable' });
  });

  it('a relay that never answers DATA had nothing handed over: retried, not “may have been sent”', async () => {
    const credentials = account('nodata');
    const outcome = await smtpRelay(settings, credentials, 'rep@example.com', quick)
      .send(mail({ to: ['nodata-1@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(outcome).toMatchObject({ kind: 'unavailable' });
    expect((await session(credentials.username)).data).toEqual([]);
  });

  it('a relay that hangs up after taking the message: “may have been sent”, never retried, and the send ends', async () => {
    // worker-mailer's read() loops forever on a closed stream; before, the send never ended.
    const credentials = account('taken');
    const started = Date.now();
    const outcome = await smtpRelay(settings, credentials, 'rep@example.com', quick)
      .send(mail({ to: ['hangup-1@example.org'], cc: [] }))
      .catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ kind: 'rejected', reason: HANDED_OVER_UNANSWERED });
    expect((await session(credentials.username)).data).toHaveLength(1);
  });

  it('a relay that hangs up during the login: the check fails as unavailable, and ends', async () => {
    // Before, worker-mailer's read() spun on the closed stream and the check never ended.
    const started = Date.now();
    const outcome = await smtpRelay(settings, account('hangup'), 'rep@example.com', quick)
      .verify()
      .catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toBeInstanceOf(ProviderFailure);
    expect(outcome).toMatchObject({ kind: 'unavailable' });
  });

  it('without the hand-over probe (worker-mailer’s start no longer calls body()) nothing unanswered after DATA is retried', async () => {
    const original = WorkerMailer.prototype as unknown as Required<WorkerMailerInternals>;
    const start = original.start;
    vi.spyOn(original, 'start').mockImplementation(function (this: unknown) {
      return start.call(this);
    });
    expect(handoverProbeSupported(original)).toBe(false);
    const relay = (label: string) => smtpRelay(settings, account(label), 'rep@example.com', quick);
    // The message written and never answered, or DATA never answered: either may have reached the relay.
    for (const label of ['silent', 'nodata']) {
      const outcome = await relay(label)
        .send(mail({ to: [`${label}-1@example.org`], cc: [] }))
        .catch((error: unknown) => error);
      expect(outcome, label).toMatchObject({ kind: 'rejected', reason: HANDED_OVER_UNANSWERED });
    }
    // The relay's own answer before DATA (451 at RCPT TO) still says nothing was handed over.
    const greylisted = await relay('greylisted')
      .send(mail({ to: [`greylisted-${crypto.randomUUID().slice(0, 8)}@example.org`], cc: [] }))
      .catch((error: unknown) => error);
    expect(greylisted).toMatchObject({ kind: 'unavailable', status: 451 });
  });
});
