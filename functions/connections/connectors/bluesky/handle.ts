import { ApiError } from '../../../../platform/errors.js';

/**
 * A Bluesky handle as people write it (`@acme.com`, `acme.bsky.social`, a bsky.app profile link)
 * or a DID, in the form the AppView takes; anything else is the caller's to fix.
 */
export function normalizeHandle(input: string): string {
  let value = input.trim();
  const link = /^https?:\/\/(?:www\.)?bsky\.app\/profile\/([^/?#]+)/i.exec(value);
  if (link?.[1]) value = decodeURIComponent(link[1]);
  value = value.replace(/^@/, '');
  if (/^did:(plc|web):[a-zA-Z0-9._:%-]+$/.test(value)) return value;
  value = value.toLowerCase();
  // atproto handle syntax: dot-separated labels of letters, digits and hyphens, a letter-led last label.
  if (value.length > 253 || !/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/.test(value)) {
    throw new ApiError(
      'invalid_argument',
      `account_handle must be a Bluesky handle such as yourcompany.com or yourcompany.bsky.social (or a did:plc: identifier); got \u201c${input.slice(0, 100)}\u201d.`,
      {
        field: 'account_handle',
      },
    );
  }
  return value;
}
