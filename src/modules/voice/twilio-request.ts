/**
 * What every request from Twilio to us goes through before anything is read from it: the
 * organization's Twilio connection, whose sealed auth token must have signed it
 * (X-Twilio-Signature over the URL Twilio requested and the sorted form parameters). The URL
 * Twilio signed is the one configured there: the connection's stored origin (the public host the
 * admin connected through) followed by the path and query this request reached.
 */
import type { Bindings } from '../../env';
import { openCredentials, type ConnectionRow } from '../../providers/connections';
import type { VoiceCredentials } from '../../providers/voice/select';
import { isValidTwilioSignature } from '../../providers/voice/twilio-signature';

/** The public origin Twilio's requests for this connection reach: the stored one, else this request's. */
export function twilioOrigin(connection: ConnectionRow, requestUrl: string): string {
  return (connection.settings as { webhook_origin?: string }).webhook_origin ?? new URL(requestUrl).origin;
}

/** Where Twilio posts call status and recording events for the organization. */
export function statusCallbackUrl(origin: string, orgId: number): string {
  return `${origin}/api/v1/voice/twilio/${orgId}`;
}

/** The Voice URL: where Twilio asks what to do with a browser's call or a call to one of our numbers. */
export function voiceUrl(origin: string, orgId: number): string {
  return `${statusCallbackUrl(origin, orgId)}/voice`;
}

/**
 * The connection's credentials when the request is signed with its auth token; null when the
 * organization has no Twilio connection, its credentials cannot be opened, or the signature is
 * missing or wrong (the caller answers 403 and reads nothing more).
 */
export async function verifiedTwilioCredentials(
  env: Bindings,
  connection: ConnectionRow | null,
  requestUrl: string,
  signature: string | undefined,
  params: [string, string][],
): Promise<VoiceCredentials | null> {
  if (connection?.provider !== 'twilio' || !signature) return null;
  const credentials = await openCredentials<VoiceCredentials>(env, connection).catch(() => null);
  if (!credentials) return null;
  const url = new URL(requestUrl);
  const signedUrl = `${twilioOrigin(connection, requestUrl)}${url.pathname}${url.search}`;
  const valid = await isValidTwilioSignature(credentials.twilio.auth_token, signature, signedUrl, params);
  return valid ? credentials : null;
}
