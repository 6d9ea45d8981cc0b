import { ApiError } from '../errors.js';
import { classifyAddress, isIpLiteral } from './address-policy.js';

/**
 * Where a webhook may point. https always; plain http only to a loopback host, and only when
 * loopback is allowed (ALLOW_LOOPBACK_WEBHOOKS=1: tests and local development). The same in every
 * environment: a signed payload sent in clear to a public address is readable by anyone on the path.
 */
export interface UrlPolicy {
  /** Loopback destinations (and http to them) are accepted. */
  allowLoopback: boolean;
}

const MAX_URL_LENGTH = 2048;
const METADATA_HOSTS = [
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
];

const refuse = (reason: string, message: string) =>
  new ApiError('invalid_argument', `Webhook url refused: ${message}`, {
    fields: [{ field: 'url', problem: message, code: 'url_refused' }],
    reason,
  });

/**
 * What can be judged from the URL alone (registration and every delivery): scheme, credentials,
 * length, names that always mean an internal host, and IP literals. Returns the parsed URL.
 */
export function checkWebhookUrlSyntax(raw: string, policy: UrlPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) throw refuse('too_long', `longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('malformed', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse('scheme', `scheme ${url.protocol.replace(':', '')} is not http or https`);
  if (url.username || url.password) throw refuse('credentials', 'URLs may not carry credentials');
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (!host) throw refuse('malformed', 'no host');
  const literal = host.replace(/^\[|\]$/g, '');
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (METADATA_HOSTS.includes(host)) throw refuse('metadata', `${host} is a cloud metadata host`);
  if (loopbackName && !policy.allowLoopback) throw refuse('loopback', `${host} is a loopback name`);
  if (isIpLiteral(literal)) {
    const verdict = classifyAddress(literal, policy);
    if (!verdict.allowed) throw refuse(verdict.range, `${literal} is a ${verdict.range} address`);
  }
  const isLoopback =
    loopbackName || (isIpLiteral(literal) && classifyAddress(literal, { allowLoopback: true }).range === 'loopback');
  if (url.protocol === 'http:' && !(isLoopback && policy.allowLoopback)) {
    throw refuse('scheme', 'https is required (plain http only to a loopback host with ALLOW_LOOPBACK_WEBHOOKS=1)');
  }
  return url;
}

/** Every address the host resolves to must be allowed (a host with one private address is refused). */
export async function checkWebhookUrlResolves(
  url: URL,
  policy: UrlPolicy,
  resolveHost: (host: string) => Promise<string[]>,
): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(host) || host === 'localhost' || host.endsWith('.localhost')) return;
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw refuse('unresolvable', `${host} does not resolve`);
  }
  if (addresses.length === 0) throw refuse('unresolvable', `${host} does not resolve`);
  for (const address of addresses) {
    const verdict = classifyAddress(address, policy);
    if (!verdict.allowed) throw refuse(verdict.range, `${host} resolves to ${address}, a ${verdict.range} address`);
  }
}
