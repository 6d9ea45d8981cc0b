import { createHash } from 'node:crypto';

/**
 * The key of a text in the semantic store: md5 of its UTF-8 bytes, hex, exactly what Postgres'
 * `md5(text)` computes for `utterances.text_hash` (a generated column). md5 as a content key, not
 * for security: no one gains by colliding two customer sentences in their own workspace.
 * (node:crypto runs on Workers under the nodejs_compat flag.)
 */
export function textHash(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}
