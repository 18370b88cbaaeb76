/**
 * Mail configurations: an organization's mail accounts, kept as `connections` of kind `mail`. An
 * account is checked with one provider call before it is stored (Gmail users/me/profile, Graph
 * /me, an SMTP login; the local mailbox needs none), its credentials sealed. Only its owner or an
 * admin may change, disconnect or use it; another organization's is a 404.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { ApiError, Forbidden, ValidationFailed } from '../../core/errors';
import { defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { connections } from '../../db/schema';
import { isAdmin, isUser, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import {
  disconnectedColumns,
  type ConnectionRow,
  connectionListParts,
  findConnection,
  liveConnections,
  openCredentials,
  sealCredentials,
} from '../../providers/connections';
import { ConnectionNeedsReconnect, ProviderFailure, routeErrorOf } from '../../providers/failures';
import { gmailMailbox } from '../../providers/mail/gmail';
import type { Mailer, MailProvider } from '../../providers/mail/interface';
import { outlookMailbox } from '../../providers/mail/outlook';
import { smtpRelay, type SmtpSettings } from '../../providers/mail/smtp';
import { keyringOf } from '../../providers/secrets';
import {
  type AddMailConfigurationBody,
  mailConfigurationFilters,
  STATE_IDS,
  type UpdateMailConfigurationBody,
} from './schemas';

type AddInput = z.output<typeof AddMailConfigurationBody>;
type UpdateInput = z.output<typeof UpdateMailConfigurationBody>;

export function presentConfiguration(row: ConnectionRow) {
  const settings = row.settings as Partial<SmtpSettings> & { has_refresh_token?: boolean };
  return {
    id: row.id,
    mailer: row.provider as Mailer,
    provider: row.provider,
    from_address: row.identity,
    from_name: row.displayName,
    state: row.state,
    state_id: STATE_IDS[row.state],
    last_error: row.lastError,
    last_success_at: isoTimestamp(row.lastSuccessAt),
    owner_id: row.ownerId,
    smtp_host: settings.host ?? null,
    smtp_port: settings.port ?? null,
    has_refresh_token: settings.has_refresh_token === true,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

const STATE_OF_ID = { 1: 'active', 2: 'needs_reconnect', 3: 'disabled' } as const;

export const mailConfigurationList = defineList({
  ...connectionListParts,
  sort: { id: connections.id, created_at: connections.createdAt },
  filters: mailConfigurationFilters,
  base: (ctx, params) =>
    liveConnections(
      ctx,
      eq(connections.kind, 'mail'),
      params.mailer ? eq(connections.provider, params.mailer) : undefined,
      params.state_id ? eq(connections.state, STATE_OF_ID[params.state_id as 1 | 2 | 3]) : undefined,
    ),
});

export async function listConfigurations(ctx: TenantContext, params: z.output<typeof mailConfigurationList.query>) {
  const page = await mailConfigurationList.run(ctx, params);
  return { ...page, rows: page.rows.map((entry) => presentConfiguration(entry.row)) };
}

/** The account's own checks: a provider built from the credential as given, before anything is stored. */
function providerToCheck(
  mailer: Exclude<Mailer, 'local'>,
  input: AddInput,
  settings: SmtpSettings | null,
): MailProvider {
  const password = input.password as string;
  if (mailer === 'gmail') return gmailMailbox(async () => password);
  if (mailer === 'outlook') return outlookMailbox(async () => password);
  return smtpRelay(
    settings as SmtpSettings,
    { username: input.smtp_username ?? input.from_address, password },
    input.from_address,
  );
}

async function checkAccount(mailer: Exclude<Mailer, 'local'>, input: AddInput, settings: SmtpSettings | null) {
  try {
    const { address } = await providerToCheck(mailer, input, settings).verify();
    if (address.toLowerCase() !== input.from_address.toLowerCase()) {
      throw ValidationFailed.field('from_address', `the credential is for another account (${address})`);
    }
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    if (error.kind === 'auth' || error.kind === 'not_found') {
      throw ValidationFailed.field('password', `${mailer} refused this credential`);
    }
    throw routeErrorOf(error, 'account');
  }
}

function smtpSettings(input: Pick<AddInput, 'smtp_host' | 'smtp_port'>): SmtpSettings {
  const issues = [
    ...(input.smtp_host ? [] : [{ field: 'smtp_host', message: 'is required for an smtp account' }]),
    ...(input.smtp_port ? [] : [{ field: 'smtp_port', message: 'is required for an smtp account' }]),
  ];
  if (issues.length > 0) throw new ValidationFailed(issues);
  return {
    host: input.smtp_host as string,
    port: input.smtp_port as number,
    security: input.smtp_port === 465 ? 'tls' : 'starttls',
  };
}

/** What gets sealed and the clear settings beside it, after the provider has accepted the credential. */
async function checkedCredentials(env: Bindings, orgId: number, mailer: Mailer, input: AddInput) {
  if (mailer === 'local') return { sealed: { secret: null, secretKeyId: null }, settings: {}, expiresAt: null };
  if (!input.password) throw ValidationFailed.field('password', `is required for a ${mailer} account`);
  await keyringOf(env); // No key, no credential: refuse before calling anyone.
  const settings = mailer === 'smtp' ? smtpSettings(input) : null;
  await checkAccount(mailer, input, settings);
  const credentials =
    mailer === 'smtp'
      ? { username: input.smtp_username ?? input.from_address, password: input.password }
      : { access_token: input.password, refresh_token: input.refresh_token ?? null };
  const hasRefresh = mailer !== 'smtp' && !!input.refresh_token;
  return {
    sealed: await sealCredentials(env, orgId, credentials),
    settings: { ...(settings ?? {}), has_refresh_token: hasRefresh },
    // Without a refresh token nothing can renew it: it is used until the provider refuses it.
    expiresAt: hasRefresh ? new Date(Date.now() + (input.expires_in ?? 3_600) * 1000) : null,
  };
}

export async function addConfiguration(ctx: TenantContext, env: Bindings, input: AddInput) {
  const checked = await checkedCredentials(env, ctx.orgId, input.mailer, input);
  const [row] = await ctx.db
    .insert(connections)
    .values({
      organizationId: ctx.orgId,
      kind: 'mail',
      provider: input.mailer,
      identity: input.from_address,
      displayName: input.from_name,
      settings: checked.settings,
      scopes: [],
      ownerId: ctx.userId,
      ...checked.sealed,
      tokenExpiresAt: checked.expiresAt,
      lastSuccessAt: input.mailer === 'local' ? null : sql`now()`,
    })
    .returning();
  return presentConfiguration(row);
}

/** The configuration, for its owner or an admin; another organization's is a 404, another user's a 403. */
export async function ownConfiguration(ctx: TenantContext, id: number): Promise<ConnectionRow> {
  const row = await findConnection(ctx, 'mail', id);
  if (!isUser(ctx.actor, row.ownerId) && !isAdmin(ctx.actor)) {
    throw new Forbidden('Only the account’s owner or an admin may use or change it', 'owner_or_admin_only');
  }
  return row;
}

/**
 * The SMTP login sealed with the account's password (it is never stored in clear or returned);
 * null when the sealed credentials are gone or cannot be opened (their key was removed).
 */
async function storedSmtpUsername(env: Bindings, row: ConnectionRow): Promise<string | null> {
  try {
    return (await openCredentials<{ username?: string }>(env, row))?.username ?? null;
  } catch (error) {
    if (error instanceof ConnectionNeedsReconnect) return null;
    throw error;
  }
}

export async function updateConfiguration(ctx: TenantContext, env: Bindings, id: number, input: UpdateInput) {
  const row = await ownConfiguration(ctx, id);
  const mailer = row.provider as Mailer;
  const settings = row.settings as Partial<SmtpSettings>;
  const reconnect = input.password !== undefined && mailer !== 'local';
  if (!reconnect && (input.smtp_host || input.smtp_port || input.smtp_username || input.refresh_token)) {
    throw ValidationFailed.field('password', 'is required to change the account’s connection details');
  }
  // A new password alone keeps the account's login: the stored one, never the from address.
  let smtpUsername = input.smtp_username;
  if (reconnect && mailer === 'smtp' && smtpUsername === undefined) {
    smtpUsername = (await storedSmtpUsername(env, row)) ?? undefined;
    if (smtpUsername === undefined) {
      throw ValidationFailed.field('smtp_username', 'is required: the account’s stored login cannot be read');
    }
  }
  const checked = reconnect
    ? await checkedCredentials(env, ctx.orgId, mailer, {
        mailer,
        from_address: row.identity,
        from_name: input.from_name ?? row.displayName ?? row.identity,
        password: input.password,
        refresh_token: input.refresh_token,
        expires_in: input.expires_in,
        smtp_host: input.smtp_host ?? settings.host,
        smtp_port: input.smtp_port ?? settings.port,
        smtp_username: smtpUsername,
      } as AddInput)
    : null;
  if (input.state === 'active' && row.state === 'needs_reconnect' && !reconnect) {
    throw new ApiError(
      422,
      'validation_error',
      'password: the account needs a new credential to reconnect',
      'password',
    );
  }
  const [updated] = await ctx.db
    .update(connections)
    .set({
      displayName: input.from_name,
      ...(checked
        ? {
            ...checked.sealed,
            settings: checked.settings,
            tokenExpiresAt: checked.expiresAt,
            state: input.state ?? 'active',
            lastError: null,
            reconnectNotifiedAt: null,
            lastSuccessAt: sql`now()`,
          }
        : input.state
          ? { state: input.state }
          : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(connections.organizationId, ctx.orgId), eq(connections.id, id)))
    .returning();
  return presentConfiguration(updated);
}

/** Disconnect: the credentials are wiped at once; the row stays so sent messages keep their account. */
export async function deleteConfiguration(ctx: TenantContext, id: number): Promise<void> {
  await ownConfiguration(ctx, id);
  await ctx.db
    .update(connections)
    .set(disconnectedColumns())
    .where(and(eq(connections.organizationId, ctx.orgId), eq(connections.id, id)));
}
