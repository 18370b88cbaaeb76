/**
 * Mail end to end with the local mailbox: an account is connected, a message is recorded (202
 * queued) and delivered by the queue once however often the job message is redelivered, it shows
 * in the sent folder with its tracking pixel and click links (an open becomes email_opened on the
 * lead), a reply dropped into its thread records one reply_received, a reply goes out threaded,
 * the one-click unsubscribe suppresses the address for every later send (read again when the job
 * sends), a hard bounce (an SMTP relay's refusal, a delivery report in the inbox) suppresses it
 * too, and target-account bulk email sends through the account.
 */
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { intentSignals, mailMessages, mailSendJobs, mailSuppressions } from '../src/db/schema';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { MAX_LEASE_RESENDS, sweepExpiredLeases } from '../src/jobs/lease-sweep';
import { REASONS as MAIL_SEND_REASONS } from '../src/modules/mail/send-job';
import { BOUNCED_REASON_PREFIX } from '../src/modules/mail/bounces';
import { signUnsubscribeToken } from '../src/modules/mail/unsubscribe-token';
import { signWithTrackingKey, trackingSecrets, verifyTrackingToken } from '../src/modules/tracking/token';
import { HANDED_OVER_UNANSWERED } from '../src/providers/mail/smtp';
import worker from '../src/index';
import { EVENTS_QUEUE } from '../src/jobs/events-runner';
import type { JobMessage } from '../src/jobs/messages';
import type { TrackingHit } from '../src/modules/tracking/hits';
import { addMember, call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { createCompany, createContact } from './helpers/accounts';
import { inOrganization } from './helpers/leads';
import { addLocalAccount, deliverEvents, deliverJobs, requestRecordingJobs } from './helpers/mail';

let owner: SignedUp;
let configId: number;
let leadId: number;
let leadEmail: string;
const repAddress = uniqueEmail('rep');

async function signals(type: string) {
  return inOrganization(owner.orgId, (tx) =>
    tx
      .select()
      .from(intentSignals)
      .where(and(eq(intentSignals.leadId, leadId), eq(intentSignals.signalType, type))),
  );
}

async function messageRow(id: number) {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx.select().from(mailMessages).where(eq(mailMessages.id, id)),
  );
  return row;
}

async function send(body: Record<string, unknown>) {
  return requestRecordingJobs('POST', '/api/inbox/send', {
    token: owner.token,
    body: { config_id: configId, ...body },
  });
}

beforeAll(async () => {
  owner = await signupOrganization('Mail');
  leadEmail = uniqueEmail('grace');
  const lead = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: { first_name: 'Grace', last_name: 'Hopper', email: leadEmail },
  });
  expect(lead.status, lead.text).toBe(201);
  leadId = lead.body.data.id;
  configId = await addLocalAccount(owner, repAddress);
});

describe('mail configurations', () => {
  it('lists the local account, active, with no secret; filters by mailer and state', async () => {
    const listed = await call('GET', '/api/mail-configurations/list', { token: owner.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: configId,
        mailer: 'local',
        provider: 'local',
        from_address: repAddress,
        state: 'active',
        state_id: 1,
        has_refresh_token: false,
      }),
    ]);
    const none = await call('GET', '/api/mail-configurations/list', {
      token: owner.token,
      query: { mailer: 'gmail', state_id: 1 },
    });
    expect(none.body.data).toEqual([]);
    expectFailure(
      await call('GET', '/api/mail-configurations/list', { token: owner.token, query: { state_id: 4 } }),
      400,
      'bad_request',
    );
  });

  it('refuses a real mailer without its credential, naming the field', async () => {
    const refused = await call('POST', '/api/mail-configurations/add', {
      token: owner.token,
      body: { mailer: 'smtp', from_address: uniqueEmail('smtp'), from_name: 'Relay', password: 'pw' },
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      'smtp_host',
      'smtp_port',
    ]);
    const gmail = await call('POST', '/api/mail-configurations/add', {
      token: owner.token,
      body: { mailer: 'gmail', from_address: uniqueEmail('g'), from_name: 'G' },
    });
    expectFailure(gmail, 422, 'validation_error');
    expect(gmail.body.error.code).toBe('password');
  });

  describe('an SMTP account on the scripted relay', () => {
    const ports = env as unknown as { LM_TEST_SMTP_PORT: string; LM_TEST_SMTP_CONTROL_PORT: string };
    /** What the relay recorded of the latest session that logged in as `username` (null: none). */
    const session = async (username: string): Promise<{ commands: string[]; data: string[]; logins: number } | null> =>
      (await fetch(`http://127.0.0.1:${ports.LM_TEST_SMTP_CONTROL_PORT}/${encodeURIComponent(username)}`)).json();
    const login = (username: string, password: string) => `AUTH PLAIN ${btoa(`\0${username}\0${password}`)}`;
    async function addSmtp(smtpUsername: string, token = owner.token) {
      const from = uniqueEmail('relay');
      const added = await call('POST', '/api/mail-configurations/add', {
        token,
        body: {
          mailer: 'smtp',
          from_address: from,
          from_name: 'Relay',
          password: 'old-pass',
          smtp_host: '127.0.0.1',
          smtp_port: Number(ports.LM_TEST_SMTP_PORT),
          smtp_username: smtpUsername,
        },
      });
      expect(added.status, added.text).toBe(201);
      return { id: added.body.data.id as number, from };
    }

    it('a new password alone keeps the account’s login, for the check and for later sends', async () => {
      const username = `relayuser-${crypto.randomUUID().slice(0, 8)}`;
      const { id, from } = await addSmtp(username);
      const updated = await call('POST', `/api/mail-configurations/update/${id}`, {
        token: owner.token,
        body: { password: 'new-pass' },
      });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.text).not.toContain(username);
      expect((await session(username))?.commands).toContain(login(username, 'new-pass'));
      expect(await session(from)).toBeNull();
      const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: { config_id: id, to: 'grace@example.org', subject: 'Hello', body: 'Hello Grace' },
      });
      expect(queued.status, queued.text).toBe(202);
      await deliverJobs(queued.sent);
      const sent = await session(username);
      expect(sent?.commands).toContain(login(username, 'new-pass'));
      expect(sent?.data).toHaveLength(1);
      expect(await session(from)).toBeNull();
    });

    it('a delivery that died after claiming a message is not resent: an SMTP relay cannot be asked whether it went', async () => {
      const username = `relayuser-${crypto.randomUUID().slice(0, 8)}`;
      const { id } = await addSmtp(username);
      const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: { config_id: id, to: 'grace@example.org', subject: 'Interrupted', body: 'Hello Grace' },
      });
      expect(queued.status, queued.text).toBe(202);
      await inOrganization(owner.orgId, (tx) =>
        tx
          .update(mailMessages)
          .set({ status: 'sending', attempts: 1, updatedAt: sql`now() - interval '10 minutes'` })
          .where(eq(mailMessages.id, queued.body.data.id)),
      );
      await deliverJobs(queued.sent, 2);
      expect(await messageRow(queued.body.data.id)).toMatchObject({
        status: 'failed',
        failureReason: MAIL_SEND_REASONS.interrupted,
        sentAt: null,
      });
      expect((await session(username))?.data).toHaveLength(0);
    });

    it('a recipient the relay refuses for good (550 5.1.1) goes on the suppression list; a policy refusal (5.7.1) does not', async () => {
      // An organization of its own: the list of the suite's organization is asserted whole elsewhere.
      const relayOrg = await signupOrganization('Relay bounces');
      const username = `relayuser-${crypto.randomUUID().slice(0, 8)}`;
      const { id } = await addSmtp(username, relayOrg.token);
      const unknown = `unknown-${crypto.randomUUID().slice(0, 8)}@example.org`;
      const blocked = `blocked-${crypto.randomUUID().slice(0, 8)}@example.org`;
      const ids: number[] = [];
      for (const to of [unknown, blocked]) {
        const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
          token: relayOrg.token,
          body: { config_id: id, to, subject: 'Hello', body: 'Hello' },
        });
        expect(queued.status, queued.text).toBe(202);
        await deliverJobs(queued.sent);
        ids.push(queued.body.data.id);
      }
      const [hard, policy] = await inOrganization(relayOrg.orgId, (tx) =>
        tx
          .select()
          .from(mailMessages)
          .where(sql`${mailMessages.id} in (${ids[0]}, ${ids[1]})`)
          .orderBy(mailMessages.id),
      );
      expect(hard).toMatchObject({ status: 'failed', sentAt: null });
      expect(hard.failureReason).toContain(unknown);
      expect(hard.failureReason).toContain('suppression list');
      expect(policy).toMatchObject({ status: 'failed', sentAt: null });
      expect(policy.failureReason).not.toContain('suppression list');
      const listed = await inOrganization(relayOrg.orgId, (tx) => tx.select().from(mailSuppressions));
      expect(listed).toEqual([expect.objectContaining({ address: unknown, reason: 'bounced' })]);
      const again = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: relayOrg.token,
        body: { config_id: id, to: unknown, subject: 'Again', body: 'Hello' },
      });
      expectFailure(again, 422, 'validation_error');
      expect(again.body.error.code).toBe('to');
    });

    it('a failure before the relay took the message is retried with the same Message-ID; one after, unanswered, is never resent', async () => {
      const username = `relayuser-${crypto.randomUUID().slice(0, 8)}`;
      const { id } = await addSmtp(username);
      // Greylisted at RCPT TO (451): nothing was handed over, so the queue's retry sends it, once.
      const greylisted = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: {
          config_id: id,
          to: `greylisted-${crypto.randomUUID().slice(0, 8)}@example.org`,
          subject: 'Hi',
          body: 'Hi',
        },
      });
      expect(greylisted.status, greylisted.text).toBe(202);
      await deliverJobs(greylisted.sent);
      expect(await messageRow(greylisted.body.data.id)).toMatchObject({ status: 'queued', attempts: 1 });
      expect((await session(username))?.data).toEqual([]);
      await deliverJobs(greylisted.sent, 2);
      expect(await messageRow(greylisted.body.data.id)).toMatchObject({ status: 'sent', attempts: 2 });
      const [data] = (await session(username))?.data ?? [];
      expect(data).toContain(`Message-ID: ${greylisted.body.data.message_id}`);

      // Handed over (DATA accepted, the message written) and never answered: it may have gone out.
      const silent = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: { config_id: id, to: `silent-${crypto.randomUUID().slice(0, 8)}@example.org`, subject: 'Hi', body: 'Hi' },
      });
      expect(silent.status, silent.text).toBe(202);
      const before = (await session(username))?.logins ?? 0;
      await deliverJobs(silent.sent);
      await deliverJobs(silent.sent, 2);
      expect(await messageRow(silent.body.data.id)).toMatchObject({
        status: 'failed',
        failureReason: HANDED_OVER_UNANSWERED,
        sentAt: null,
      });
      const after = await session(username);
      expect(after?.logins).toBe(before + 1);
      expect(after?.data).toHaveLength(1);
    }, 60_000);

    it('a new smtp_username without a password is refused naming password, like smtp_host, and changes nothing', async () => {
      const username = `relayuser-${crypto.randomUUID().slice(0, 8)}`;
      const { id } = await addSmtp(username);
      for (const body of [{ smtp_username: 'relay-login' }, { smtp_host: '127.0.0.2' }]) {
        const refused = await call('POST', `/api/mail-configurations/update/${id}`, { token: owner.token, body });
        expectFailure(refused, 422, 'validation_error');
        expect(refused.body.error.code).toBe('password');
      }
      expect(await session('relay-login')).toBeNull();
      const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: { config_id: id, to: 'grace@example.org', subject: 'Hello', body: 'Hello Grace' },
      });
      await deliverJobs(queued.sent);
      expect((await session(username))?.data).toHaveLength(1);
    });
  });
});

describe('sending from a local account', () => {
  let sentId: number;
  let sentMessageId: string;

  it('refuses an inbox date range that ends before it starts, naming start_date, as every list does', async () => {
    const refused = await call('GET', '/api/inbox/list', {
      token: owner.token,
      query: { config_id: configId, start_date: '2026-02-01', end_date: '2026-01-01' },
    });
    expectFailure(refused, 400, 'bad_request');
    expect(refused.body.error.code).toBe('start_date');
  });

  it('ties a message to the lead its address belongs to, not to a duplicate let in beside it', async () => {
    const address = uniqueEmail('holder');
    const original = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Ada', last_name: 'Lovelace', email: address },
    });
    expect(original.status, original.text).toBe(201);
    // A duplicate let in on purpose (POST /api/v1/lead with duplicate: 1), its address in capitals.
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`insert into leads (organization_id, first_name, last_name, email, status, priority, lead_source, duplicate_of)
        select organization_id, first_name, 'Again', upper(email), status, priority, lead_source, id from leads
        where id = ${original.body.data.id}`),
    );
    const response = await send({ to: address, subject: 'Hello', body: 'Hello Ada' });
    expect(response.status, response.text).toBe(202);
    expect(response.body.data.lead_id).toBe(original.body.data.id);
  });

  it('answers 202 queued, records the message on the lead, and the queue sends it once under redelivery', async () => {
    const response = await send({
      to: leadEmail,
      subject: 'Our pricing',
      body: 'Hello Grace,\nsee https://example.com/pricing?plan=team for the plans.',
    });
    expect(response.status, response.text).toBe(202);
    expect(response.body.data).toMatchObject({
      status: 'queued',
      kind: 'one_to_one',
      config_id: configId,
      to: [leadEmail],
      lead_id: leadId,
      suppressed: [],
    });
    sentId = response.body.data.id;
    sentMessageId = response.body.data.message_id;
    expect(response.sent).toEqual([{ kind: 'mail-send', orgId: owner.orgId, jobId: expect.any(Number) }]);

    // Delivered twice (a redelivery), and once more concurrently: one send, one attempt.
    await Promise.all([deliverJobs(response.sent), deliverJobs(response.sent)]);
    await deliverJobs(response.sent, 2);
    const row = await messageRow(sentId);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, failureReason: null });
    expect(row.sentAt).not.toBeNull();
  });

  it('shows in the local sent folder as sent; it went out with the pixel, click links and List-Unsubscribe', async () => {
    const listed = await call('GET', '/api/inbox/list', {
      token: owner.token,
      query: { config_id: configId, folder: 'sent' },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data[0]).toMatchObject({
      id: String(sentId),
      provider: 'local',
      status: 'sent',
      subject: 'Our pricing',
      message_id: sentMessageId,
    });
    const viewed = await call('GET', `/api/inbox/view/${sentId}`, {
      token: owner.token,
      query: { config_id: configId },
    });
    expect(viewed.status, viewed.text).toBe(200);
    const row = await messageRow(sentId);
    const html = row.bodyHtml as string;
    expect(html).toMatch(/href="http:\/\/lead\.test\/api\/v1\/track\/click\/[\w-]+\.[\w-]+"/);
    expect(html).not.toContain('href="https://example.com/pricing');
    expect(html).toMatch(/<img src="http:\/\/lead\.test\/api\/v1\/track\/open\/[\w-]+\.[\w-]+"/);
    // The sender reading it through the inbox loads no pixel and follows no click link: neither
    // would be the lead's open or click.
    const shown = viewed.body.data.body_html as string;
    expect(shown).not.toContain('/api/v1/track/');
    expect(shown).toContain('href="https://example.com/pricing?plan=team"');
    expect(shown).toContain('/api/v1/mail/unsubscribe/');
    expect(row.headers).toEqual([
      expect.stringMatching(/^List-Unsubscribe: <http:\/\/lead\.test\/api\/v1\/mail\/unsubscribe\/[\w-]+\.[\w-]+>$/),
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    ]);
  });

  it("takes the spec's standard list parameters with the meanings a provider's folder has: page 1, search_value as search, newest first", async () => {
    const list = (query: Record<string, string | number>) =>
      call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId, folder: 'sent', ...query } });
    const searched = await list({ search: 'pricing' });
    expect(searched.status, searched.text).toBe(200);
    expect(searched.body.data.map((message: { id: string }) => message.id)).toContain(String(sentId));
    const standard = await list({ page: 1, search_value: 'pricing', order_by: 'id', order_in: 'desc' });
    expect(standard.status, standard.text).toBe(200);
    expect(standard.body.data).toEqual(searched.body.data);
    const none = await list({ search_value: 'no-such-words-anywhere' });
    expect(none.status, none.text).toBe(200);
    expect(none.body.data).toEqual([]);
    for (const [query, field] of [
      [{ page: 2 }, 'page'],
      [{ order_in: 'ASC' }, 'order_in'],
      [{ order_by: 'subject' }, 'order_by'],
      [{ search: 'pricing', search_value: 'other' }, 'search_value'],
    ] as const) {
      const refused = await list(query);
      expect(refused.status, `${JSON.stringify(query)}: ${refused.text}`).toBe(400);
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([field]);
    }
  });

  it('every link of an HTML body still leads where it pointed: none is rewritten to a click link that answers 404', async () => {
    const links = [
      'https://example.com/price list.pdf',
      'https://example.com/a?b=1&amp;c=2',
      'https://my_host.example.com/offer',
      'https://example.com/line\nbreak',
    ];
    const response = await send({
      to: leadEmail,
      subject: 'Links',
      body_format: 'html',
      body: links.map((href) => `<p><a href="${href}">link</a></p>`).join(''),
    });
    expect(response.status, response.text).toBe(202);
    const html = (await messageRow(response.body.data.id)).bodyHtml as string;
    const hrefs = [...html.matchAll(/<p><a href="([^"]*)">link<\/a><\/p>/g)].map((match) => match[1]);
    expect(hrefs).toHaveLength(links.length);
    const destinations: string[] = [];
    for (const href of hrefs) {
      if (!href.startsWith('http://lead.test/api/v1/track/click/')) {
        destinations.push(href);
        continue;
      }
      const ctx = createExecutionContext();
      const clicked = await worker.fetch(
        new Request(href, { redirect: 'manual' }) as Request<unknown, IncomingRequestCfProperties>,
        { ...env, EVENTS: { send: async () => undefined } as unknown as Queue<TrackingHit> },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(clicked.status, href).toBe(200);
      destinations.push(/<a [^>]*href="([^"]+)"/.exec(await clicked.text())?.[1]?.replace(/&amp;/g, '&') ?? '');
    }
    expect(destinations).toEqual([
      'https://example.com/price%20list.pdf',
      'https://example.com/a?b=1&c=2',
      'https://my_host.example.com/offer',
      'https://example.com/linebreak',
    ]);
  });

  it('a send retried with its Idempotency-Key (after a timeout) is answered again, not sent twice', async () => {
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const body = { config_id: configId, to: leadEmail, subject: `Retried ${headers['idempotency-key']}`, body: 'Once' };
    const first = await requestRecordingJobs('POST', '/api/inbox/send', { token: owner.token, body, headers });
    expect(first.status, first.text).toBe(202);
    expect(first.sent).toHaveLength(1);
    const retry = await requestRecordingJobs('POST', '/api/inbox/send', { token: owner.token, body, headers });
    expect(retry.status, retry.text).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(first.body.data.id);
    expect(retry.sent).toEqual([]);
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.subject, body.subject)),
    );
    expect(rows).toHaveLength(1);
  });

  it('a plain-text body’s links in <angle brackets>, "quotes" or with an apostrophe link to the address written', async () => {
    const response = await send({
      to: leadEmail,
      subject: 'Plain links',
      body: 'Book here <https://example.com/demo>, read "https://example.com/guide" and https://example.com/o\'brien?a=1&b=2 too.',
    });
    expect(response.status, response.text).toBe(202);
    const viewed = await call('GET', `/api/inbox/view/${response.body.data.id}`, {
      token: owner.token,
      query: { config_id: configId },
    });
    const shown = viewed.body.data.body_html as string;
    const hrefs = [...shown.matchAll(/<a href="([^"]+)">/g)].map((match) =>
      match[1].replace(/&amp;/g, '&').replace(/&#39;/g, "'"),
    );
    expect(hrefs.filter((href) => !href.includes('/unsubscribe/'))).toEqual([
      'https://example.com/demo',
      'https://example.com/guide',
      "https://example.com/o'brien?a=1&b=2",
    ]);
    expect(shown).toContain('Book here &lt;<a href=');
  });

  it('an HTML body’s plain-text part reads as text: paragraphs on lines, entities decoded, no style or script', async () => {
    const response = await send({
      to: leadEmail,
      subject: 'Formatted',
      body_format: 'html',
      body: '<html><head><style>p { color: red; }</style></head><body><p>Hi&nbsp;Grace,</p><p>Q&amp;A is on <b>Tuesday</b>&#8230;<br>Room 4 &lt;B&gt;</p><script>track()</script><ul><li>One</li><li>Two</li></ul></body></html>',
    });
    expect(response.status, response.text).toBe(202);
    const row = await messageRow(response.body.data.id);
    expect(row.bodyText).toBe('Hi\u00a0Grace,\n\nQ&A is on Tuesday\u2026\nRoom 4 <B>\n\nOne\nTwo');
  });

  it('a whole HTML document gets its pixel and unsubscribe footer inside its body, not after </html>', async () => {
    const response = await send({
      to: leadEmail,
      subject: 'Newsletter',
      body_format: 'html',
      body: '<!doctype html><html><head><title>News</title></head><BODY><p>News</p></BODY></html>',
    });
    expect(response.status, response.text).toBe(202);
    const html = (await messageRow(response.body.data.id)).bodyHtml as string;
    expect(html).toMatch(
      /<p>News<\/p>\n<img src="[^"]*\/api\/v1\/track\/open\/[^"]+"[^>]*>\n+<p [^>]*><a href="[^"]*\/api\/v1\/mail\/unsubscribe\/[^"]+">Unsubscribe<\/a> from these emails\.<\/p>\n+<\/BODY><\/html>$/,
    );
  });

  it('an open of the sent pixel records email_opened on the lead', async () => {
    const html = (await messageRow(sentId)).bodyHtml as string;
    const pixel = /src="http:\/\/lead\.test(\/api\/v1\/track\/open\/[^"]+)"/.exec(html)?.[1] as string;
    const hits: TrackingHit[] = [];
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request(`http://lead.test${pixel}`) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, EVENTS: { send: async (hit: TrackingHit) => void hits.push(hit) } as unknown as Queue<TrackingHit> },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
    expect(hits).toHaveLength(1);
    const batch = createMessageBatch<TrackingHit>(EVENTS_QUEUE, [
      { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: hits[0] },
    ]);
    await worker.queue(batch as MessageBatch<never>, env);
    expect(await signals('email_opened')).toHaveLength(1);
  });

  it('a reply dropped into the thread records one reply_received, however often it is seen', async () => {
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: {
        config_id: configId,
        from: leadEmail,
        subject: 'Re: Our pricing',
        body: 'Tell me more',
        in_reply_to: sentMessageId,
      },
    });
    expect(received.status, received.text).toBe(201);
    expect(received.body.data).toMatchObject({ provider: 'local', in_reply_to: sentMessageId, is_read: false });
    for (let i = 0; i < 2; i++) {
      const inbox = await call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId } });
      expect(inbox.body.data.map((message: { id: string }) => message.id)).toContain(received.body.data.id);
    }
    await call('GET', `/api/inbox/view/${received.body.data.id}`, {
      token: owner.token,
      query: { config_id: configId },
    });
    const replies = await signals('reply_received');
    expect(replies).toHaveLength(1);
    expect(replies[0].signalDetail).toMatchObject({ config_id: configId, sent_message_id: sentId });

    // A raw RFC 5322 reply (parsed with postal-mime) is threaded the same way: a second reply, a second signal.
    const raw = [
      `From: Grace <${leadEmail}>`,
      `To: ${repAddress}`,
      'Subject: Re: Our pricing',
      '<raw-reply@example.com>'.replace(/^/, 'Message-ID: '),
      `In-Reply-To: ${sentMessageId}`,
      `References: ${sentMessageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'One more question.',
    ].join('\r\n');
    const parsed = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(parsed.status, parsed.text).toBe(201);
    expect(parsed.body.data).toMatchObject({
      message_id: '<raw-reply@example.com>',
      body_text: expect.stringContaining('One more question'),
    });
    expect(await signals('reply_received')).toHaveLength(2);
  });

  it('a lead’s reply quoting our message is shown without our pixel and click links', async () => {
    const sentHtml = (await messageRow(sentId)).bodyHtml as string;
    const raw = [
      `From: Grace <${leadEmail}>`,
      `To: ${repAddress}`,
      'Subject: Re: Our pricing, which plan',
      'Message-ID: <quoting-reply@example.com>',
      `In-Reply-To: ${sentMessageId}`,
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>Which plan?</p><blockquote>${sentHtml}</blockquote>`,
    ].join('\r\n');
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    const viewed = await call('GET', `/api/inbox/view/${received.body.data.id}`, {
      token: owner.token,
      query: { config_id: configId },
    });
    expect(viewed.status, viewed.text).toBe(200);
    const shown = viewed.body.data.body_html as string;
    expect(shown).toContain('Which plan?');
    expect(shown).not.toContain('/api/v1/track/');
    expect(shown).toContain('href="https://example.com/pricing?plan=team"');
  });

  it('a bounce or an automatic reply in the thread is shown as such and records no reply_received', async () => {
    const before = (await signals('reply_received')).length;
    const outOfOffice = [
      `From: Grace <${leadEmail}>`,
      `To: ${repAddress}`,
      'Subject: Out of office: Our pricing',
      'Message-ID: <ooo-1@example.com>',
      `In-Reply-To: ${sentMessageId}`,
      `References: ${sentMessageId}`,
      'Auto-Submitted: auto-replied',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'I am away until Monday.',
    ].join('\r\n');
    const bounce = [
      'From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>',
      `To: ${repAddress}`,
      'Subject: Delivery Status Notification (Failure)',
      'Message-ID: <dsn-1@example.com>',
      `In-Reply-To: ${sentMessageId}`,
      `References: ${sentMessageId}`,
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Address not found.',
      '--b1--',
    ].join('\r\n');
    const arrived: { id: string; automated: string | null }[] = [];
    for (const raw of [outOfOffice, bounce]) {
      const received = await call('POST', '/api/inbox/local/receive', {
        token: owner.token,
        body: { config_id: configId, raw },
      });
      expect(received.status, received.text).toBe(201);
      arrived.push(received.body.data);
    }
    // Exchange's out-of-office, told by its subject; and a report from a postmaster, given as fields.
    for (const fields of [
      { from: leadEmail, subject: 'Automatic reply: Our pricing', body: 'Away' },
      { from: 'postmaster@example.org', subject: 'Undeliverable: Our pricing', body: 'Delivery failed' },
    ]) {
      const received = await call('POST', '/api/inbox/local/receive', {
        token: owner.token,
        body: { config_id: configId, in_reply_to: sentMessageId, ...fields },
      });
      expect(received.status, received.text).toBe(201);
      arrived.push(received.body.data);
    }
    expect(arrived.map((message) => message.automated)).toEqual(['auto_reply', 'bounce', 'auto_reply', 'bounce']);
    const inbox = await call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId } });
    const listed = new Map(
      inbox.body.data.map((message: { id: string; automated: string | null }) => [message.id, message.automated]),
    );
    expect(arrived.map((message) => listed.get(message.id))).toEqual(['auto_reply', 'bounce', 'auto_reply', 'bounce']);
    expect(await signals('reply_received')).toHaveLength(before);
  });

  it('replies in the thread, with In-Reply-To and References, and no List-Unsubscribe', async () => {
    const inbox = await call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId } });
    const incoming = inbox.body.data.find((message: { subject: string }) => message.subject === 'Re: Our pricing');
    const reply = await requestRecordingJobs('POST', `/api/inbox/reply/${incoming.id}`, {
      token: owner.token,
      body: { config_id: configId, body: 'Here is more.' },
    });
    expect(reply.status, reply.text).toBe(202);
    expect(reply.body.data).toMatchObject({
      kind: 'reply',
      to: [leadEmail],
      subject: 'Re: Our pricing',
      lead_id: leadId,
    });
    const row = await messageRow(reply.body.data.id);
    expect(row.inReplyTo).toBe(incoming.message_id);
    expect(row.references).toEqual([...incoming.references, incoming.message_id]);
    expect(row.providerThreadId).toBe(sentMessageId);
    expect(row.headers).toEqual([]);
    await deliverJobs(reply.sent);
    expect((await messageRow(reply.body.data.id)).status).toBe('sent');
  });

  it('a reply goes to the Reply-To the sender named, not to their From address', async () => {
    const replyTo = uniqueEmail('grace-work');
    const raw = [
      `From: Grace <${uniqueEmail('grace-phone')}>`,
      `Reply-To: Grace Hopper <${replyTo}>`,
      `To: ${repAddress}`,
      'Subject: Call me back',
      'Message-ID: <reply-to-1@example.com>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Please answer at my work address.',
    ].join('\r\n');
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    expect(received.body.data.reply_to).toEqual([replyTo]);
    const reply = await requestRecordingJobs('POST', `/api/inbox/reply/${received.body.data.id}`, {
      token: owner.token,
      body: { config_id: configId, body: 'Will do.' },
    });
    expect(reply.status, reply.text).toBe(202);
    expect(reply.body.data.to).toEqual([replyTo]);
  });

  it('the signed one-click unsubscribe suppresses the address; GET changes nothing; later sends skip it', async () => {
    const header = (await messageRow(sentId)).headers[0];
    const path = /<http:\/\/lead\.test([^>]+)>/.exec(header)?.[1] as string;
    // The address is sealed in the link, not just encoded: its payload does not show it.
    const payload = (path.split('/').pop() as string).split('.')[0];
    const decoded = new TextDecoder().decode(base64url.decode(payload));
    expect(decoded).toMatch(/^\{"v":2,"o":\d+,"x":"[\w-]+"\}$/);
    expect(decoded.toLowerCase()).not.toContain(leadEmail.toLowerCase().split('@')[0]);
    const page = await requestRecordingJobs('GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain(leadEmail.toLowerCase());
    expect(page.events).toEqual([]);
    const tampered = await requestRecordingJobs('POST', `${path.slice(0, -2)}xx`);
    expect(tampered.status).toBe(404);
    expect(tampered.events).toEqual([]);
    const clicked = await requestRecordingJobs('POST', path, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(clicked.status).toBe(200);
    expect(clicked.events).toEqual([
      { kind: 'unsubscribe', orgId: owner.orgId, address: leadEmail.toLowerCase(), at: expect.any(String) },
    ]);
    await deliverEvents(clicked.events);
    await deliverEvents(clicked.events);
    const suppressed = await inOrganization(owner.orgId, (tx) => tx.select().from(mailSuppressions));
    expect(suppressed).toEqual([expect.objectContaining({ address: leadEmail.toLowerCase(), reason: 'unsubscribed' })]);

    const refused = await send({ to: leadEmail, subject: 'Again', body: 'Hello' });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('to');
    expect(refused.sent).toEqual([]);
    const other = uniqueEmail('other');
    const partly = await send({ to: [leadEmail.toUpperCase(), other], subject: 'Again', body: 'Hello' });
    expect(partly.status, partly.text).toBe(202);
    expect(partly.body.data).toMatchObject({ to: [other], suppressed: [leadEmail.toLowerCase()] });
  });
});

describe('unsubscribe links sent before the address was sealed', () => {
  it('still unsubscribe their address (v1: the address readable in the signed payload)', async () => {
    const secrets = trackingSecrets(env);
    const address = uniqueEmail('old-link').toLowerCase();
    const payload = base64url.encode(JSON.stringify({ v: 1, o: owner.orgId, a: address }));
    const token = `${payload}.${await signWithTrackingKey(secrets, 'mail-unsubscribe', payload)}`;
    const clicked = await requestRecordingJobs('POST', `/api/v1/mail/unsubscribe/${token}`);
    expect(clicked.status, clicked.text).toBe(200);
    expect(clicked.events).toEqual([{ kind: 'unsubscribe', orgId: owner.orgId, address, at: expect.any(String) }]);
    // Sealed for one organization, an address opens for no other (the organization is the seal's additional data).
    const sealed = await signUnsubscribeToken(secrets, { orgId: owner.orgId, address });
    const [body] = sealed.split('.');
    const moved = base64url.encode(
      JSON.stringify({ ...JSON.parse(new TextDecoder().decode(base64url.decode(body))), o: owner.orgId + 1 }),
    );
    const forged = `${moved}.${await signWithTrackingKey(secrets, 'mail-unsubscribe', moved)}`;
    expect((await requestRecordingJobs('POST', `/api/v1/mail/unsubscribe/${forged}`)).status).toBe(404);
  });
});

/**
 * Asserts whom a List-Unsubscribe header's signed link unsubscribes: its page (GET, no effect)
 * names `own` and none of the `others`.
 */
async function expectUnsubscribes(header: string, own: string, others: string[]) {
  const path = /<http:\/\/lead\.test([^>]+)>/.exec(header)?.[1] as string;
  const page = await requestRecordingJobs('GET', path);
  expect(page.status).toBe(200);
  expect(page.events).toEqual([]);
  expect(page.text).toContain(own.toLowerCase());
  for (const other of others.filter((address) => address !== own)) expect(page.text).not.toContain(other.toLowerCase());
}

describe('a mail-send job that keeps stopping', () => {
  it('fails with the messages it still had to send: the lease sweep fails several jobs at once, each message with its job', async () => {
    const sent = await Promise.all(
      [1, 2].map(() => send({ to: uniqueEmail('stalled'), subject: 'Never sent', body: 'Hello' })),
    );
    const jobIds = sent.map((response) => {
      expect(response.status, response.text).toBe(202);
      return (response.sent[0] as { jobId: number }).jobId;
    });
    // Claimed, stopped after every re-send, its lease run out: the next sweep fails both jobs together.
    await inOrganization(owner.orgId, (tx) =>
      tx
        .update(mailSendJobs)
        .set({
          status: 'running',
          leaseResends: MAX_LEASE_RESENDS,
          leaseExpiresAt: sql`now() - interval '1 second'`,
        })
        .where(
          sql`${mailSendJobs.id} in (${sql.join(
            jobIds.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        ),
    );
    const noQueue = { sendBatch: async () => {} } as unknown as Queue<JobMessage>;
    const swept = await withOwnDatabase(readConfig(env), (db) => sweepExpiredLeases(db, noQueue));
    expect(swept.failed).toBeGreaterThanOrEqual(2);
    for (const response of sent) {
      expect(await messageRow(response.body.data.id)).toMatchObject({
        status: 'failed',
        failureReason: MAIL_SEND_REASONS.gaveUp,
        sentAt: null,
      });
    }
  });
});

describe('Bcc recipients of mail that carries List-Unsubscribe', () => {
  it('each get a copy of their own with their own signed link; the visible message names no Bcc', async () => {
    const [to, cc, first, second] = ['to', 'cc', 'bcc-one', 'bcc-two'].map((label) => uniqueEmail(label));
    const response = await send({ to, cc, bcc: [first, second], subject: 'Launch', body: 'Hello all' });
    expect(response.status, response.text).toBe(202);
    expect(response.body.data).toMatchObject({ to: [to], cc: [cc], bcc: [first, second] });
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.subject, 'Launch')),
    );
    expect(rows.map((row) => [row.toAddresses, row.ccAddresses, row.bccAddresses]).sort()).toEqual(
      [
        [[to], [cc], []],
        [[], [], [first]],
        [[], [], [second]],
      ].sort(),
    );
    for (const row of rows) {
      expect(row.headers[1]).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      await expectUnsubscribes(row.headers[0], row.bccAddresses[0] ?? row.toAddresses[0], [to, cc, first, second]);
    }
    await deliverJobs(response.sent);
    const sent = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.subject, 'Launch')),
    );
    expect(sent.map((row) => row.status)).toEqual(['sent', 'sent', 'sent']);
  });
});

describe('target-account bulk email', () => {
  it('sends through the organization’s mail account: one message per recipient, each with List-Unsubscribe', async () => {
    const company = await createCompany(owner);
    const contacts: number[] = [];
    for (const name of ['Ada', 'Alan']) {
      contacts.push(
        await createContact(owner, {
          name: `${name} Bulk`,
          email: uniqueEmail(name.toLowerCase()),
          company_id: company,
        }),
      );
    }
    const account = await call('POST', '/api/target-accounts', {
      token: owner.token,
      body: { company_id: company },
    });
    expect(account.status, account.text).toBe(201);
    const sent = await requestRecordingJobs('POST', `/api/target-accounts/${account.body.data.id}/send-bulk-email`, {
      token: owner.token,
      body: { subject: 'Roadmap', body: 'Hello', contact_ids: contacts },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body.data).toEqual({ queued: 2, suppressed: [], config_id: configId });
    expect(sent.sent).toHaveLength(1);
    const jobId = (sent.sent[0] as Extract<JobMessage, { kind: 'mail-send' }>).jobId;
    await deliverJobs(sent.sent);
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.targetAccountId, account.body.data.id)),
    );
    expect(rows.map((row) => [row.kind, row.status, row.contactId, row.headers.length]).sort()).toEqual(
      contacts.map((contact) => ['bulk', 'sent', contact, 2]).sort(),
    );
    expect(rows.map((row) => row.sendJobId)).toEqual([jobId, jobId]);
  });

  it('fills each recipient’s merge fields ({{first_name}}, {{company}}, a fallback after |), escaped in the HTML', async () => {
    const companyName = `Initech & Sons ${crypto.randomUUID().slice(0, 4)}`;
    const company = await createCompany(owner, { company_name: companyName });
    const people = [
      { name: 'Peter Gibbons', email: uniqueEmail('peter') },
      { name: '<script>alert(1)</script> Lumbergh', email: uniqueEmail('bill') },
      { name: 'Milton', email: uniqueEmail('milton') },
    ];
    const contacts: number[] = [];
    for (const person of people) contacts.push(await createContact(owner, { ...person, company_id: company }));
    const account = await call('POST', '/api/target-accounts', { token: owner.token, body: { company_id: company } });
    expect(account.status, account.text).toBe(201);
    const url = `/api/target-accounts/${account.body.data.id}/send-bulk-email`;
    for (const mode of ['individual', 'bcc']) {
      const sent = await requestRecordingJobs('POST', url, {
        token: owner.token,
        body: {
          subject: 'Roadmap for {{ company }}',
          body: 'Hello {{first_name}} {{last_name | }},\nA note for {{company}} ({{email}}).',
          contact_ids: contacts,
          mode,
        },
      });
      expect(sent.status, sent.text).toBe(202);
    }
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.targetAccountId, account.body.data.id)),
    );
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      const address = row.toAddresses[0] ?? row.bccAddresses[0];
      const person = people.find((candidate) => candidate.email === address);
      expect(person, address).toBeDefined();
      const [first, ...rest] = (person as { name: string }).name.split(' ');
      expect(row.subject).toBe(`Roadmap for ${companyName}`);
      expect(row.bodyText).toBe(`Hello ${first} ${rest.join(' ')},\nA note for ${companyName} (${address}).`);
      expect(row.bodyHtml).not.toContain('{{');
      expect(row.bodyHtml).not.toContain('<script>');
    }
    expect(rows.map((row) => row.bodyHtml).join('\n')).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('refuses an unknown merge field, or one a recipient has no value for and no fallback, naming the field', async () => {
    const company = await createCompany(owner);
    const contacts = [
      await createContact(owner, { name: 'Samir Nagheenanajar', email: uniqueEmail('samir'), company_id: company }),
      await createContact(owner, { name: 'Michael', email: uniqueEmail('michael'), company_id: company }),
    ];
    const account = await call('POST', '/api/target-accounts', { token: owner.token, body: { company_id: company } });
    const url = `/api/target-accounts/${account.body.data.id}/send-bulk-email`;
    const unknown = await call('POST', url, {
      token: owner.token,
      body: { subject: 'Hi {{frist_name}}', body: 'Hello', contact_ids: contacts },
    });
    expectFailure(unknown, 422, 'validation_error');
    expect(unknown.body.error.code).toBe('subject');
    expect(unknown.body.error.message).toContain('frist_name');
    const missing = await call('POST', url, {
      token: owner.token,
      body: { subject: 'Hi', body: 'Hello {{first_name}} {{last_name}}', contact_ids: contacts },
    });
    expectFailure(missing, 422, 'validation_error');
    expect(missing.body.error.code).toBe('body');
    expect(missing.body.error.message).toContain('last_name');
    expect(missing.body.error.message).toContain(String(contacts[1]));
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.targetAccountId, account.body.data.id)),
    );
    expect(rows).toEqual([]);
  });

  it('in bcc mode gives each recipient a Bcc copy of their own, with a link that unsubscribes them', async () => {
    const company = await createCompany(owner);
    const emails = ['Grace', 'Edsger'].map((name) => uniqueEmail(name.toLowerCase()));
    const contacts: number[] = [];
    for (const [index, email] of emails.entries()) {
      contacts.push(await createContact(owner, { name: `Bcc ${index} Bulk`, email, company_id: company }));
    }
    const account = await call('POST', '/api/target-accounts', { token: owner.token, body: { company_id: company } });
    expect(account.status, account.text).toBe(201);
    const sent = await requestRecordingJobs('POST', `/api/target-accounts/${account.body.data.id}/send-bulk-email`, {
      token: owner.token,
      body: { subject: 'Bcc roadmap', body: 'Hello', contact_ids: contacts, mode: 'bcc' },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body.data).toEqual({ queued: 2, suppressed: [], config_id: configId });
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.targetAccountId, account.body.data.id)),
    );
    expect(rows.map((row) => [row.toAddresses, row.ccAddresses, row.bccAddresses]).sort()).toEqual(
      emails.map((email) => [[], [], [email]]).sort(),
    );
    for (const row of rows) await expectUnsubscribes(row.headers[0], row.bccAddresses[0], [...emails, repAddress]);
  });
});

describe('the local mailbox’s inbound route', () => {
  it('obeys the inbox routes’ ownership: another user’s account is a 403 for a rep, another organization’s a 404', async () => {
    const { token: rep } = await addMember(owner, { first_name: 'Rep', email: uniqueEmail('rep-inbound') });
    const drop = { config_id: configId, from: uniqueEmail('forger'), subject: 'Re: Our pricing', body: 'Yes' };
    const list = await call('GET', '/api/inbox/list', { token: rep, query: { config_id: configId } });
    expectFailure(list, 403, 'forbidden');
    const received = await call('POST', '/api/inbox/local/receive', { token: rep, body: drop });
    expectFailure(received, 403, 'forbidden');
    expect(received.body.error.code).toBe('owner_or_admin_only');

    const other = await signupOrganization('Other mail');
    const foreign = await call('POST', '/api/inbox/local/receive', { token: other.token, body: drop });
    expectFailure(foreign, 404, 'not_found');
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.fromAddress, drop.from)),
    );
    expect(rows).toEqual([]);
  });
});

describe('a delivery that died after claiming a message', () => {
  it('is settled by asking the mailbox whenever the provider can be asked (findSent), the local one included', async () => {
    const queued = await send({ to: uniqueEmail('interrupted'), subject: 'Interrupted', body: 'Hello' });
    expect(queued.status, queued.text).toBe(202);
    await inOrganization(owner.orgId, (tx) =>
      tx
        .update(mailMessages)
        .set({ status: 'sending', attempts: 1, updatedAt: sql`now() - interval '10 minutes'` })
        .where(eq(mailMessages.id, queued.body.data.id)),
    );
    await deliverJobs(queued.sent, 2);
    expect(await messageRow(queued.body.data.id)).toMatchObject({
      status: 'sent',
      failureReason: null,
      providerMessageId: queued.body.data.message_id,
      providerThreadId: queued.body.data.message_id,
    });
  });
});

describe('the suppression list at send time', () => {
  async function unsubscribe(address: string) {
    await deliverEvents([
      { kind: 'unsubscribe', orgId: owner.orgId, address: address.toLowerCase(), at: new Date().toISOString() },
    ]);
  }

  it('a recipient unsubscribed after the message was queued is left out when the job runs; with nobody left it is not sent', async () => {
    const [visible, gone, staying] = [uniqueEmail('visible'), uniqueEmail('gone'), uniqueEmail('staying')];
    // One job of three messages: the visible one and a Bcc copy for each Bcc recipient.
    const queued = await send({ to: visible, bcc: [gone, staying], subject: 'Queued before', body: 'Hello' });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.sent).toHaveLength(1);
    const partly = await send({ to: [uniqueEmail('kept'), gone.toUpperCase()], subject: 'Two', body: 'Hello' });
    expect(partly.status, partly.text).toBe(202);
    await unsubscribe(gone);

    await deliverJobs([...queued.sent, ...partly.sent]);
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx
        .select()
        .from(mailMessages)
        .where(
          sql`${mailMessages.sendJobId} in (${(queued.sent[0] as { jobId: number }).jobId}, ${(partly.sent[0] as { jobId: number }).jobId})`,
        )
        .orderBy(mailMessages.id),
    );
    const byRecipient = new Map(rows.map((row) => [[...row.toAddresses, ...row.bccAddresses].join(','), row]));
    expect(byRecipient.get(visible)).toMatchObject({ status: 'sent', suppressed: [] });
    expect(byRecipient.get(staying)).toMatchObject({ status: 'sent', suppressed: [] });
    const skipped = rows.find(
      (row) => row.suppressed.includes(gone.toLowerCase()) && row.kind === 'one_to_one' && row.toAddresses.length === 0,
    );
    expect(skipped).toMatchObject({
      status: 'suppressed',
      failureReason: MAIL_SEND_REASONS.suppressed,
      sentAt: null,
      bccAddresses: [gone],
    });
    const trimmed = rows.find((row) => row.id === partly.body.data.id);
    expect(trimmed).toMatchObject({
      status: 'sent',
      toAddresses: [partly.body.data.to[0]],
      suppressed: [gone.toLowerCase()],
    });

    // The API shows it: the local sent folder lists the skipped copy as suppressed.
    const listed = await call('GET', '/api/inbox/list', {
      token: owner.token,
      query: { config_id: configId, folder: 'sent', limit: 50 },
    });
    const shown = listed.body.data.find((message: { id: string }) => message.id === String(skipped?.id));
    expect(shown).toMatchObject({ status: 'suppressed' });
  });
  it('when the first recipient is left out, the lead, tracking and unsubscribe link follow the recipients left', async () => {
    const [gone, kept, stranger] = [uniqueEmail('first-gone'), uniqueEmail('first-kept'), uniqueEmail('no-lead')];
    const leadOf = async (email: string) => {
      const added = await call('POST', '/api/lead/add', {
        token: owner.token,
        body: { first_name: 'Lead', last_name: 'Left', email },
      });
      expect(added.status, added.text).toBe(201);
      return added.body.data.id as number;
    };
    const [goneLead, keptLead] = [await leadOf(gone), await leadOf(kept)];
    const body = 'See https://example.com/pricing';
    const toLead = await send({ to: [gone, kept], subject: 'Pricing', body });
    const toNobody = await send({ to: [gone], cc: [stranger], subject: 'Pricing', body });
    expect(toLead.body.data.lead_id).toBe(goneLead);
    await unsubscribe(gone);
    await deliverJobs([...toLead.sent, ...toNobody.sent]);

    const secrets = { jwtSecret: env.JWT_SECRET as string };
    const tokens = (html: string, kind: 'open' | 'click') =>
      [...html.matchAll(new RegExp(`/api/v1/track/${kind}/([\\w-]+\\.[\\w-]+)`, 'g'))].map((match) => match[1]);
    const leadsTracked = async (html: string, kind: 'open' | 'click') =>
      Promise.all(tokens(html, kind).map(async (token) => (await verifyTrackingToken(secrets, token))?.leadId));

    const sentToLead = await messageRow(toLead.body.data.id);
    expect(sentToLead).toMatchObject({ status: 'sent', toAddresses: [kept], leadId: keptLead, contactId: null });
    const html = sentToLead.bodyHtml as string;
    expect(await leadsTracked(html, 'open')).toEqual([keptLead]);
    expect(await leadsTracked(html, 'click')).toEqual([keptLead]);
    const header = sentToLead.headers.find((line) => line.startsWith('List-Unsubscribe:')) as string;
    await expectUnsubscribes(header, kept, [gone]);
    // One footer, with that same link.
    const links = [...html.matchAll(/\/api\/v1\/mail\/unsubscribe\/[\w.-]+/g)].map((match) => match[0]);
    expect(links).toEqual([/<http:\/\/lead\.test([^>]+)>/.exec(header)?.[1]]);
    expect(sentToLead.headers.filter((line) => line.startsWith('List-Unsubscribe-Post:'))).toHaveLength(1);

    // The one left is no lead: nobody's tracking, and their own link.
    const sentToNobody = await messageRow(toNobody.body.data.id);
    expect(sentToNobody).toMatchObject({ status: 'sent', toAddresses: [], ccAddresses: [stranger], leadId: null });
    expect(tokens(sentToNobody.bodyHtml as string, 'open')).toEqual([]);
    expect(sentToNobody.bodyHtml).toContain('href="https://example.com/pricing"');
    await expectUnsubscribes(
      sentToNobody.headers.find((line) => line.startsWith('List-Unsubscribe:')) as string,
      stranger,
      [gone],
    );
  });
});

describe('a bounce report arriving for mail we sent', () => {
  /** A delivery report as Postfix writes it: the per-recipient status part and our returned headers. */
  function report(options: {
    messageId: string;
    blocks: string[];
    failedHeader?: string;
    inReplyTo?: string;
    references?: string;
  }) {
    return [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
      `To: ${repAddress}`,
      'Subject: Undelivered Mail Returned to Sender',
      `Message-ID: <dsn-${crypto.randomUUID()}@mx.example.net>`,
      ...(options.inReplyTo ? [`In-Reply-To: ${options.inReplyTo}`] : []),
      ...(options.references ? [`References: ${options.references}`] : []),
      ...(options.failedHeader ? [`X-Failed-Recipients: ${options.failedHeader}`] : []),
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'I could not deliver your message.',
      '--b1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.net',
      '',
      options.blocks.join('\r\n\r\n'),
      '',
      '--b1',
      'Content-Type: text/rfc822-headers',
      '',
      `From: ${repAddress}`,
      `Message-ID: ${options.messageId}`,
      'Subject: Our offer',
      '--b1--',
      '',
    ].join('\r\n');
  }
  const block = (address: string, action: string, status: string) =>
    [`Final-Recipient: rfc822; ${address}`, `Action: ${action}`, `Status: ${status}`].join('\r\n');

  async function suppressions(addresses: string[]) {
    return inOrganization(owner.orgId, (tx) =>
      tx
        .select({ address: mailSuppressions.address, reason: mailSuppressions.reason })
        .from(mailSuppressions)
        .where(sql`${mailSuppressions.address} = any(${sql.param(addresses)}::text[])`),
    );
  }

  it('suppresses the recipients it reports failed for good (5.1.1), not a delay, a full mailbox or a policy refusal', async () => {
    const [gone, delayed, full, spam] = ['gone', 'delayed', 'full', 'spam'].map((label) => uniqueEmail(label));
    const sent = await send({ to: [gone, delayed], cc: [full, spam], subject: 'Our offer', body: 'Hello' });
    expect(sent.status, sent.text).toBe(202);
    await deliverJobs(sent.sent);
    // No In-Reply-To: the report is tied to our message by the Message-ID in its returned headers.
    // X-Failed-Recipients names all four, as Gmail's does; the report's own statuses decide.
    const raw = report({
      messageId: sent.body.data.message_id,
      failedHeader: [gone, delayed, full, spam].join(', '),
      blocks: [
        block(gone.toUpperCase(), 'failed', '5.1.1'),
        block(delayed, 'delayed', '4.4.7'),
        block(full, 'failed', '5.2.2'),
        block(spam, 'failed', '5.7.1'),
      ],
    });
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    expect(received.body.data).toMatchObject({
      automated: 'bounce',
      bounce: { hard_bounced: [gone.toLowerCase()], original_message_id: sent.body.data.message_id },
    });
    expect(await suppressions([gone, delayed, full, spam].map((address) => address.toLowerCase()))).toEqual([
      { address: gone.toLowerCase(), reason: 'bounced' },
    ]);
    const inbox = await call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId } });
    expect(inbox.body.data.find((message: { id: string }) => message.id === received.body.data.id)).toMatchObject({
      bounce: { hard_bounced: [gone.toLowerCase()] },
    });
    const again = await send({ to: [gone, delayed], subject: 'Again', body: 'Hello' });
    expect(again.status, again.text).toBe(202);
    expect(again.body.data).toMatchObject({ to: [delayed], suppressed: [gone.toLowerCase()] });
  });

  it('marks the message it returns bounced (status, failure_reason, the sent folder), once however often it is seen', async () => {
    const [gone, kept] = [uniqueEmail('bounced-gone'), uniqueEmail('bounced-kept')];
    // An earlier message of the thread reached `gone`: the report returns the later one only.
    const first = await send({ to: [gone, kept], subject: 'Our offer', body: 'Hello' });
    await deliverJobs(first.sent);
    const laterSent = await requestRecordingJobs('POST', `/api/inbox/reply/${first.body.data.id}`, {
      token: owner.token,
      body: { config_id: configId, body: 'Following up' },
    });
    expect(laterSent.status, laterSent.text).toBe(202);
    expect(laterSent.body.data.to).toEqual([gone, kept]);
    await deliverJobs(laterSent.sent);
    const raw = report({
      messageId: laterSent.body.data.message_id,
      inReplyTo: laterSent.body.data.message_id,
      references: `${first.body.data.message_id} ${laterSent.body.data.message_id}`,
      blocks: [block(gone, 'failed', '5.1.1'), block(kept, 'delayed', '4.4.7')],
    });
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    const bounced = await messageRow(laterSent.body.data.id);
    expect(bounced).toMatchObject({ status: 'bounced' });
    expect(bounced.failureReason).toContain(gone.toLowerCase());
    expect(bounced.failureReason).not.toContain(kept.toLowerCase());
    expect(await messageRow(first.body.data.id)).toMatchObject({ status: 'sent', failureReason: null });

    // The sender sees it: the sent folder lists it bounced.
    const listed = await call('GET', '/api/inbox/list', {
      token: owner.token,
      query: { config_id: configId, folder: 'sent', limit: 50 },
    });
    expect(
      listed.body.data.find((message: { id: string }) => message.id === String(laterSent.body.data.id)),
    ).toMatchObject({ status: 'bounced' });

    // The same report seen again (the inbox listed, the report viewed) changes nothing.
    const inbox = await call('GET', '/api/inbox/list', { token: owner.token, query: { config_id: configId } });
    expect(inbox.status, inbox.text).toBe(200);
    const viewed = await call('GET', `/api/inbox/view/${received.body.data.id}`, {
      token: owner.token,
      query: { config_id: configId },
    });
    expect(viewed.status, viewed.text).toBe(200);
    expect(await messageRow(laterSent.body.data.id)).toEqual(bounced);
  });

  it('a message that bounces for several recipients, one report each, suppresses them all and names them all', async () => {
    const [first, second, kept] = ['multi-first', 'multi-second', 'multi-kept'].map((label) => uniqueEmail(label));
    const sent = await send({ to: [first, second], cc: [kept], subject: 'Our offer', body: 'Hello' });
    expect(sent.status, sent.text).toBe(202);
    await deliverJobs(sent.sent);
    const receive = async (raw: string) => {
      const received = await call('POST', '/api/inbox/local/receive', {
        token: owner.token,
        body: { config_id: configId, raw },
      });
      expect(received.status, received.text).toBe(201);
    };
    await receive(report({ messageId: sent.body.data.message_id, blocks: [block(first, 'failed', '5.1.1')] }));
    expect(await messageRow(sent.body.data.id)).toMatchObject({ status: 'bounced' });
    // Each recipient's server reports on its own: the second report comes for a message `bounced` already.
    const secondReport = report({
      messageId: sent.body.data.message_id,
      inReplyTo: sent.body.data.message_id,
      blocks: [block(second.toUpperCase(), 'failed', '5.1.1')],
    });
    await receive(secondReport);
    expect(
      (await suppressions([first, second, kept].map((address) => address.toLowerCase()))).sort((a, b) =>
        a.address.localeCompare(b.address),
      ),
    ).toEqual(
      [first, second]
        .map((address) => ({ address: address.toLowerCase(), reason: 'bounced' }))
        .sort((a, b) => a.address.localeCompare(b.address)),
    );
    const bounced = await messageRow(sent.body.data.id);
    expect(bounced.status).toBe('bounced');
    const named = [first, second].map((address) => address.toLowerCase()).sort();
    expect(bounced.failureReason).toBe(
      `${BOUNCED_REASON_PREFIX}${named.join(', ')} (it is on the suppression list); nothing is known of any other recipient`,
    );
    expect(bounced.failureReason).not.toContain(kept.toLowerCase());
    // The same reports again (a list, a view, the same report delivered twice) change nothing.
    await receive(secondReport);
    await receive(report({ messageId: sent.body.data.message_id, blocks: [block(first, 'failed', '5.1.1')] }));
    expect(await messageRow(sent.body.data.id)).toEqual(bounced);
  });

  it('without a status part, X-Failed-Recipients names the hard bounces (a report answering our message)', async () => {
    const address = uniqueEmail('failed-header');
    const sent = await send({ to: address, subject: 'Our offer', body: 'Hello' });
    await deliverJobs(sent.sent);
    const raw = [
      'From: Mail Delivery System <Mailer-Daemon@mx.example.net>',
      `To: ${repAddress}`,
      'Subject: Mail delivery failed: returning message to sender',
      `In-Reply-To: ${sent.body.data.message_id}`,
      `X-Failed-Recipients: ${address}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'This message was created automatically by mail delivery software.',
    ].join('\r\n');
    const received = await call('POST', '/api/inbox/local/receive', {
      token: owner.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    expect(await suppressions([address.toLowerCase()])).toEqual([
      { address: address.toLowerCase(), reason: 'bounced' },
    ]);
  });

  it('a report naming an address our message was not sent to, or answering no message of ours, suppresses nothing', async () => {
    const recipient = uniqueEmail('recipient');
    const stranger = uniqueEmail('stranger');
    const sent = await send({ to: recipient, subject: 'Our offer', body: 'Hello' });
    await deliverJobs(sent.sent);
    for (const raw of [
      report({ messageId: sent.body.data.message_id, blocks: [block(stranger, 'failed', '5.1.1')] }),
      report({ messageId: '<not-ours@example.org>', blocks: [block(recipient, 'failed', '5.1.1')] }),
    ]) {
      const received = await call('POST', '/api/inbox/local/receive', {
        token: owner.token,
        body: { config_id: configId, raw },
      });
      expect(received.status, received.text).toBe(201);
      expect(received.body.data.automated).toBe('bounce');
    }
    expect(await suppressions([recipient, stranger].map((address) => address.toLowerCase()))).toEqual([]);
  });
});
