import { Receiver } from '@upstash/qstash';
import { SignJWT } from 'jose';
import { sha256Base64Url } from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';
import type { SigningKeys } from './port.js';

/**
 * Sign a delivery exactly as QStash does (`Upstash-Signature`: an HS256 JWT with issuer "Upstash",
 * subject = destination URL, claim `body` = base64url SHA-256 of the raw body), so the local
 * transport's deliveries pass through the same verification as production's. JWT times are wall
 * clock, never the injectable clock: the receiver checks them against real time.
 */
export async function signDelivery(key: string, url: string, rawBody: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ body: await sha256Base64Url(rawBody) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(url)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .setJti(`jwt_${newId()}`)
    .sign(new TextEncoder().encode(key));
}

/**
 * Verify `Upstash-Signature` on the raw body before anything parses it, with the current key and
 * then the next one (key rotation). Returns false rather than throwing: the endpoint answers 401.
 */
export async function verifyDelivery(
  keys: SigningKeys,
  signature: string | undefined,
  url: string,
  rawBody: string,
): Promise<boolean> {
  if (!signature) return false;
  // devMode: false, or QSTASH_DEV in the environment would swap our keys for QStash's dev-server keys.
  const receiver = new Receiver({ currentSigningKey: keys.current, nextSigningKey: keys.next, devMode: false });
  try {
    return await receiver.verify({ signature, body: rawBody, url, clockTolerance: 5 });
  } catch {
    return false;
  }
}
