import { v7 as uuidv7 } from 'uuid';

/** Time-sortable UUID (v7): ids of records whose creation order matters. */
export const newId = (): string => uuidv7();

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string of `length` characters from the platform CSPRNG (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      // 248 = 62 * 4: reject the tail so every character is equally likely.
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
