/**
 * Credentials at rest: AES-256-GCM through WebCrypto under a key derived (HKDF-SHA256) from the
 * Worker secret CREDENTIALS_KEY. A sealed value is `v1.<key id>.<iv>.<ciphertext>` (base64url):
 * the key id (the first 8 bytes of SHA-256 over the key, hex) names the key that sealed it, so
 * CREDENTIALS_KEY can rotate: the new key seals, and keys listed in CREDENTIALS_KEYS_PREVIOUS still
 * open what the old ones sealed until every row has been sealed again. The organization id is the
 * additional data, so a ciphertext copied into another organization's row does not open.
 * Nothing here logs, and no error carries plaintext.
 */
import { base64url } from 'jose';
import type { Bindings } from '../env';
import { ApiError } from '../core/errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MIN_KEY_BYTES = 32;

interface KeyEntry {
  id: string;
  key: Promise<CryptoKey>;
}

export interface Keyring {
  /** The key that seals. */
  current: KeyEntry;
  /** Every key that may open: the current one and the previous ones, by id. */
  byId: Map<string, KeyEntry>;
}

/** The Worker has no usable CREDENTIALS_KEY: routes that need credentials refuse with 503 (the log says why). */
export class CredentialsKeyMissing extends ApiError {
  constructor() {
    super(
      503,
      'service_unavailable',
      'Stored credentials cannot be used: the server has no credentials key configured',
      'credentials_key_missing',
    );
  }
}

/** A sealed value that no configured key opens (rotated away, or tampered with). */
export class SecretUnreadable extends Error {
  constructor(reason: string) {
    super(`sealed secret unreadable: ${reason}`);
  }
}

async function keyId(material: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(material)));
  return [...digest.slice(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function deriveKey(material: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(material), 'HKDF', false, ['deriveKey']).then((base) =>
    crypto.subtle.deriveKey(
      {
        name: 'HKDF',
        hash: 'SHA-256',
        salt: encoder.encode('lead-management/credentials'),
        info: encoder.encode('aes-256-gcm/v1'),
      },
      base,
      { name: 'AES-GCM', length: 256 },
      false,
      ['encrypt', 'decrypt'],
    ),
  );
}

const keyrings = new Map<string, Promise<Keyring>>();

async function buildKeyring(current: string, previous: string[]): Promise<Keyring> {
  const entries = await Promise.all(
    [current, ...previous].map(async (material) => ({ id: await keyId(material), key: deriveKey(material) })),
  );
  return { current: entries[0], byId: new Map(entries.map((entry) => [entry.id, entry])) };
}

/** Whether the Worker has a usable CREDENTIALS_KEY (at least 32 bytes). */
export function hasCredentialsKey(env: Pick<Bindings, 'CREDENTIALS_KEY'>): boolean {
  return !!env.CREDENTIALS_KEY && encoder.encode(env.CREDENTIALS_KEY).length >= MIN_KEY_BYTES;
}

/**
 * The keyring from the bindings; without a usable CREDENTIALS_KEY it logs why and throws
 * CredentialsKeyMissing (a 503 on a route, a retry in a job).
 */
export function keyringOf(env: Pick<Bindings, 'CREDENTIALS_KEY' | 'CREDENTIALS_KEYS_PREVIOUS'>): Promise<Keyring> {
  if (!hasCredentialsKey(env)) {
    console.error(
      JSON.stringify({
        level: 'error',
        message: env.CREDENTIALS_KEY
          ? 'CREDENTIALS_KEY is shorter than 32 bytes: stored credentials cannot be sealed or opened'
          : 'CREDENTIALS_KEY is not set: stored credentials cannot be sealed or opened',
      }),
    );
    throw new CredentialsKeyMissing();
  }
  const current = env.CREDENTIALS_KEY as string;
  const previous = (env.CREDENTIALS_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => encoder.encode(key).length >= MIN_KEY_BYTES);
  const cacheKey = [current, ...previous].join('\n');
  let keyring = keyrings.get(cacheKey);
  if (!keyring) {
    keyring = buildKeyring(current, previous);
    keyrings.set(cacheKey, keyring);
  }
  return keyring;
}

export interface Sealed {
  sealed: string;
  keyId: string;
}

/** Seals a JSON value for one organization under the current key. */
export async function sealSecret(keyring: Keyring, orgId: number, value: unknown): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(`org:${orgId}`) },
    await keyring.current.key,
    encoder.encode(JSON.stringify(value)),
  );
  const sealed = ['v1', keyring.current.id, base64url.encode(iv), base64url.encode(new Uint8Array(ciphertext))].join(
    '.',
  );
  return { sealed, keyId: keyring.current.id };
}

/** Opens a sealed value of the organization; throws SecretUnreadable (never with the plaintext). */
export async function openSecret<T>(keyring: Keyring, orgId: number, sealed: string): Promise<T> {
  const [version, id, iv, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !id || !iv || !ciphertext) throw new SecretUnreadable('malformed');
  const entry = keyring.byId.get(id);
  if (!entry) throw new SecretUnreadable(`sealed under key ${id}, which is not configured`);
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: base64url.decode(iv), additionalData: encoder.encode(`org:${orgId}`) },
      await entry.key,
      base64url.decode(ciphertext),
    );
    return JSON.parse(decoder.decode(plaintext)) as T;
  } catch {
    throw new SecretUnreadable('authentication failed');
  }
}
