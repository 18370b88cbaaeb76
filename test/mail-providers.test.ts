/**
 * The Gmail and Microsoft Graph adapters against their documented wire formats, with the network
 * mocked at fetch: the exact requests (URL, method, Authorization, body) and the documented
 * answers replayed, paging and errors included. Then the same providers behind the routes: an
 * account checked on add and stored sealed (no plaintext at rest, in a response or a log line),
 * a throttled provider answering 503 with Retry-After, refused credentials marking the account
 * needs_reconnect with one notice to its owner, and a queued send that goes out once.
 */
import { and, eq, sql } from 'drizzle-orm';
import { base64url } from 'jose';
import PostalMime from 'postal-mime';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { env } from 'cloudflare:workers';
import { withOwnDatabase } from '../src/db/client';
import { connections, mailMessages, mailSuppressions, notifications } from '../src/db/schema';
import { readConfig } from '../src/env';
import { RECONNECT_NOTICE_TYPE } from '../src/providers/connections';
import { ProviderFailure } from '../src/providers/failures';
import { gmailMailbox } from '../src/providers/mail/gmail';
import { SenderRefused } from '../src/providers/mail/bounces';
import type { OutgoingMail } from '../src/providers/mail/interface';
import { NDR_READS_PER_PAGE, outlookMailbox } from '../src/providers/mail/outlook';
import { expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { json, mockFetch } from './helpers/fetch-mock';

const token = async () => 'ya29.access-token';

const outgoing: OutgoingMail = {
  from: { address: 'rep@example.com', name: 'Rep' },
  to: ['grace@example.com'],
  cc: [],
  bcc: ['boss@example.com'],
  subject: 'Pricing',
  text: 'Hello',
  html: '<p>Hello</p>',
  messageId: '<m1@example.com>',
  inReplyTo: null,
  references: [],
  headers: {
    'List-Unsubscribe': '<https://api.example.com/api/v1/mail/unsubscribe/t>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  providerThreadId: null,
  replyToProviderMessageId: null,
};

afterEach(() => vi.restoreAllMocks());

describe('Gmail API adapter', () => {
  const api = 'https://gmail.googleapis.com/gmail/v1/users/me';

  it('verify reads users/me/profile with the bearer token', async () => {
    const seen = mockFetch([json(200, { emailAddress: 'rep@example.com', messagesTotal: 3, threadsTotal: 2 })]);
    await expect(gmailMailbox(token).verify()).resolves.toEqual({ address: 'rep@example.com' });
    expect(seen).toEqual([
      expect.objectContaining({ url: `${api}/profile`, method: 'GET', authorization: 'Bearer ya29.access-token' }),
    ]);
  });

  it('send posts raw = base64url of an RFC 5322 message, with the threadId of a reply', async () => {
    const seen = mockFetch([json(200, { id: '18c1', threadId: '18c0', labelIds: ['SENT'] })]);
    const sent = await gmailMailbox(token).send({
      ...outgoing,
      providerThreadId: '18c0',
      inReplyTo: '<x@y>',
      references: ['<x@y>'],
    });
    expect(sent).toEqual({ providerMessageId: '18c1', providerThreadId: '18c0' });
    expect(seen[0]).toMatchObject({
      url: `${api}/messages/send`,
      method: 'POST',
      authorization: 'Bearer ya29.access-token',
    });
    const body = JSON.parse(seen[0].body) as { raw: string; threadId: string };
    expect(body.threadId).toBe('18c0');
    expect(body.raw).toMatch(/^[A-Za-z0-9_-]+$/);
    const mime = new TextDecoder().decode(
      Uint8Array.from(atob(body.raw.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
    );
    const parsed = await PostalMime.parse(mime);
    expect([parsed.messageId, parsed.inReplyTo, parsed.subject, parsed.html?.trim(), parsed.text?.trim()]).toEqual([
      '<m1@example.com>',
      '<x@y>',
      'Pricing',
      '<p>Hello</p>',
      'Hello',
    ]);
    expect(mime).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    expect(mime).toMatch(/^Bcc: <boss@example.com>\r$/m);
  });

  it('list pages with labelIds, q and pageToken, reading each message’s metadata', async () => {
    const seen = mockFetch([
      json(200, { messages: [{ id: 'a1', threadId: 't1' }], nextPageToken: 'page-2', resultSizeEstimate: 2 }),
      json(200, {
        id: 'a1',
        threadId: 't1',
        labelIds: ['INBOX', 'UNREAD'],
        snippet: 'Sounds good',
        internalDate: '1767225600000',
        payload: {
          headers: [
            { name: 'From', value: 'Grace Hopper <grace@example.com>' },
            { name: 'To', value: 'rep@example.com' },
            { name: 'Subject', value: 'Re: Pricing' },
            { name: 'Message-ID', value: '<r1@example.com>' },
            { name: 'In-Reply-To', value: '<m1@example.com>' },
            { name: 'Reply-To', value: 'Grace Hopper <grace@work.example.com>' },
          ],
        },
      }),
    ]);
    const page = await gmailMailbox(token).list({
      folder: 'inbox',
      search: 'pricing',
      unreadOnly: true,
      after: new Date('2026-01-01T00:00:00Z'),
      limit: 1,
      pageToken: 'page-1',
    });
    const list = new URL(seen[0].url);
    expect(list.origin + list.pathname).toBe(`${api}/messages`);
    expect(Object.fromEntries(list.searchParams)).toEqual({
      maxResults: '1',
      labelIds: 'INBOX',
      q: 'pricing is:unread after:1767225600',
      pageToken: 'page-1',
    });
    const get = new URL(seen[1].url);
    expect(get.pathname).toBe('/gmail/v1/users/me/messages/a1');
    expect(get.searchParams.get('format')).toBe('metadata');
    expect(get.searchParams.getAll('metadataHeaders')).toEqual(
      expect.arrayContaining(['In-Reply-To', 'Reply-To', 'Auto-Submitted', 'Content-Type', 'X-Failed-Recipients']),
    );
    expect(page).toEqual({
      nextPageToken: 'page-2',
      messages: [
        expect.objectContaining({
          id: 'a1',
          thread_id: 't1',
          from: { address: 'grace@example.com', name: 'Grace Hopper' },
          in_reply_to: '<m1@example.com>',
          is_read: false,
          date: '2026-01-01T00:00:00.000Z',
          automated: null,
          reply_to: ['grace@work.example.com'],
        }),
      ],
    });
  });

  it('a bounce lists the hard-bounced recipients of X-Failed-Recipients; viewed whole, its delivery report decides', async () => {
    mockFetch([
      json(200, { messages: [{ id: 'b1', threadId: 't1' }] }),
      json(200, {
        id: 'b1',
        threadId: 't1',
        labelIds: ['INBOX'],
        payload: {
          headers: [
            { name: 'From', value: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>' },
            { name: 'Subject', value: 'Delivery Status Notification (Failure)' },
            { name: 'X-Failed-Recipients', value: 'Gone@example.org, blocked@example.org' },
          ],
        },
      }),
    ]);
    const page = await gmailMailbox(token).list({ folder: 'inbox', unreadOnly: false, limit: 1 });
    expect(page.messages[0]).toMatchObject({
      automated: 'bounce',
      bounce: { hard_bounced: ['gone@example.org', 'blocked@example.org'], original_message_id: null },
    });
    vi.mocked(globalThis.fetch).mockRestore();
    const raw = [
      'From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>',
      'To: rep@example.com',
      'Subject: Delivery Status Notification (Failure)',
      'X-Failed-Recipients: gone@example.org, blocked@example.org',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Final-Recipient: rfc822; gone@example.org',
      'Action: failed',
      'Status: 5.1.1',
      '',
      'Final-Recipient: rfc822; blocked@example.org',
      'Action: failed',
      'Status: 5.7.1',
      '',
      '--b',
      'Content-Type: message/rfc822',
      '',
      'Message-ID: <m1@example.com>',
      'Subject: Pricing',
      '',
      'Hello',
      '--b--',
      '',
    ].join('\r\n');
    mockFetch([json(200, { id: 'b1', threadId: 't1', labelIds: ['INBOX'], raw: base64url.encode(raw) })]);
    await expect(gmailMailbox(token).view('b1')).resolves.toMatchObject({
      automated: 'bounce',
      bounce: { hard_bounced: ['gone@example.org'], original_message_id: '<m1@example.com>' },
    });
  });

  it('a 429 is temporary with its Retry-After; a 401 is an auth failure; neither keeps the body', async () => {
    mockFetch([json(429, { error: { code: 429, message: 'Rate Limit Exceeded' } }, { 'retry-after': '17' })]);
    const throttled = await gmailMailbox(token)
      .verify()
      .catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(ProviderFailure);
    expect(throttled).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 17 });
    expect(String((throttled as Error).message)).not.toContain('Rate Limit Exceeded');
    vi.restoreAllMocks();
    mockFetch([json(401, { error: { code: 401, status: 'UNAUTHENTICATED' } })]);
    await expect(gmailMailbox(token).verify()).rejects.toMatchObject({ kind: 'auth', status: 401 });
  });
});

describe('Microsoft Graph adapter', () => {
  const graph = 'https://graph.microsoft.com/v1.0';

  it('sendMail takes the MIME message base64-encoded as text/plain and answers 202 without a body', async () => {
    const seen = mockFetch([new Response(null, { status: 202 })]);
    await expect(outlookMailbox(token).send(outgoing)).resolves.toEqual({
      providerMessageId: null,
      providerThreadId: null,
    });
    expect(seen[0]).toMatchObject({
      url: `${graph}/me/sendMail`,
      method: 'POST',
      authorization: 'Bearer ya29.access-token',
      contentType: 'text/plain',
    });
    const mime = atob(seen[0].body);
    expect(mime).toMatch(/^Message-ID: <m1@example.com>\r$/m);
    expect(mime).toMatch(/^List-Unsubscribe: <https:\/\/api\.example\.com\/api\/v1\/mail\/unsubscribe\/t>\r$/m);
  });

  it('a reply goes through messages/{id}/reply with the HTML body', async () => {
    const seen = mockFetch([new Response(null, { status: 202 })]);
    await outlookMailbox(token).send({ ...outgoing, replyToProviderMessageId: 'AAMkAD=' });
    expect(seen[0]).toMatchObject({
      url: `${graph}/me/messages/AAMkAD%3D/reply`,
      method: 'POST',
      contentType: 'application/json',
    });
    expect(JSON.parse(seen[0].body)).toEqual({ message: { body: { contentType: 'HTML', content: '<p>Hello</p>' } } });
  });

  it('a 403 ErrorSendAsDenied on sendMail or a reply refuses the sender (SenderRefused), not the token; another 403 is the token’s', async () => {
    const denied = () =>
      json(403, {
        error: {
          code: 'ErrorSendAsDenied',
          message:
            'The user account which was used to submit this request does not have the right to send mail on behalf of the specified sending account., Cannot submit message.',
        },
      });
    for (const mail of [outgoing, { ...outgoing, replyToProviderMessageId: 'AAMkAD=' }]) {
      mockFetch([denied()]);
      const refused = await outlookMailbox(token)
        .send(mail)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SenderRefused);
      expect(refused).toMatchObject({
        kind: 'rejected',
        status: 403,
        code: 'ErrorSendAsDenied',
        address: 'rep@example.com',
      });
      expect((refused as SenderRefused).reason).not.toContain('does not have the right');
      vi.mocked(globalThis.fetch).mockRestore();
    }
    mockFetch([json(403, { error: { code: 'ErrorAccessDenied', message: 'Access is denied.' } })]);
    const token403 = await outlookMailbox(token)
      .send(outgoing)
      .catch((error: unknown) => error);
    expect(token403).not.toBeInstanceOf(SenderRefused);
    expect(token403).toMatchObject({ kind: 'auth', status: 403 });
  });

  it('findSent looks for our Message-ID among the sent items (before a send is tried again)', async () => {
    const seen = mockFetch([
      json(200, { value: [{ id: 'AAMk-sent', conversationId: 'conv-9' }] }),
      json(200, { value: [] }),
    ]);
    await expect(outlookMailbox(token).findSent?.('<m1@example.com>')).resolves.toEqual({
      providerMessageId: 'AAMk-sent',
      providerThreadId: 'conv-9',
    });
    const url = new URL(seen[0].url);
    expect(url.origin + url.pathname).toBe(`${graph}/me/mailFolders/sentitems/messages`);
    expect(url.searchParams.get('$filter')).toBe("internetMessageId eq '<m1@example.com>'");
    await expect(outlookMailbox(token).findSent?.('<m2@example.com>')).resolves.toBeNull();
  });

  it('a search keeps the other filters: the days in the KQL, unreadOnly on the page (Graph takes no $filter with $search)', async () => {
    const message = (id: string, isRead: boolean) => ({
      id,
      subject: 'Pricing',
      from: { emailAddress: { address: 'grace@example.com' } },
      receivedDateTime: '2026-01-02T10:00:00Z',
      isRead,
    });
    const seen = mockFetch([json(200, { value: [message('AAMk-read', true), message('AAMk-unread', false)] })]);
    const page = await outlookMailbox(token).list({
      folder: 'inbox',
      search: 'pricing "plans"',
      unreadOnly: true,
      after: new Date('2026-01-01T00:00:00Z'),
      before: new Date('2026-01-03T00:00:00Z'),
      limit: 2,
    });
    const url = new URL(seen[0].url);
    expect(url.searchParams.get('$search')).toBe('"pricing plans AND received>=2026-01-01 AND received<2026-01-03"');
    expect(url.searchParams.get('$filter')).toBeNull();
    expect(page.messages.map((entry) => entry.id)).toEqual(['AAMk-unread']);
  });

  it('a non-delivery report is told by its class (REPORT.IPM.Note.NDR) and read whole ($value) for its delivery-status part', async () => {
    // As Exchange files it: sent by "Microsoft Outlook" (no MAILER-DAEMON), no X-Failed-Recipients,
    // no Content-Type among its internetMessageHeaders; only its message class tells it.
    const ndr = (id: string) => ({
      id,
      conversationId: 'conv-1',
      subject: 'Undeliverable: Pricing',
      from: {
        emailAddress: {
          name: 'Microsoft Outlook',
          address: 'MicrosoftExchange329e71ec88ae4615bbc36ab6ce41109e@contoso.com',
        },
      },
      receivedDateTime: '2026-01-02T10:00:00Z',
      isRead: false,
      internetMessageHeaders: [{ name: 'In-Reply-To', value: '<m1@example.com>' }],
      singleValueExtendedProperties: [{ id: 'String 0x1a', value: 'REPORT.IPM.Note.NDR' }],
    });
    const person = {
      id: 'AAMk-person',
      subject: 'Re: Pricing',
      from: { emailAddress: { address: 'grace@example.com' } },
      singleValueExtendedProperties: [{ id: 'String 0x1a', value: 'IPM.Note' }],
    };
    // [MS-OXCMAIL] Delivery Status Notifications: the MIME writer's report, a block per recipient.
    const mime = [
      'From: Microsoft Outlook <MicrosoftExchange329e71ec88ae4615bbc36ab6ce41109e@contoso.com>',
      'To: rep@contoso.com',
      'Subject: Undeliverable: Pricing',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="ndr"',
      '',
      '--ndr',
      'Content-Type: text/plain; charset="us-ascii"',
      '',
      "Your message to gone@example.org couldn't be delivered.",
      '--ndr',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns;AM0PR01MB1234.eurprd01.prod.exchangelabs.com',
      '',
      'Final-Recipient: rfc822;gone@example.org',
      'Action: failed',
      'Status: 5.1.10',
      'Diagnostic-Code: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
      '',
      'Final-Recipient: rfc822;blocked@example.org',
      'Action: failed',
      'Status: 5.7.1',
      '',
      '--ndr',
      'Content-Type: text/rfc822-headers',
      '',
      'From: Rep <rep@contoso.com>',
      'Message-ID: <m1@example.com>',
      'Subject: Pricing',
      '--ndr--',
      '',
    ].join('\r\n');
    const ndrs = ['AAMk-ndr1', 'AAMk-ndr2', 'AAMk-ndr3', 'AAMk-ndr4', 'AAMk-ndr5', 'AAMk-ndr6'].map(ndr);
    const seen = mockFetch([
      json(200, { value: [person, ...ndrs] }),
      ...ndrs.map(() => new Response(mime, { status: 200, headers: { 'content-type': 'text/plain' } })),
    ]);
    const page = await outlookMailbox(token).list({ folder: 'inbox', unreadOnly: false, limit: 7 });
    expect(new URL(seen[0].url).searchParams.get('$expand')).toBe(
      "singleValueExtendedProperties($filter=id eq 'String 0x001A')",
    );
    // The reports' MIME, one at a time, at most NDR_READS_PER_PAGE a page; the person's message is not read.
    expect(seen.slice(1).map((request) => request.url)).toEqual(
      ndrs.slice(0, NDR_READS_PER_PAGE).map((message) => `${graph}/me/messages/${message.id}/$value`),
    );
    expect(page.messages[0]).toMatchObject({ id: 'AAMk-person', automated: null });
    expect(page.messages[1]).toMatchObject({
      id: 'AAMk-ndr1',
      automated: 'bounce',
      bounce: { hard_bounced: ['gone@example.org'], original_message_id: '<m1@example.com>' },
    });
    // The sixth is a bounce all the same (its class); a view reads its report.
    expect(page.messages[6]).toMatchObject({ id: 'AAMk-ndr6', automated: 'bounce', bounce: { hard_bounced: [] } });

    vi.mocked(globalThis.fetch).mockRestore();
    const viewed = mockFetch([
      json(200, { ...ndrs[5], body: { contentType: 'text', content: 'Undeliverable' } }),
      new Response(mime),
    ]);
    await expect(outlookMailbox(token).view('AAMk-ndr6')).resolves.toMatchObject({
      automated: 'bounce',
      bounce: { hard_bounced: ['gone@example.org'], original_message_id: '<m1@example.com>' },
    });
    expect(new URL(viewed[0].url).searchParams.get('$expand')).toContain('String 0x001A');
    expect(viewed[1].url).toBe(`${graph}/me/messages/AAMk-ndr6/$value`);
  });

  it('a report whose MIME cannot be read now is a bounce by its headers; a refused token is not swallowed', async () => {
    const ndr = {
      id: 'AAMk-ndr',
      subject: 'Undeliverable: Pricing',
      internetMessageHeaders: [{ name: 'X-Failed-Recipients', value: 'gone@example.org' }],
      singleValueExtendedProperties: [{ id: 'String 0x001A', value: 'REPORT.IPM.Note.NDR' }],
    };
    mockFetch([json(200, { value: [ndr] }), json(404, { error: { code: 'ErrorItemNotFound' } })]);
    const page = await outlookMailbox(token).list({ folder: 'inbox', unreadOnly: false, limit: 1 });
    expect(page.messages[0]).toMatchObject({ automated: 'bounce', bounce: { hard_bounced: ['gone@example.org'] } });
    vi.mocked(globalThis.fetch).mockRestore();
    mockFetch([json(200, { value: [ndr] }), json(401, { error: { code: 'InvalidAuthenticationToken' } })]);
    await expect(outlookMailbox(token).list({ folder: 'inbox', unreadOnly: false, limit: 1 })).rejects.toMatchObject({
      kind: 'auth',
    });
  });

  it('lists mailFolders/{folder}/messages with $top and $filter, and follows @odata.nextLink only on Graph', async () => {
    const next = `${graph}/me/mailFolders/inbox/messages?$skip=1`;
    const seen = mockFetch([
      json(200, {
        value: [
          {
            id: 'AAMk1',
            conversationId: 'conv-1',
            internetMessageId: '<r1@example.com>',
            subject: 'Re: Pricing',
            bodyPreview: 'Yes',
            from: { emailAddress: { name: 'Grace', address: 'grace@example.com' } },
            toRecipients: [{ emailAddress: { address: 'rep@example.com' } }],
            replyTo: [{ emailAddress: { address: 'grace@work.example.com' } }],
            receivedDateTime: '2026-01-02T10:00:00Z',
            isRead: false,
            internetMessageHeaders: [{ name: 'In-Reply-To', value: '<m1@example.com>' }],
          },
          {
            id: 'AAMk2',
            conversationId: 'conv-1',
            subject: 'Automatic reply: Pricing',
            from: { emailAddress: { name: 'Grace', address: 'grace@example.com' } },
            internetMessageHeaders: [
              { name: 'In-Reply-To', value: '<m1@example.com>' },
              { name: 'auto-submitted', value: 'auto-replied' },
            ],
          },
        ],
        '@odata.nextLink': next,
      }),
    ]);
    const page = await outlookMailbox(token).list({ folder: 'inbox', unreadOnly: true, limit: 1 });
    const url = new URL(seen[0].url);
    expect(url.origin + url.pathname).toBe(`${graph}/me/mailFolders/inbox/messages`);
    expect(url.searchParams.get('$top')).toBe('1');
    expect(url.searchParams.get('$filter')).toBe('isRead eq false');
    expect(page.nextPageToken).toBe(next);
    expect(page.messages[0]).toMatchObject({
      id: 'AAMk1',
      thread_id: 'conv-1',
      in_reply_to: '<m1@example.com>',
      is_read: false,
      automated: null,
      reply_to: ['grace@work.example.com'],
    });
    expect(page.messages[1]).toMatchObject({ id: 'AAMk2', automated: 'auto_reply' });
    await outlookMailbox(token).list({ folder: 'inbox', unreadOnly: false, limit: 1, pageToken: next });
    expect(seen[1].url).toBe(next);
    await expect(
      outlookMailbox(token).list({
        folder: 'inbox',
        unreadOnly: false,
        limit: 1,
        pageToken: 'https://evil.example/steal',
      }),
    ).rejects.toMatchObject({ kind: 'rejected' });
    expect(seen).toHaveLength(2);
  });
});

describe('a Gmail account behind the routes', () => {
  let owner: SignedUp;
  let configId: number;
  const address = uniqueEmail('gmail-rep');
  const accessToken = 'ya29.secret-access-token-never-shown';
  const refreshToken = '1//secret-refresh-token-never-shown';

  beforeAll(async () => {
    owner = await signupOrganization('Gmail');
  });

  /** Through this module's Worker, so the fetch mock sees the provider calls the route makes. */
  const route = (method: string, path: string, body?: unknown) =>
    requestRecordingJobs(method, path, { token: owner.token, body });

  it('is checked with users/me/profile, then stored sealed: no token in the row, the response or a log line', async () => {
    const logged: string[] = [];
    for (const level of ['log', 'error', 'warn'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    }
    const wrong = mockFetch([json(200, { emailAddress: 'someone-else@example.com' })]);
    const mismatch = await route('POST', '/api/mail-configurations/add', {
      mailer: 'gmail',
      from_address: address,
      from_name: 'Rep',
      password: accessToken,
    });
    expectFailure(mismatch, 422, 'validation_error');
    expect(mismatch.body.error.code).toBe('from_address');
    expect(wrong[0].authorization).toBe(`Bearer ${accessToken}`);
    vi.mocked(globalThis.fetch).mockRestore();
    mockFetch([json(401, { error: { code: 401 } })]);
    const refused = await route('POST', '/api/mail-configurations/add', {
      mailer: 'gmail',
      from_address: address,
      from_name: 'Rep',
      password: 'bad-token',
    });
    expectFailure(refused, 422, 'validation_error');
    expect(refused.body.error.code).toBe('password');
    vi.mocked(globalThis.fetch).mockRestore();
    mockFetch([json(200, { emailAddress: address })]);
    const added = await route('POST', '/api/mail-configurations/add', {
      mailer: 'gmail',
      from_address: address,
      from_name: 'Rep',
      password: accessToken,
      refresh_token: refreshToken,
      expires_in: 3600,
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({ mailer: 'gmail', state: 'active', has_refresh_token: true });
    configId = added.body.data.id;
    const listed = await route('GET', '/api/mail-configurations/list');
    const [row] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, configId)),
    );
    for (const text of [added.text, listed.text, JSON.stringify(row), logged.join('\n')]) {
      expect(text).not.toContain(accessToken);
      expect(text).not.toContain(refreshToken);
      expect(text).not.toContain('secret-');
    }
    expect(row.secret).toMatch(/^v1\.[0-9a-f]{16}\./);
  });

  it('a throttled Gmail answers the inbox list with 503 provider_unavailable and its Retry-After', async () => {
    mockFetch([json(429, { error: { code: 429 } }, { 'retry-after': '42' })]);
    const listed = await route('GET', `/api/inbox/list?config_id=${configId}`);
    expectFailure(listed, 503, 'service_unavailable');
    expect(listed.body.error.code).toBe('provider_unavailable');
    expect(listed.headers.get('retry-after')).toBe('42');
  });

  it('a queued send goes out once through messages.send, even delivered twice', async () => {
    const seen = mockFetch([json(200, { id: 'g-sent-1', threadId: 'g-thread-1', labelIds: ['SENT'] })]);
    const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to: uniqueEmail('to'), subject: 'Hello', body: 'Hi there' },
    });
    expect(queued.status, queued.text).toBe(202);
    expect(seen).toHaveLength(0);
    await deliverJobs(queued.sent);
    await deliverJobs(queued.sent, 2);
    expect(seen.filter((request) => request.url.endsWith('/messages/send'))).toHaveLength(1);
    const [row] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.id, queued.body.data.id)),
    );
    expect(row).toMatchObject({ status: 'sent', providerMessageId: 'g-sent-1', providerThreadId: 'g-thread-1' });
  });

  it('a send Gmail answered 503 is looked for in the mailbox before it is sent again, so it never goes twice', async () => {
    // Gmail answered 503 to messages.send but had sent the message: the retry finds it by its Message-ID.
    const first = mockFetch([
      json(503, { error: { code: 503, message: 'backendError' } }),
      json(200, { messages: [{ id: 'g-sent-2', threadId: 'g-thread-2' }], resultSizeEstimate: 1 }),
    ]);
    const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to: uniqueEmail('to'), subject: 'Retried', body: 'Once only' },
    });
    expect(queued.status, queued.text).toBe(202);
    await deliverJobs(queued.sent);
    await deliverJobs(queued.sent, 2);
    expect(first.filter((request) => request.url.endsWith('/messages/send'))).toHaveLength(1);
    const lookup = new URL(first[1].url);
    expect(lookup.pathname).toBe('/gmail/v1/users/me/messages');
    expect(lookup.searchParams.get('q')).toBe(`rfc822msgid:${queued.body.data.message_id.slice(1, -1)}`);
    const [found] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.id, queued.body.data.id)),
    );
    expect(found).toMatchObject({ status: 'sent', providerMessageId: 'g-sent-2', providerThreadId: 'g-thread-2' });

    // Not in the mailbox: it was not sent, so the retry sends it.
    vi.mocked(globalThis.fetch).mockRestore();
    const second = mockFetch([
      json(503, { error: { code: 503 } }),
      json(200, { resultSizeEstimate: 0 }),
      json(200, { id: 'g-sent-3', threadId: 'g-thread-3' }),
    ]);
    const again = await requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to: uniqueEmail('to'), subject: 'Retried too', body: 'Once' },
    });
    await deliverJobs(again.sent);
    await deliverJobs(again.sent, 2);
    expect(second.filter((request) => request.url.endsWith('/messages/send'))).toHaveLength(2);
    const [sent] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.id, again.body.data.id)),
    );
    expect(sent).toMatchObject({ status: 'sent', providerMessageId: 'g-sent-3' });
  });

  it('a send to the recipients left, whose answer was lost, is recorded as sent to them, not to the address left out', async () => {
    const [gone, kept] = [uniqueEmail('left-out'), uniqueEmail('kept')];
    const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to: [gone, kept], subject: 'Lost answer', body: 'Hello' },
    });
    expect(queued.status, queued.text).toBe(202);
    // Unsubscribed after the send was queued: the job leaves the address out.
    await inOrganization(owner.orgId, (tx) =>
      tx
        .insert(mailSuppressions)
        .values({ organizationId: owner.orgId, address: gone.toLowerCase(), reason: 'unsubscribed' }),
    );
    // Gmail took the message to `kept` but its answer was lost (503); the retry finds it sent.
    const seen = mockFetch([
      json(503, { error: { code: 503, message: 'backendError' } }),
      json(200, { messages: [{ id: 'g-sent-left', threadId: 'g-thread-left' }], resultSizeEstimate: 1 }),
    ]);
    await deliverJobs(queued.sent);
    await deliverJobs(queued.sent, 2);
    const sends = seen.filter((request) => request.url.endsWith('/messages/send'));
    expect(sends).toHaveLength(1);
    const raw = (sends[0].json as { raw: string }).raw;
    const mime = Uint8Array.from(atob(raw.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const went = await PostalMime.parse(mime);
    expect(went.to?.map((to) => to.address)).toEqual([kept]);
    const [row] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.id, queued.body.data.id)),
    );
    expect(row).toMatchObject({
      status: 'sent',
      providerMessageId: 'g-sent-left',
      toAddresses: [kept],
      suppressed: [gone.toLowerCase()],
    });
  });

  it('a delivery that died after handing a message to Gmail is settled by asking Gmail, not left failed “may have been sent”', async () => {
    for (const [found, sends] of [
      [true, 0],
      [false, 1],
    ] as const) {
      vi.restoreAllMocks();
      const seen = mockFetch([
        json(200, found ? { messages: [{ id: 'g-late', threadId: 'g-late-thread' }] } : { resultSizeEstimate: 0 }),
        json(200, { id: 'g-resent', threadId: 'g-resent-thread' }),
      ]);
      const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: owner.token,
        body: { config_id: configId, to: uniqueEmail('to'), subject: `Interrupted ${found}`, body: 'Hi' },
      });
      expect(queued.status, queued.text).toBe(202);
      // A first delivery claimed it and died before recording the provider's answer.
      await inOrganization(owner.orgId, (tx) =>
        tx
          .update(mailMessages)
          .set({ status: 'sending', attempts: 1, updatedAt: sql`now() - interval '10 minutes'` })
          .where(eq(mailMessages.id, queued.body.data.id)),
      );
      await deliverJobs(queued.sent, 2);
      expect(seen.filter((request) => request.url.endsWith('/messages/send'))).toHaveLength(sends);
      const [row] = await inOrganization(owner.orgId, (tx) =>
        tx.select().from(mailMessages).where(eq(mailMessages.id, queued.body.data.id)),
      );
      expect(row).toMatchObject({
        status: 'sent',
        failureReason: null,
        providerMessageId: found ? 'g-late' : 'g-resent',
      });
    }
  });

  it('refused credentials mark the account needs_reconnect, notify its owner once, and answer 409 naming it', async () => {
    mockFetch([json(401, { error: { code: 401 } })]);
    const first = await route('GET', `/api/inbox/list?config_id=${configId}`);
    expectFailure(first, 409, 'conflict');
    expect(first.body.error).toMatchObject({
      code: 'connection_needs_reconnect',
      details: { connection_id: configId, provider: 'gmail' },
    });
    const again = await route('GET', `/api/inbox/list?config_id=${configId}`);
    expect(again.body.error.code).toBe('connection_needs_reconnect');
    const queued = await requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to: uniqueEmail('to'), subject: 'Hello', body: 'Hi' },
    });
    expect(queued.status).toBe(409);
    const listed = await route('GET', '/api/mail-configurations/list?state_id=2');
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: configId, state: 'needs_reconnect', state_id: 2 }),
    ]);
    const notices = await inOrganization(owner.orgId, (tx) =>
      tx
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, owner.userId), eq(notifications.typeId, RECONNECT_NOTICE_TYPE))),
    );
    expect(notices).toHaveLength(1);
  });
});

describe('a mail account connect retried with an Idempotency-Key', () => {
  it('replays the account and keeps its tokens out of idempotency_keys (read as the database owner)', async () => {
    const own = await signupOrganization('Gmail retry');
    const address = uniqueEmail('gmail-retry');
    const accessToken = 'ya29.retried-access-token-secret';
    const refreshToken = '1//retried-refresh-token-secret';
    const send = () =>
      requestRecordingJobs('POST', '/api/mail-configurations/add', {
        token: own.token,
        headers: { 'idempotency-key': 'mail-connect-1' },
        body: {
          mailer: 'gmail',
          from_address: address,
          from_name: 'Rep',
          password: accessToken,
          refresh_token: refreshToken,
        },
      });
    mockFetch([json(200, { emailAddress: address })]);
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retried = await send();
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body.data.id).toBe(first.body.data.id);
    const stored = await withOwnDatabase(readConfig(env), (db) =>
      db.execute<{ body: string }>(sql`select body from idempotency_keys where organization_id = ${own.orgId}`),
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].body).not.toContain(accessToken);
    expect(stored.rows[0].body).not.toContain(refreshToken);
  });
});
