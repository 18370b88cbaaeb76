/**
 * Byte encodings shared by tokens, API keys, password hashes and list cursors: base64url
 * without padding (RFC 4648 §5), safe in URLs, headers and query strings as-is.
 */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Throws on characters outside the alphabet (atob's DOMException); callers turn that into their own 4xx. */
export function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
