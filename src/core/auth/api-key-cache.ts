/**
 * Verified API keys kept in the isolate's memory, so a warm isolate checks a key with no database
 * round trip: key hash → organization, restrictions, expiry and last-use stamp, for at most
 * API_KEY_CACHE_TTL_MS. Unknown hashes are remembered too (as null), so a flood of bad keys does
 * not reach the database either.
 *
 * Revocation: the isolate that revokes a key drops its entry at once (`forgetApiKey`), and again
 * after the revocation commits (a request there before the commit may have cached the old row); other
 * isolates keep accepting the key until their entry expires, so a revoked key stops working
 * everywhere within API_KEY_CACHE_TTL_MS (60 s). Expiry is checked on every request from the
 * cached `expiresAt`, so an expiring key stops on time.
 */
export const API_KEY_CACHE_TTL_MS = 60_000;

/**
 * What an API key may call; each API-key route requires one (defineRoute's `scope`). A key placed
 * in a web page should hold leads:write only: leads:read lists every lead of the organization.
 */
export const API_KEY_SCOPES = ['leads:read', 'leads:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** Bounds the memory a flood of distinct keys can take (oldest entries go first). */
const MAX_ENTRIES = 10_000;

export interface CachedApiKey {
  id: number;
  organizationId: number;
  createdBy: number | null;
  allowedDomains: string[];
  allowedIps: string[];
  /** The scopes it holds (API_KEY_SCOPES), read in the same statement as the key. */
  scopes: string[];
  expiresAt: number | null;
  /** Last `last_used_at` stamp this isolate knows of (ms), to stamp at most once a minute. */
  lastUsedAt: number | null;
}

interface Entry {
  key: CachedApiKey | null;
  until: number;
}

const entries = new Map<string, Entry>();

/** The cached verdict for a hash: a key, null (known unknown or revoked), or undefined (ask the database). */
export function cachedApiKey(hash: string, now = Date.now()): CachedApiKey | null | undefined {
  const entry = entries.get(hash);
  if (!entry) return undefined;
  if (entry.until <= now) {
    entries.delete(hash);
    return undefined;
  }
  return entry.key;
}

export function rememberApiKey(hash: string, key: CachedApiKey | null, now = Date.now()): void {
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(hash, { key, until: now + API_KEY_CACHE_TTL_MS });
}

/** Drops a key from this isolate's cache (on revocation). */
export function forgetApiKey(id: number): void {
  for (const [hash, entry] of entries) if (entry.key?.id === id) entries.delete(hash);
}
