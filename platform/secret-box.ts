import { fromBase64, toBase64Url } from './crypto.js';

/**
 * Seals secrets the service must read back later (a webhook's signing secret must sign every
 * delivery, so it cannot be hashed like an API key). AES-256-GCM with a key derived by HKDF from
 * SECRETS_ENCRYPTION_KEY; the format "v1.<iv>.<ciphertext>" leaves room to rotate.
 */
export class SecretBox {
  readonly #key: Promise<CryptoKey>;

  /** Without a master secret every seal and open fails, saying what to configure. */
  constructor(masterSecret: string | undefined) {
    this.#key = (async () => {
      if (!masterSecret) throw new Error('SECRETS_ENCRYPTION_KEY is not configured');
      const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(masterSecret), 'HKDF', false, [
        'deriveKey',
      ]);
      return crypto.subtle.deriveKey(
        {
          name: 'HKDF',
          hash: 'SHA-256',
          salt: new TextEncoder().encode('cip-secret-box'),
          info: new TextEncoder().encode('v1'),
        },
        material,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      );
    })();
    this.#key.catch(() => {}); // Reported on use, not as an unhandled rejection at construction.
  }

  async seal(plaintext: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv },
      await this.#key,
      new TextEncoder().encode(plaintext),
    );
    return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`;
  }

  async open(sealed: string): Promise<string> {
    const [version, iv, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !ciphertext) throw new Error('unrecognised sealed secret');
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(iv) as Uint8Array<ArrayBuffer> },
      await this.#key,
      fromBase64(ciphertext) as Uint8Array<ArrayBuffer>,
    );
    return new TextDecoder().decode(plaintext);
  }
}
