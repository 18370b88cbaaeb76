/**
 * X-Twilio-Signature (https://www.twilio.com/docs/usage/security#validating-requests): base64 of
 * HMAC-SHA1, keyed by the account's auth token, over the full URL Twilio requested followed by
 * every POST parameter sorted by name, each as name + value with no separator. Compared in
 * constant time; a missing or malformed header is simply not valid.
 */
const encoder = new TextEncoder();

export function twilioSignedText(url: string, params: [string, string][]): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return url + sorted.map(([name, value]) => name + value).join('');
}

export async function twilioSignature(authToken: string, url: string, params: [string, string][]): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(authToken), { name: 'HMAC', hash: 'SHA-1' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(twilioSignedText(url, params))));
  return btoa(String.fromCharCode(...mac));
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

export async function isValidTwilioSignature(
  authToken: string,
  signature: string | undefined,
  url: string,
  params: [string, string][],
): Promise<boolean> {
  if (!signature || signature.length > 100) return false;
  return constantTimeEqual(await twilioSignature(authToken, url, params), signature);
}
