/**
 * A mail account whose own mail service refuses it as the sender (the scripted SMTP relay of
 * test/helpers/fake-smtp-relay.ts answers an account logged in as `sendas…` with Exchange Online's
 * `550 5.7.60 SMTP; Client does not have permissions to send as this sender`, until it logs in with
 * the password `granted`): the message fails with the reason and nobody is suppressed, the account
 * is marked needs_reconnect with that reason and its owner told once (however often the job is
 * delivered), later sends fail fast without reaching the relay (the job's reason, the route's 409),
 * and reconnecting the account with its password clears it.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { connections, mailMessages, mailSuppressions, notifications } from '../src/db/schema';
import { RECONNECT_NOTICE_TYPE } from '../src/providers/connections';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';

const ports = env as unknown as { LM_TEST_SMTP_PORT: string; LM_TEST_SMTP_CONTROL_PORT: string };

/** What the relay recorded of the latest session that logged in as `username`. */
async function session(username: string): Promise<{ commands: string[]; data: string[]; logins: number } | null> {
  return (await fetch(`http://127.0.0.1:${ports.LM_TEST_SMTP_CONTROL_PORT}/${encodeURIComponent(username)}`)).json();
}

describe('a mail account its relay refuses as the sender', () => {
  let owner: SignedUp;
  beforeAll(async () => {
    owner = await signupOrganization('Sender refused');
  });

  const messageRow = async (id: number) =>
    (await inOrganization(owner.orgId, (tx) => tx.select().from(mailMessages).where(eq(mailMessages.id, id))))[0];
  const notices = () =>
    inOrganization(owner.orgId, (tx) =>
      tx
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, owner.userId), eq(notifications.typeId, RECONNECT_NOTICE_TYPE))),
    );
  const send = (configId: number, to: string) =>
    requestRecordingJobs('POST', '/api/inbox/send', {
      token: owner.token,
      body: { config_id: configId, to, subject: 'Hello', body: 'Hello there' },
    });

  it('fails the message, suppresses nobody, marks the account with the reason and tells its owner once; later sends fail fast; a reconnect clears it', async () => {
    const username = `sendas-${crypto.randomUUID().slice(0, 8)}`;
    const from = uniqueEmail('sendas');
    const added = await call('POST', '/api/mail-configurations/add', {
      token: owner.token,
      body: {
        mailer: 'smtp',
        from_address: from,
        from_name: 'Rep',
        password: 'old-pass',
        smtp_host: '127.0.0.1',
        smtp_port: Number(ports.LM_TEST_SMTP_PORT),
        smtp_username: username,
      },
    });
    expect(added.status, added.text).toBe(201);
    const configId = added.body.data.id as number;

    const grace = `grace-${crypto.randomUUID().slice(0, 8)}@example.org`;
    const alan = `alan-${crypto.randomUUID().slice(0, 8)}@example.org`;
    const first = await send(configId, grace);
    const second = await send(configId, alan);
    expect([first.status, second.status]).toEqual([202, 202]);

    await deliverJobs(first.sent);
    const refused = await messageRow(first.body.data.id);
    expect(refused.status).toBe('failed');
    expect(refused.failureReason).toMatch(/^smtp refused to send as .+ \(550 5\.7\.60\)/);
    expect(refused.failureReason).toContain('the recipients are not at fault');
    expect(refused.failureReason).not.toContain('Client does not have');
    const [account] = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, configId)),
    );
    expect(account.state).toBe('needs_reconnect');
    expect(account.lastError).toContain(`smtp refused to send as ${from}`);
    expect(await notices()).toEqual([
      expect.objectContaining({ body: account.lastError, data: expect.objectContaining({ connection_id: configId }) }),
    ]);
    const logins = (await session(username))?.logins;

    // The same job delivered again: the message stays as it was, one notice, no new session.
    await deliverJobs(first.sent, 2);
    expect(await messageRow(first.body.data.id)).toMatchObject({
      status: 'failed',
      failureReason: refused.failureReason,
    });
    expect(await notices()).toHaveLength(1);

    // A later send from the account fails fast with the account's reason: the relay is not asked.
    await deliverJobs(second.sent);
    expect(await messageRow(second.body.data.id)).toMatchObject({
      status: 'failed',
      failureReason: `The mail account needs to be reconnected (${account.lastError}); nothing was sent`,
    });
    expect((await session(username))?.logins).toBe(logins);
    expect(await notices()).toHaveLength(1);

    // Nobody is suppressed: the recipients did nothing wrong.
    const suppressed = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(mailSuppressions).where(eq(mailSuppressions.organizationId, owner.orgId)),
    );
    expect(suppressed.map((row) => row.address)).not.toEqual(expect.arrayContaining([grace]));
    expect(suppressed.map((row) => row.address)).not.toEqual(expect.arrayContaining([alan]));

    // The route answers 409 naming the account and why; the configuration shows it.
    const blocked = await send(configId, grace);
    expectFailure(blocked as never, 409, 'conflict');
    expect(blocked.body.error).toMatchObject({
      code: 'connection_needs_reconnect',
      details: { connection_id: configId, provider: 'smtp' },
    });
    expect(blocked.body.error.message).toContain(`smtp refused to send as ${from}`);
    const listed = await call('GET', '/api/mail-configurations/list', {
      token: owner.token,
      query: { state_id: 2 },
    });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: configId, state: 'needs_reconnect', state_id: 2, last_error: account.lastError }),
    ]);

    // Fixed (the permission granted, a new password): reconnected, the flag and its notice cleared.
    const fixed = await call('POST', `/api/mail-configurations/update/${configId}`, {
      token: owner.token,
      body: { password: 'granted' },
    });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.body.data).toMatchObject({ state: 'active', state_id: 1, last_error: null });
    const again = await send(configId, grace);
    expect(again.status, again.text).toBe(202);
    await deliverJobs(again.sent);
    expect(await messageRow(again.body.data.id)).toMatchObject({ status: 'sent', failureReason: null });
    const last = await session(username);
    expect(last?.commands).toContain(`AUTH PLAIN ${btoa(`\0${username}\0granted`)}`);
    expect(last?.data).toHaveLength(1);
  });
});
