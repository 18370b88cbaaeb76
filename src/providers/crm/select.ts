/** The CRM provider of a connection: its sealed token opened for HubSpot, nothing for the local data set. */
import type { Bindings } from '../../env';
import { openCredentials, type ConnectionRow } from '../connections';
import { hubspotCrm, type Sleep } from './hubspot';
import type { CrmProvider } from './interface';
import { localCrm } from './local';

export function crmProviderFor(env: Bindings, connection: ConnectionRow, sleep?: Sleep): CrmProvider {
  if (connection.provider === 'local') return localCrm();
  // Opened once per provider (a job's delivery, a request), not once per page.
  let token: Promise<string> | null = null;
  const open = async () => {
    const credentials = await openCredentials<{ access_token: string }>(env, connection);
    if (!credentials) throw new Error('the CRM connection has no credential');
    return credentials.access_token;
  };
  return hubspotCrm(() => {
    token ??= open();
    return token;
  }, sleep);
}
