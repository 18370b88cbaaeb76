/**
 * The mail provider of a connection: the local mailbox (no credentials), Gmail or Microsoft Graph
 * with the connection's OAuth token (refreshed when it has expired, providers/oauth.ts), or an
 * SMTP relay with its sealed username and password.
 */
import type { Queryable } from '../../db/client';
import type { Bindings } from '../../env';
import { openCredentials, type ConnectionRow, type IndependentWriter } from '../connections';
import { ConnectionNeedsReconnect } from '../failures';
import { accessToken } from '../oauth';
import { gmailMailbox } from './gmail';
import type { MailProvider } from './interface';
import { localMailbox } from './local';
import { outlookMailbox } from './outlook';
import { smtpRelay, type SmtpCredentials, type SmtpSettings } from './smtp';

export interface MailDeps {
  env: Bindings;
  /** The caller's database (the local mailbox reads and writes its rows there). */
  db: Queryable;
  writer: IndependentWriter;
}

/** One token per provider instance: a list's many calls open (or refresh) it once. */
function memo(get: () => Promise<string>): () => Promise<string> {
  let token: Promise<string> | undefined;
  return () => {
    token ??= get().catch((error: unknown) => {
      token = undefined;
      throw error;
    });
    return token;
  };
}

export async function mailProviderFor(deps: MailDeps, connection: ConnectionRow): Promise<MailProvider> {
  switch (connection.provider) {
    case 'local':
      return localMailbox(deps.db, connection);
    case 'gmail':
      return gmailMailbox(memo(() => accessToken(deps, connection, 'google')));
    case 'outlook':
      return outlookMailbox(memo(() => accessToken(deps, connection, 'microsoft')));
    case 'smtp': {
      const credentials = await openCredentials<SmtpCredentials>(deps.env, connection);
      if (!credentials) throw new ConnectionNeedsReconnect(connection);
      return smtpRelay(connection.settings as unknown as SmtpSettings, credentials, connection.identity);
    }
    default:
      throw new Error(`mail connection ${connection.id} has an unknown provider`);
  }
}
