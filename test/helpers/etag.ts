import { createHash } from 'node:crypto';

/**
 * The ETag the API gives a body: the quoted hex SHA-1 of its bytes (a string taken as UTF-8), as
 * src/core/etag.ts computes it. Tests compare a response's ETag with this of the body received.
 */
export function bodyEtag(body: string | Uint8Array): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return `"${createHash('sha1').update(bytes).digest('hex')}"`;
}
