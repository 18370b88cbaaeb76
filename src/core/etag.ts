/**
 * ETag (strong: SHA-1 of the body, hex) and 304 for If-None-Match on JSON GETs, through
 * hono/etag. The envelope helpers (core/http.ts) serialize the body themselves and, on a route
 * that carries ETags, set the validator from that text (`jsonBodyEtag`), as do the booking reads
 * from their cached text: hono/etag then only compares it with If-None-Match. Left to compute
 * it, hono/etag clones the response and reads the clone's stream back in chunks to digest it:
 * 0.7 ms of the Worker's CPU for a 70 KB page of 100 leads, against 0.1 ms this way (workerd
 * through miniflare; docs/benchmarks.md, nineteenth round). A body built any other way still
 * gets its ETag from hono/etag, the same value for the same bytes.
 */
import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { etag, RETAINED_304_HEADERS } from 'hono/etag';

/** The requests whose route carries ETags (the context lives as long as its request). */
const etagged = new WeakSet<Context>();

/** A 304 keeps the rate-limit headers, which describe the request just counted, besides the standard ones. */
const honoEtag = etag({ retainedHeaders: [...RETAINED_304_HEADERS, 'ratelimit', 'ratelimit-policy', 'x-request-id'] });

export const jsonEtag: MiddlewareHandler = (c, next) => {
  etagged.add(c);
  return honoEtag(c, next);
};

/**
 * The ETag of a 200 JSON body serialized as `text`, when the request's route carries ETags and
 * the request is a GET (HEAD answers from it too): the quoted hex SHA-1 of the text's UTF-8
 * bytes, which are the body's, so the value is what hono/etag would compute from the body.
 */
export function jsonBodyEtag(c: Context, text: string): string | undefined {
  if (!etagged.has(c)) return undefined;
  return `"${createHash('sha1').update(text, 'utf8').digest('hex')}"`;
}
