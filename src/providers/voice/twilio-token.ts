/**
 * The browser's calling token: a Twilio Access Token (https://www.twilio.com/docs/iam/access-tokens),
 * a JWT signed HS256 with an API key's secret. Header `cty: twilio-fpa;v=1`; `iss` the API key SID
 * (SK…), `sub` the account SID (AC…), `jti` `<key sid>-<issued at>`; `grants.identity` names the
 * user and `grants.voice` lets the @twilio/voice-sdk Device place calls through the TwiML App
 * (`outgoing.application_sid`) and receive them (`incoming.allow`). It lives at most an hour.
 */
import { SignJWT } from 'jose';

export const VOICE_TOKEN_TTL_SECONDS = 3_600;

export interface VoiceTokenInput {
  accountSid: string;
  apiKeySid: string;
  apiKeySecret: string;
  applicationSid: string;
  identity: string;
  ttlSeconds?: number;
  now?: number;
}

export async function twilioVoiceToken(input: VoiceTokenInput): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor((input.now ?? Date.now()) / 1000);
  const ttl = Math.min(input.ttlSeconds ?? VOICE_TOKEN_TTL_SECONDS, VOICE_TOKEN_TTL_SECONDS);
  const token = await new SignJWT({
    grants: {
      identity: input.identity,
      voice: { incoming: { allow: true }, outgoing: { application_sid: input.applicationSid } },
    },
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' })
    .setJti(`${input.apiKeySid}-${issuedAt}`)
    .setIssuer(input.apiKeySid)
    .setSubject(input.accountSid)
    .setIssuedAt(issuedAt)
    .setNotBefore(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(new TextEncoder().encode(input.apiKeySecret));
  return { token, expiresAt: new Date((issuedAt + ttl) * 1000) };
}
