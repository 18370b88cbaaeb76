/**
 * A scripted SMTP relay for test/smtp-session.test.ts, run in Node by the global setup: the Worker's
 * SMTP adapter (worker-mailer over cloudflare:sockets) opens a real TCP connection to it, so no
 * code of ours or of the library is replaced. It records each session's commands and message data
 * under the AUTH PLAIN username, answered as JSON on a second (HTTP) port for the test to read.
 * A username starting with `refused` is refused at AUTH (535), one starting with `hangup` has the
 * connection closed at AUTH, unanswered; a recipient starting with
 * `unknown` is refused at RCPT TO for good (550 5.1.1, a hard bounce), one starting with `blocked` by
 * policy (550 5.7.1, not the address's fault); one starting with `greylisted` gets 451 at its first
 * RCPT TO and is let through after; with a `silent` recipient the message is taken and never
 * answered (the client times out after handing it over), with a `hangup` one the connection is
 * closed once the message is taken, unanswered. A `stall` recipient's RCPT TO is never answered;
 * with a `nodata` recipient the DATA command is never answered (nothing handed over). A
 * `notfound` recipient gets Exchange Online's `550 5.1.10 RESOLVER.ADR.RecipientNotFound`, a
 * `spamword` one a bare `550` naming spam (a policy refusal without an enhanced code). `logins`
 * counts a username's sessions.
 * The sender refused (the account may not send as its address): a username starting with
 * `fromdenied` gets `550 5.1.0 Sender denied` at MAIL FROM; one starting with `notowner` Postfix's
 * `553 5.7.1 <from>: Sender address rejected: not owned by user …` at each RCPT TO
 * (reject_sender_login_mismatch); one starting with `sendas` Exchange Online's `550 5.7.60 SMTP;
 * Client does not have permissions to send as this sender` once the message is taken, unless it
 * logged in with the password `granted` (the permission given since).
 * It offers no STARTTLS: the dialogue stays readable.
 */
import http from 'node:http';
import net from 'node:net';

interface Session {
  commands: string[];
  data: string[];
}

export async function startFakeSmtpRelay(smtpPort: number, controlPort: number) {
  const sessions = new Map<string, Session>();
  const logins = new Map<string, number>();
  /** Addresses greylisted once already: the second attempt is let through. */
  const greylisted = new Set<string>();
  const smtp = net.createServer((socket) => {
    const session: Session = { commands: [], data: [] };
    let buffer = '';
    let inData = false;
    let username = '';
    let password = '';
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 relay.test ESMTP ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          session.data.push(buffer.slice(0, end + 2));
          buffer = buffer.slice(end + 5);
          inData = false;
          // Taken, but the answer is lost (a `silent` recipient): the client times out waiting.
          if (session.commands.some((command) => /^RCPT TO: <hangup/.test(command))) {
            socket.destroy();
            return;
          }
          if (username.startsWith('sendas') && password !== 'granted') {
            reply('550 5.7.60 SMTP; Client does not have permissions to send as this sender [relay.test]');
          } else if (!session.commands.some((command) => /^RCPT TO: <silent/.test(command))) {
            reply('250 2.0.0 queued as TEST1');
          }
          continue;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        session.commands.push(line);
        if (line.startsWith('EHLO')) {
          socket.write('250-relay.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n');
        } else if (line.startsWith('AUTH PLAIN ')) {
          const parts = Buffer.from(line.slice(11), 'base64').toString('utf8').split('\0');
          username = parts[1] ?? '';
          password = parts[2] ?? '';
          sessions.set(username, session);
          logins.set(username, (logins.get(username) ?? 0) + 1);
          if (username.startsWith('hangup')) {
            socket.destroy();
            return;
          }
          reply(username.startsWith('refused') ? '535 5.7.8 Authentication credentials invalid' : '235 2.7.0 OK');
        } else if (line.startsWith('MAIL FROM:')) {
          reply(username.startsWith('fromdenied') ? '550 5.1.0 Sender denied' : '250 2.1.0 OK');
        } else if (line.startsWith('RCPT TO:')) {
          if (username.startsWith('notowner')) {
            const from = /^MAIL FROM: ?(<[^>]*>)/.exec(
              session.commands.find((c) => c.startsWith('MAIL FROM:')) ?? '',
            )?.[1];
            reply(`553 5.7.1 ${from ?? '<>'}: Sender address rejected: not owned by user ${username}`);
            continue;
          }
          const greylist = /<(greylisted[^>]*)>/.exec(line)?.[1];
          if (greylist && !greylisted.has(greylist)) {
            greylisted.add(greylist);
            reply('451 4.7.1 Greylisted, try again later');
            continue;
          }
          if (/<stall/.test(line)) continue;
          reply(
            /<unknown/.test(line)
              ? '550 5.1.1 No such user here'
              : /<notfound/.test(line)
                ? '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup'
                : /<spamword/.test(line)
                  ? '550 Message refused: spam'
                  : /<blocked/.test(line)
                    ? '550 5.7.1 Message refused as spam'
                    : '250 2.1.5 OK',
          );
        } else if (line === 'DATA') {
          if (session.commands.some((command) => /^RCPT TO: <nodata/.test(command))) continue;
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (line === 'RSET') {
          reply('250 2.0.0 OK');
        } else if (line === 'QUIT') {
          reply('221 2.0.0 Bye');
          socket.end();
        } else {
          reply('502 5.5.2 Command not recognized');
        }
      }
    });
    socket.on('error', () => {});
  });
  const control = http.createServer((request, response) => {
    const username = decodeURIComponent((request.url ?? '/').slice(1));
    response.setHeader('content-type', 'application/json');
    const session = sessions.get(username);
    response.end(JSON.stringify(session ? { ...session, logins: logins.get(username) } : null));
  });
  await Promise.all([
    new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve)),
  ]);
  return {
    stop: () =>
      Promise.all([new Promise((resolve) => smtp.close(resolve)), new Promise((resolve) => control.close(resolve))]),
  };
}
