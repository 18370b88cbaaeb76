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
 * answered it fails "may have been sent", never retried. Timeouts are ours (withDeadline), not
 * worker-mailer's; its private internals are used fail-safe (WorkerMailerInternals).
 */
import { ProviderFailure } from '../failures';
import { isHardFailure, isSenderRefusal, RecipientsRefused, SenderRefused } from './bounces';
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
function smtpFailure(error: unknown, what: string, from: string): ProviderFailure {
  const raw = error instanceof Error ? error.message : String(error);
  const text = raw.replace(/<[^<>]*>/g, '<>');
  const code = /(?:^|\s)([45]\d\d)(?=[\s-]|$)/.exec(text)?.[1];
  if ((code && LOGIN_CODES.has(code)) || LOGIN_REFUSED.test(text)) {
    return new ProviderFailure('auth', 'smtp', 535, 'the SMTP relay refused the username or password');
  }
  const enhanced = /(?:^|\s)[45]\d\d[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1];
  // The relay refused our account as the sender (at MAIL FROM, or a sender check answered at RCPT
  // TO or after the message, as Postfix and Exchange do): no recipient's fault, and every send
  // from the account would fail alike. Read before the recipient's refusal: Postfix's
  // `553 5.7.1 Sender address rejected` answers a RCPT TO.
  const command = /^Invalid MAIL FROM:/.test(raw)
    ? 'mail'
    : /^Invalid RCPT TO:/.test(raw)
      ? 'rcpt'
      : /^(Failed to send DATA|Failed send email body):/.test(raw)
        ? 'data'
        : null;
  if (command && code?.startsWith('5') && isSenderRefusal(code, enhanced, text, command)) {
    return new SenderRefused('smtp', from, Number(code), enhanced ?? null);
  }
  // A recipient refused for good at RCPT TO (`Invalid RCPT TO: <a@b> 550 5.1.1 …`): a hard bounce.
  // The address is ours (the one we sent), read before the relay's text is dropped.
  const refused = /^Invalid RCPT TO: <([^<>]*)>/.exec(raw);
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

/** How long the relay may take to answer one command (its greeting, EHLO, RCPT TO, the message …). */
export const RESPONSE_TIMEOUT_MS = 15_000;

/** The relay did not answer in time (our own timer, not worker-mailer's). */
class RelayTimeout extends Error {}

/**
 * worker-mailer 1.2.1's internals this adapter leans on, none of them public (its .d.ts marks them
 * private): `body()`, which `start()` calls once the relay accepted DATA (354) to write the message
 * and read its answer, patched on the instance to learn the hand-over; `readTimeout()`, through
 * which every answer is read, wrapped once on the prototype to guard the instance's current
 * `reader` (the socket's, replaced at STARTTLS), whose end of stream `read()` loops on forever
 * (`if (!value) continue`, a busy loop no timer interrupts), so that it throws instead; and
 * `socket`, closed when the relay is too slow. Each is used only when present: without the `body`
 * patch every failure the relay did not answer before DATA counts as possibly handed over (never
 * retried); without the reader guard the socket is not closed by us (closing it would start the
 * loop). test/smtp-session.test.ts fails when the installed version lacks any.
 */
export interface WorkerMailerInternals {
  body?: () => Promise<void>;
  start?: () => Promise<void>;
  readTimeout?: () => Promise<string>;
  reader?: { read: () => Promise<{ done: boolean; value?: Uint8Array }> };
  socket?: { close: () => Promise<void> };
}

/** Whether `start()` of this worker-mailer calls `this.body()`: the hand-over probe's premise. */
export function handoverProbeSupported(prototype: WorkerMailerInternals): boolean {
  return typeof prototype.body === 'function' && /\bthis\.body\(\)/.test(String(prototype.start));
}

const GUARDED = Symbol('guarded against end of stream');

/** Makes `reader.read()` throw at the end of the stream instead of answering `done` (once per reader). */
function guardReader(reader: WorkerMailerInternals['reader']): boolean {
  if (!reader || typeof reader.read !== 'function') return false;
  const marked = reader as unknown as Record<symbol, boolean>;
  if (marked[GUARDED]) return true;
  const read = reader.read.bind(reader);
  reader.read = async () => {
    const result = await read();
    if (result.done) throw new Error('the SMTP relay closed the connection');
    return result;
  };
  marked[GUARDED] = true;
  return true;
}

/**
 * Wraps worker-mailer's `readTimeout()` once, so each answer read (the greeting and the login
 * included, and after STARTTLS replaced the reader) goes through a guarded reader. Answers
 * whether it could.
 */
export function guardReads(prototype: WorkerMailerInternals): boolean {
  const marked = prototype as unknown as Record<symbol, boolean>;
  if (marked[GUARDED]) return true;
  const readTimeout = prototype.readTimeout;
  if (typeof readTimeout !== 'function') return false;
  prototype.readTimeout = function (this: WorkerMailerInternals) {
    guardReader(this.reader);
    return readTimeout.call(this);
  };
  marked[GUARDED] = true;
  return true;
}

/**
 * worker-mailer's errors for the relay's own refusal of MAIL FROM, a RCPT TO or DATA (its
 * `mail()`, `rcpt()`, `data()`): answered before any message was handed over.
 */
const ANSWERED_BEFORE_DATA = /^(Invalid (MAIL FROM|RCPT TO):|Failed to send DATA:)/;

/**
 * `work` or a RelayTimeout after `ms`; `onLate` runs when the timer won (the work's late outcome
 * is swallowed, never an unhandled rejection).
 */
async function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  work.catch(() => undefined);
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new RelayTimeout(`the SMTP relay did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const TIMED_OUT = () => new ProviderFailure('unavailable', 'smtp', null, 'the SMTP relay did not answer in time', 60);

export function smtpRelay(
  settings: SmtpSettings,
  credentials: SmtpCredentials,
  from: string,
  tuning: { responseTimeoutMs?: number } = {},
): MailProvider {
  const responseMs = tuning.responseTimeoutMs ?? RESPONSE_TIMEOUT_MS;
  const options = () => ({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    startTls: settings.security === 'starttls',
    credentials: { username: credentials.username, password: credentials.password },
    authType: ['plain', 'login'] as ('plain' | 'login')[],
    // worker-mailer ignores responseTimeoutMs and times each answer by socketTimeoutMs instead.
    socketTimeoutMs: responseMs,
    responseTimeoutMs: responseMs,
  });
  /**
   * A session, logged in, within the time of the answers it takes (connect, greeting, EHLO,
   * STARTTLS and EHLO again, up to three for AUTH LOGIN); a session that comes too late is closed.
   */
  async function open() {
    const { WorkerMailer } = await import('worker-mailer');
    guardReads(WorkerMailer.prototype as unknown as WorkerMailerInternals);
    const connecting = WorkerMailer.connect(options());
    const mailer = await withDeadline(connecting, responseMs * 8, () => {
      void connecting.then((late) => late.close()).catch(() => undefined);
    });
    const internals = mailer as unknown as WorkerMailerInternals;
    // The relay hanging up must end the read, not spin on it (worker-mailer's read() loops on it).
    const guarded = guardReader(internals.reader);
    /** Ends the session now: the socket closed (only when a read can no longer spin on it). */
    const abort = () => {
      if (guarded && typeof internals.socket?.close === 'function') {
        void internals.socket.close().catch(() => undefined);
      }
      void mailer.close().catch(() => undefined);
    };
    const close = () => withDeadline(mailer.close(), responseMs, abort).catch(() => undefined);
    return { mailer, internals, abort, close, probe: handoverProbeSupported(Object.getPrototypeOf(mailer)) };
  }
  const unsupported = () =>
    Promise.reject(
      new ProviderFailure('rejected', 'smtp', null, 'an SMTP account sends only: it has no inbox to read'),
    );
  return {
    mailer: 'smtp',
    async verify() {
      try {
        const session = await open();
        await session.close();
      } catch (error) {
        if (error instanceof RelayTimeout) throw TIMED_OUT();
        throw smtpFailure(error, 'login', from);
      }
      return { address: from };
    },
    async send(mail: OutgoingMail) {
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
      let session: Awaited<ReturnType<typeof open>>;
      try {
        session = await open();
      } catch (error) {
        if (error instanceof RelayTimeout) throw TIMED_OUT();
        throw smtpFailure(error, 'message', mail.from.address);
      }
      const { mailer, internals } = session;
      // Whether the relay accepted DATA (354) and was handed the message: from then on, a failure
      // without the relay's answer to it (a timeout, a lost connection) leaves it unknown whether
      // the message was taken (RFC 5321 §6.1, the "duplicate messages" problem of RFC 1047).
      // Learnt by patching worker-mailer's body(); when this version has none to patch, it is
      // taken as possibly reached for every failure the relay did not answer before DATA.
      let handedOver = false;
      if (session.probe && typeof internals.body === 'function') {
        const body = internals.body.bind(mailer);
        internals.body = () => {
          handedOver = true;
          return body();
        };
      }
      const recipients = mail.to.length + mail.cc.length + mail.bcc.length;
      try {
        // One answer each: MAIL FROM, every RCPT TO, DATA, the message.
        await withDeadline(
          mailer.send({
            from: mail.from.name ? { name: mail.from.name, email: mail.from.address } : mail.from.address,
            to: mail.to,
            ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
            ...(mail.bcc.length > 0 ? { bcc: mail.bcc } : {}),
            subject: mail.subject,
            text: mail.text,
            html: mail.html,
            headers,
          }),
          responseMs * (recipients + 3),
          session.abort,
        );
      } catch (error) {
        session.abort();
        const message = error instanceof Error ? error.message : '';
        // The relay answered the message itself (`Failed send email body: 451 …`): it was not
        // taken, and the answer says whether to retry. Without that answer it may have been
        // delivered: never retried (a retry would be a second copy; its Message-ID is the same,
        // but few receivers drop a duplicate by it), failed for the user to check instead.
        const answered = /^Failed send email body: [45]\d\d/.test(message);
        const mayHaveReached = session.probe ? handedOver : !ANSWERED_BEFORE_DATA.test(message);
        if (mayHaveReached && !answered) throw new ProviderFailure('rejected', 'smtp', null, HANDED_OVER_UNANSWERED);
        if (error instanceof RelayTimeout) throw TIMED_OUT();
        throw smtpFailure(error, 'message', mail.from.address);
      }
      await session.close();
      return { providerMessageId: mail.messageId, providerThreadId: null };
    },
    list: unsupported,
    view: unsupported,
  };
}
