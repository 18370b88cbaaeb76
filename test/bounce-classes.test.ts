/**
 * Which delivery failures are hard bounces (the address goes on the suppression list) and which
 * are soft (src/providers/mail/bounces.ts bounceClass, the table in docs/domains/mail.md): each
 * class as a relay answers it at RCPT TO and as a delivery report (RFC 3464) states it, Exchange's
 * rewritten statuses included. Pure functions: nothing to mock.
 */
import { describe, expect, it } from 'vitest';
import { bounceClass, hardFailedInReport, isSenderRefusal } from '../src/providers/mail/bounces';

/** A delivery-status part with one block per recipient: [address, Status, Diagnostic-Code?]. */
function report(blocks: [string, string, string?][]) {
  return [
    'Reporting-MTA: dns;AM0PR01MB1234.eurprd01.prod.exchangelabs.com',
    '',
    ...blocks.flatMap(([address, status, diagnostic]) => [
      `Final-Recipient: rfc822;${address}`,
      'Action: failed',
      `Status: ${status}`,
      ...(diagnostic ? [`Diagnostic-Code: ${diagnostic}`] : []),
      '',
    ]),
  ].join('\r\n');
}

describe('hard and soft bounces', () => {
  it('a permanent failure of the recipient’s address is hard: 5.1.x (but the sender’s), 5.2.1 disabled', () => {
    for (const code of ['5.1.0', '5.1.1', '5.1.2', '5.1.3', '5.1.4', '5.1.6', '5.1.10', '5.2.1']) {
      expect(bounceClass('550', code), code).toBe('hard');
      expect(hardFailedInReport(report([['gone@example.org', code]])), code).toEqual(['gone@example.org']);
    }
    // Exchange Online's "recipient not found", as its reports and its RCPT TO answer write it.
    expect(
      bounceClass('550', '5.1.10', 'RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup'),
    ).toBe('hard');
  });

  it('the sender’s own address or limits (5.1.7, 5.1.8, Exchange’s 5.1.20 and 5.1.90) are not the recipient’s fault', () => {
    for (const code of ['5.1.5', '5.1.7', '5.1.8', '5.1.9', '5.1.20', '5.1.90']) {
      expect(bounceClass('550', code), code).toBe('soft');
      expect(hardFailedInReport(report([['kept@example.org', code]])), code).toEqual([]);
    }
  });

  it('Exchange Online’s “550 5.1.0 Sender denied” is about our sender: the recipient is not suppressed', () => {
    // 5.1.0 is "other address status" (RFC 3463): its words say whose address it is.
    expect(bounceClass('550', '5.1.0', '550 5.1.0 Sender denied')).toBe('soft');
    expect(bounceClass(undefined, undefined, "Remote Server returned '550 5.1.0 Sender denied'")).toBe('soft');
    // Microsoft's diagnostic for the same code: the sending domain's SPF record.
    expect(bounceClass('550', '5.1.0', 'Recipient address rejected: SPF Permanent Error')).toBe('soft');
    expect(bounceClass('550', undefined, '550 Sender denied')).toBe('soft');
    expect(
      hardFailedInReport(
        report([
          ['kept@example.org', '5.1.0', 'smtp;550 5.1.0 Sender denied'],
          ['gone@example.org', '5.1.0', 'smtp;550 5.1.0 <gone@example.org>: Recipient address rejected: User unknown'],
        ]),
      ),
    ).toEqual(['gone@example.org']);
    // Routing (5.4.4, Exchange's SMTPSEND.DNS.NonExistentDomain or MxLoopback) stays soft.
    expect(bounceClass('554', '5.4.4', '554 5.4.4 SMTPSEND.DNS.NonExistentDomain; nonexistent domain')).toBe('soft');
  });

  it('Exchange’s rewritten statuses: a generic 5.0.0 or its 5.4.1 edge block still says recipient not found', () => {
    const reported = hardFailedInReport(
      report([
        // Its MIME writer turns a diagnostic it has no code for into 5.0.0; the remote answer stays in Diagnostic-Code.
        [
          'online@example.org',
          '5.0.0',
          'smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
        ],
        ['onprem@example.org', '5.0.0', 'smtp;550 5.1.1 RESOLVER.ADR.ExRecipNotFound; not found'],
        // Directory-based edge blocking: 5.4.1 ("no answer from host" in RFC 3463) with its own words.
        ['dbeb@example.org', '5.4.1', 'smtp;550 5.4.1 Recipient address rejected: Access denied. AS(201806281)'],
        ['plain@example.org', '5.0.0', 'smtp;550 Requested action not taken: mailbox unavailable'],
        // Generic too, but what the server said is a policy refusal or a full mailbox.
        ['spam@example.org', '5.0.0', 'smtp;550 5.7.1 Message rejected as spam'],
        ['full@example.org', '5.0.0', 'smtp;552 5.2.2 STOREDRV.Deliver; mailbox full'],
        ['blocked@example.org', '5.0.0', 'smtp;550 Blocked by policy'],
        ['bare@example.org', '5.0.0'],
      ]),
    );
    expect(reported).toEqual(['online@example.org', 'onprem@example.org', 'dbeb@example.org', 'plain@example.org']);
  });

  it('a full mailbox, a message too big, routing, protocol, content and policy refusals are soft', () => {
    const soft = [
      '5.2.0', // other mailbox status
      '5.2.2', // mailbox full (SES: Transient MailboxFull)
      '5.2.3', // message too long for the mailbox (SES: MessageTooLarge)
      '5.3.4', // message too big for the system
      '5.4.1', // no answer from host (without Exchange's edge-block words)
      '5.4.4', // unable to route
      '5.4.7', // delivery time expired
      '5.5.3', // too many recipients
      '5.6.0', // content refused (SES: ContentRejected)
      '5.7.1', // delivery not authorized, refused as spam (SendGrid's blocks)
      '5.7.26', // DMARC failed: the sender's domain
      '5.7.133', // Exchange: a restricted group refuses outside senders
    ];
    for (const code of soft) {
      expect(bounceClass('550', code), code).toBe('soft');
      expect(hardFailedInReport(report([['kept@example.org', code]])), code).toEqual([]);
    }
  });

  it('a transient failure is soft whatever it says; a bare 550/551/553 is hard unless it names a policy', () => {
    expect(bounceClass('450', undefined, '450 4.2.1 Mailbox temporarily disabled')).toBe('soft');
    expect(bounceClass(undefined, '4.4.7', 'RESOLVER.ADR.RecipNotFound')).toBe('soft');
    expect(bounceClass('451', '4.7.1', 'Greylisted')).toBe('soft');
    for (const basic of ['550', '551', '553'])
      expect(bounceClass(basic, undefined, 'No such user'), basic).toBe('hard');
    for (const words of [
      'Message rejected as spam',
      'Relaying denied',
      'Blocked: IP on a block list',
      'Sender rate limit exceeded',
    ]) {
      expect(bounceClass('550', undefined, words), words).toBe('soft');
    }
    expect(bounceClass('554', undefined, 'Transaction failed')).toBe('soft');
    expect(bounceClass('552', undefined, 'Mailbox full')).toBe('soft');
  });
});

describe('the account’s own mail service refusing the sender (isSenderRefusal)', () => {
  it('Exchange’s send-as and sender refusals, Gmail’s and Postfix’s, by their codes or words, permanent only', () => {
    const refusals: [string, string | undefined, string][] = [
      ['550', '5.1.0', '550 5.1.0 Sender denied'],
      ['550', '5.7.60', '550 5.7.60 SMTP; Client does not have permissions to send as this sender'],
      ['550', '5.7.1', '550 5.7.1 Client does not have permission to send as this sender'],
      ['550', '5.7.57', '550 5.7.57 Client not authenticated to send mail'],
      ['553', '5.7.1', '553 5.7.1 <>: Sender address rejected: not owned by user rep'],
      ['553', '5.7.1', '553 5.7.1 The user is not allowed to send as this address'],
      ['554', '5.2.0', '554 5.2.0 STOREDRV.Submission.Exception:SendAsDeniedException.MapiExceptionSendAsDenied'],
      ['550', '5.1.8', '550 5.1.8 Access denied, bad outbound sender'],
    ];
    for (const [reply, enhanced, text] of refusals) expect(isSenderRefusal(reply, enhanced, text), text).toBe(true);
    // MAIL FROM names nothing but our sender: its permanent refusal is the sender's, size and syntax aside.
    expect(isSenderRefusal('550', undefined, '550 Access denied', 'mail')).toBe(true);
    expect(isSenderRefusal('552', '5.3.4', '552 5.3.4 Message size exceeds fixed limit', 'mail')).toBe(false);
    expect(isSenderRefusal('550', '5.5.2', '550 5.5.2 Syntax error', 'mail')).toBe(false);
  });

  it('a recipient’s refusal, a policy refusal of the message, or a transient one is not the sender’s', () => {
    expect(isSenderRefusal('550', '5.1.1', '550 5.1.1 No such user here', 'rcpt')).toBe(false);
    expect(isSenderRefusal('550', '5.7.1', '550 5.7.1 Message refused as spam', 'rcpt')).toBe(false);
    expect(isSenderRefusal('550', undefined, '550 Access denied', 'rcpt')).toBe(false);
    expect(isSenderRefusal('451', '4.7.1', '451 4.7.1 Sender address rejected: try again later', 'mail')).toBe(false);
    expect(isSenderRefusal('421', undefined, '421 Sender denied, try later')).toBe(false);
  });
});
