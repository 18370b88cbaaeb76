/**
 * TwiML (https://www.twilio.com/docs/voice/twiml): the XML Twilio fetches from a number's or a
 * TwiML App's Voice URL to learn what to do with a call. Only the verbs our Voice URL answers:
 * `<Dial>` a number (a browser's outgoing call) or browser clients (a call to one of our numbers),
 * and `<Say>` + `<Hangup/>` when the call cannot go through. Every value is escaped: a `To` or an
 * identity is text the caller chose.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] as string);
}

/** Status events Twilio posts for each dialled leg (the same four our placed calls ask for). */
export const DIAL_STATUS_EVENTS = 'initiated ringing answered completed';

const document = (verbs: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs}</Response>`;

/** Reads a short message to the caller and ends the call. */
export function twimlRefusal(message: string): string {
  return document(`<Say>${escapeXml(message)}</Say><Hangup/>`);
}

const legAttributes = (statusCallback: string) =>
  `statusCallback="${escapeXml(statusCallback)}" statusCallbackMethod="POST" statusCallbackEvent="${DIAL_STATUS_EVENTS}"`;

/**
 * Dials a phone number from `callerId` (a number of the account). `answerOnBridge` keeps the
 * browser hearing the callee's ringing until they answer.
 */
export function twimlDialNumber(input: { callerId: string; number: string; statusCallback: string }): string {
  return document(
    `<Dial callerId="${escapeXml(input.callerId)}" answerOnBridge="true"><Number ${legAttributes(input.statusCallback)}>${escapeXml(input.number)}</Number></Dial>`,
  );
}

/** Rings every browser client (Access Token identity) at once; the first to answer takes the call. */
export function twimlDialClients(input: { identities: string[]; statusCallback: string }): string {
  const clients = input.identities
    .map((identity) => `<Client ${legAttributes(input.statusCallback)}>${escapeXml(identity)}</Client>`)
    .join('');
  return document(`<Dial answerOnBridge="true">${clients}</Dial>`);
}
