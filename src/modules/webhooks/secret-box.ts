/**
 * Webhook signing secrets at rest: AES-256-GCM (WebCrypto) under a key derived with HKDF-SHA256
 * from the Worker's JWT_SECRET, the organization id as additional data (a sealed value copied
 * into another organization's row does not open). Stop-gap until the provider layer's
 * src/providers/secrets.ts (CREDENTIALS_KEY, key rotation) is on main: then this file's two
 * functions call it and existing rows are sealed again (their `wh0.` prefix tells them apart).
 */
import { readConfig, type Bindings } from '../../env';

const PREFIX = 'wh0.';
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(env: Bindings): Promise<CryptoKey> {
  const material = readConfig(env).JWT_SECRET;
  let key = keys.get(material);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(material), 'HKDF', false, ['deriveKey']).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: 'HKDF',
          hash: 'SHA-256',
          salt: encoder.encode('lead-management/webhook-secrets'),
          info: new Uint8Array(),
        },
        base,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      ),
    );
    keys.set(material, key);
  }
  return key;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export async function sealSecret(env: Bindings, orgId: number, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(String(orgId)) },
    await keyFor(env),
    encoder.encode(plaintext),
  );
  return `${PREFIX}${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

export async function openSecret(env: Bindings, orgId: number, sealed: string): Promise<string> {
  const [iv, data] = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split('.') : [];
  if (!iv || !data) throw new Error('sealed webhook secret unreadable: unknown format');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64Url(iv), additionalData: encoder.encode(String(orgId)) },
    await keyFor(env),
    fromBase64Url(data),
  );
  return new TextDecoder().decode(plain);
}
