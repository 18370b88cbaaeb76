/**
 * Delivery reports for different recipients of one message recorded at once (two inbox lists, a
 * view and a local arrival): each report's update of the message reads the reason from the row it
 * updates, so the second, waiting for the first's row lock, adds to what the first wrote instead
 * of writing over it. PostgreSQL only: PGlite runs one transaction at a time, so this passes there
 * anyway.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { BOUNCED_REASON_PREFIX, recordBounces } from '../src/modules/mail/bounces';
import type { ConnectionRow } from '../src/providers/connections';
import type { InboxMessage } from '../src/providers/mail/interface';
import { signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { addLocalAccount } from './helpers/mail';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Bounce races');
});

async function skipOnPglite(context: TestContext) {
  const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
  if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
}

const hold = () => new Promise((resolve) => setTimeout(resolve, 1_000));

describe('bounce reports for one message recorded at once', () => {
  it('both recipients are suppressed and the message’s reason names both', async (context) => {
    await skipOnPglite(context);
    const address = `rep-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const connectionId = await addLocalAccount(owner, address);
    const sent = `<${crypto.randomUUID()}@example.com>`;
    const [first, second] = ['first', 'second'].map(
      (label) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.org`,
    );
    const inserted = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ id: string }>(sql`insert into mail_messages (organization_id, connection_id, direction, status,
          rfc_message_id, from_address, to_addresses, subject, body_text)
        values (${owner.orgId}, ${connectionId}, 'outbound', 'sent', ${sent}, ${address},
          array[${first}, ${second}]::text[], 'Hello', 'Hi')
        returning id`),
    );
    const messageId = Number(inserted.rows[0].id);
    const report = (failed: string): InboxMessage => ({
      id: `dsn-${crypto.randomUUID()}`,
      thread_id: null,
      message_id: `<dsn-${crypto.randomUUID()}@mx.example.net>`,
      in_reply_to: sent,
      references: [sent],
      from: { address: 'mailer-daemon@mx.example.net', name: null },
      to: [address],
      cc: [],
      reply_to: [],
      subject: 'Undelivered Mail Returned to Sender',
      snippet: '',
      date: new Date().toISOString(),
      is_read: false,
      automated: 'bounce',
      bounce: { hard_bounced: [failed], original_message_id: sent },
    });
    const connection = { id: connectionId, organizationId: owner.orgId, identity: address } as unknown as ConnectionRow;
    let recorded: () => void = () => {};
    const isIn = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    // The first report's transaction stays open 1 s after marking the message; the second comes meanwhile.
    const firstReport = inOrganization(owner.orgId, async (tx) => {
      expect(await recordBounces(tx, connection, [report(first)])).toEqual([first]);
      recorded();
      await hold();
    });
    await isIn;
    await Promise.all([
      firstReport,
      inOrganization(owner.orgId, (tx) => recordBounces(tx, connection, [report(second)])),
    ]);
    const row = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ status: string; failure_reason: string }>(
        sql`select status, failure_reason from mail_messages where id = ${messageId}`,
      ),
    );
    expect(row.rows[0].status).toBe('bounced');
    expect(row.rows[0].failure_reason).toBe(
      `${BOUNCED_REASON_PREFIX}${[first, second].sort().join(', ')} (it is on the suppression list); nothing is known of any other recipient`,
    );
    const suppressed = await inOrganization(owner.orgId, (tx) =>
      tx.execute<{ address: string }>(
        sql`select address from mail_suppressions where address = any(${`{${first},${second}}`}::text[]) order by address`,
      ),
    );
    expect(suppressed.rows.map((r) => r.address)).toEqual([first, second].sort());
  });
});
