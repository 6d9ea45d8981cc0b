import * as nodeCrypto from 'node:crypto';

/**
 * Hashing and HMAC. Digests use node:crypto (Node, and Workers under the nodejs_compat flag):
 * every authenticated request hashes its credential, and Web Crypto's digest costs ~50 us a call
 * here against ~1 us. HMAC stays on Web Crypto.
 */

const encoder = new TextEncoder();

/**
 * One-shot `crypto.hash` (Node 20.12+) where the runtime has it: a third of createHash's cost, with
 * no Hash object per call; createHash elsewhere (Workers' nodejs_compat).
 */
const digest: (input: string | Uint8Array, encoding: 'hex' | 'base64url') => string =
  typeof nodeCrypto.hash === 'function'
    ? (input, encoding) => nodeCrypto.hash('sha256', input, encoding)
    : (input, encoding) => nodeCrypto.createHash('sha256').update(input).digest(encoding);

export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  return digest(input, 'hex');
}

export async function sha256Base64Url(input: string | Uint8Array): Promise<string> {
  return digest(input, 'base64url');
}

export async function hmacSha256(key: Uint8Array, message: string | Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const data = typeof message === 'string' ? encoder.encode(message) : message;
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, data as Uint8Array<ArrayBuffer>));
}

/** Constant-time comparison of two strings of possibly different length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  let diff = ab.length ^ bb.length;
  const len = Math.max(ab.length, bb.length);
  for (let i = 0; i < len; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Lower-case hex; a table lookup per byte, since every authenticated request hashes its key. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += HEX_BYTES[b];
  return hex;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** A SHA-256 fed chunk by chunk (a file hashed as it streams to the store, never whole in memory). */
export function incrementalSha256(): { update(chunk: Uint8Array): void; hex(): string } {
  const hash = nodeCrypto.createHash('sha256');
  return {
    update: (chunk) => void hash.update(chunk),
    hex: () => hash.digest('hex'),
  };
}
