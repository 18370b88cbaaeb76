/**
 * The calendar adapter of a connection: Google and Outlook speak their APIs with the connection's
 * OAuth access token (refreshed when it expired, providers/oauth.ts); the local calendar reads and
 * writes Postgres through the caller's (tenant-scoped) database handle.
 */
import type { Queryable } from '../../db/client';
import type { Bindings } from '../../env';
import type { ConnectionRow, IndependentWriter } from '../connections';
import { accessToken } from '../oauth';
import { googleCalendar } from './google';
import type { CalendarProvider } from './interface';
import { localCalendar } from './local';
import { outlookCalendar } from './outlook';

export interface CalendarDeps {
  db: Queryable;
  env: Bindings;
  writer: IndependentWriter;
}

export function calendarFor(deps: CalendarDeps, connection: ConnectionRow): CalendarProvider {
  switch (connection.provider) {
    case 'google':
      return googleCalendar(connection.identity, () => accessToken(deps, connection, 'google'));
    case 'outlook':
      return outlookCalendar(connection.identity, () => accessToken(deps, connection, 'microsoft'));
    default:
      return localCalendar(deps.db, connection);
  }
}
