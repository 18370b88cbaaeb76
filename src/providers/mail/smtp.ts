/**
 * An SMTP relay, send only, over `cloudflare:sockets` through worker-mailer (needs the
 * nodejs_compat flag, set in wrangler.toml). The library is young, so it stays behind this file:
 * it is imported only when an SMTP account is used (never at start-up, so the OpenAPI export and
 * the other providers do not load it), and replacing it touches nothing else. Verification opens
 * a session and authenticates (SMTP AUTH); a send opens one per message.
 *
 * A relay cannot be asked whether it sent a message (no findSent), so a retry must never be a
 * second copy: the Message-ID is ours, recorded with the message and the same on every attempt,
 * and a failure before the relay accepted DATA (connect, login, MAIL FROM, RCPT TO, DATA: nothing
 * was handed over) is retried, while one after the message was handed over and before the relay
 * answered it fails "may have been sent", never retried.
 */
import { ProviderFailure } from '../failures';
import { isHardFailure, RecipientsRefused } from './bounces';
import type { MailProvider, OutgoingMail } from './interface';
import { encodeHeaderWords, mailboxHeader } from './mime';

export interface SmtpSettings {
  host: string;
  port: number;
  /** `tls`: TLS from the start (port 465); `starttls`: upgrade after EHLO (587). */
  security: 'tls' | 'starttls';
}

export interface SmtpCredentials {
  username: string;
  password: string;
}

/**
 * worker-mailer's own messages for a login it could not make (its auth phase): the only texts,
 * besides the reply codes below, that mean the username or password is refused.
 */
const LOGIN_REFUSED =
  /^(Failed to (plain|login|cram-md5) authentication|Invalid login|No supported auth method|smtp server requires authentication)/i;

/** Reply codes that refuse the login (RFC 4954: 530 required, 534 too weak, 535 refused, 538 needs TLS). */
const LOGIN_CODES = new Set(['530', '534', '535', '538']);

/**
 * The relay's reply codes are the only detail kept: the server's text may echo what we sent.
 * worker-mailer's errors quote the command (`Invalid RCPT TO: <author@x.org> 550 …`): the
 * addresses in angle brackets are dropped before anything is read, so an address is never taken
 * for a refused login ("auth" in it) nor for the reply code (digits in it).
 */
function smtpFailure(error: unknown, what: string): ProviderFailure {
  const raw = error instanceof Error ? error.message : String(error);
  const text = raw.replace(/<[^<>]*>/g, '<>');
  const code = /(?:^|\s)([45]\d\d)(?=[\s-]|$)/.exec(text)?.[1];
  if ((code && LOGIN_CODES.has(code)) || LOGIN_REFUSED.test(text)) {
    return new ProviderFailure('auth', 'smtp', 535, 'the SMTP relay refused the username or password');
  }
  // A recipient refused for good at RCPT TO (`Invalid RCPT TO: <a@b> 550 5.1.1 …`): a hard bounce.
  // The address is ours (the one we sent), read before the relay's text is dropped.
  const refused = /^Invalid RCPT TO: <([^<>]*)>/.exec(raw);
  const enhanced = /(?:^|\s)[45]\d\d[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1];
  if (refused && code?.startsWith('5') && isHardFailure(code, enhanced, text)) {
    return new RecipientsRefused('smtp', [refused[1].toLowerCase()], Number(code), enhanced ?? null);
  }
  if (code?.startsWith('5')) {
    return new ProviderFailure('rejected', 'smtp', Number(code), `the SMTP relay refused the ${what} (${code})`);
  }
  return new ProviderFailure('unavailable', 'smtp', code ? Number(code) : null, `the SMTP relay is unavailable`, 60);
}

/** A send whose message the relay was handed without answering it: it may have gone out. */
export const HANDED_OVER_UNANSWERED =
  'The SMTP relay was handed the message but its answer was lost: it may have been sent; check the Sent folder before sending it again';

export function smtpRelay(settings: SmtpSettings, credentials: SmtpCredentials, from: string): MailProvider {
  const options = () => ({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    startTls: settings.security === 'starttls',
    credentials: { username: credentials.username, password: credentials.password },
    authType: ['plain', 'login'] as ('plain' | 'login')[],
    socketTimeoutMs: 15_000,
    responseTimeoutMs: 15_000,
  });
  const unsupported = () =>
    Promise.reject(
      new ProviderFailure('rejected', 'smtp', null, 'an SMTP account sends only: it has no inbox to read'),
    );
  return {
    mailer: 'smtp',
    async verify() {
      const { WorkerMailer } = await import('worker-mailer');
      try {
        const mailer = await WorkerMailer.connect(options());
        await mailer.close();
      } catch (error) {
        throw smtpFailure(error, 'login');
      }
      return { address: from };
    },
    async send(mail: OutgoingMail) {
      const { WorkerMailer } = await import('worker-mailer');
      // From and Subject are written here, not by worker-mailer: it quotes a name without escaping
      // it and leaves an ASCII subject as given, so a line break in either would start a header.
      const headers: Record<string, string> = {
        From: mailboxHeader(mail.from.address, mail.from.name),
        Subject: encodeHeaderWords(mail.subject),
        'Message-ID': mail.messageId,
        ...mail.headers,
      };
      if (mail.inReplyTo) headers['In-Reply-To'] = mail.inReplyTo;
      if (mail.references.length > 0) headers.References = mail.references.join(' ');
      let mailer: Awaited<ReturnType<typeof WorkerMailer.connect>>;
      try {
        mailer = await WorkerMailer.connect(options());
      } catch (error) {
        throw smtpFailure(error, 'message');
      }
      // Whether the relay accepted DATA (354) and was handed the message: from then on, a failure
      // without the relay's answer to it (a timeout, a lost connection) leaves it unknown whether
      // the message was taken (RFC 5321 §6.1, the "duplicate messages" problem of RFC 1047).
      let handedOver = false;
      const stages = mailer as unknown as { body: () => Promise<void> };
      const body = stages.body.bind(mailer);
      stages.body = () => {
        handedOver = true;
        return body();
      };
      try {
        await mailer.send({
          from: mail.from.name ? { name: mail.from.name, email: mail.from.address } : mail.from.address,
          to: mail.to,
          ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
          ...(mail.bcc.length > 0 ? { bcc: mail.bcc } : {}),
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers,
        });
      } catch (error) {
        void mailer.close().catch(() => undefined);
        // The relay answered the message itself (`Failed send email body: 451 …`): it was not
        // taken, and the answer says whether to retry. Without that answer it may have been
        // delivered: never retried (a retry would be a second copy; its Message-ID is the same,
        // but few receivers drop a duplicate by it), failed for the user to check instead.
        const answered = /^Failed send email body: [45]\d\d/.test(error instanceof Error ? error.message : '');
        if (handedOver && !answered) throw new ProviderFailure('rejected', 'smtp', null, HANDED_OVER_UNANSWERED);
        throw smtpFailure(error, 'message');
      }
      await mailer.close();
      return { providerMessageId: mail.messageId, providerThreadId: null };
    },
    list: unsupported,
    view: unsupported,
  };
}
