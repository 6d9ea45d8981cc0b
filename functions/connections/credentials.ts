import { ApiError } from '../../platform/errors.js';
import type { Services } from '../services.js';
import type { ConnectorSpec } from './catalog.js';
import { ProviderError } from './provider-errors.js';
import { BlueskyClient } from './connectors/bluesky/client.js';
import { GongClient } from './connectors/gong/client.js';
import { HubSpotClient } from './connectors/hubspot/client.js';

/**
 * The connect fields of a request, checked against the catalog entry: every declared field is
 * required (sending only `api_key` where `api_id` is declared too is refused), nothing undeclared
 * is accepted. Secret fields are split from the others: they are sealed, the others kept in clear.
 */
export function connectFields(
  spec: ConnectorSpec,
  input: Record<string, unknown>,
  mode: 'connect' | 'reconnect',
): { secrets: Record<string, string>; fields: Record<string, string> } {
  const offered = ['api_key', 'api_id', 'account_handle'].filter((k) => typeof input[k] === 'string');
  const declared = new Set(spec.fields.map((f) => f.key));
  const stray = offered.filter((k) => !declared.has(k));
  if (stray.length > 0) {
    throw new ApiError(
      'invalid_argument',
      `${spec.name} does not take ${stray.join(', ')}; its fields are: ${[...declared].join(', ') || 'none (it connects by OAuth)'}.`,
      {
        field: stray[0],
        connector_type: spec.type,
        fields: [...declared],
      },
    );
  }
  const required = spec.fields.filter((f) => (mode === 'connect' ? true : f.resupplyOnReconnect));
  const missing = required.filter((f) => typeof input[f.key] !== 'string').map((f) => f.key);
  if (missing.length > 0) {
    throw new ApiError(
      'invalid_argument',
      `${spec.name} needs ${missing.join(' and ')}${mode === 'reconnect' ? ' again to reconnect' : ''}.`,
      { field: missing[0], missing_fields: missing, connector_type: spec.type },
    );
  }
  const secrets: Record<string, string> = {};
  const fields: Record<string, string> = {};
  for (const f of spec.fields) {
    const value = input[f.key];
    if (typeof value !== 'string') continue;
    (f.secret ? secrets : fields)[f.key] = value;
  }
  return { secrets, fields };
}

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

/**
 * Ask the provider whether the credentials work before anything is stored, and return the
 * non-secret fields to store (a handle source adds the account's stable id). A refusal is the
 * caller's to fix (400 naming the field); an unreachable or rate-limiting provider is not (503).
 */
export async function validateWithProvider(
  services: Services,
  spec: ConnectorSpec,
  fields: Record<string, string>,
  secrets: Record<string, string>,
): Promise<Record<string, string>> {
  const field = spec.authMethod === 'handle' ? 'account_handle' : 'api_key';
  try {
    switch (spec.type) {
      case 'hubspot':
        await new HubSpotClient({
          baseUrl: services.config.HUBSPOT_API_BASE_URL,
          token: secrets.api_key ?? '',
        }).validate();
        return fields;
      case 'gong':
        await new GongClient({
          baseUrl: services.config.GONG_API_BASE_URL,
          accessKey: fields.api_id ?? '',
          accessKeySecret: secrets.api_key ?? '',
        }).validate();
        return fields;
      case 'bluesky': {
        const actor = fields.account_did ?? normalizeHandle(fields.account_handle ?? '');
        const account = await new BlueskyClient({ baseUrl: services.config.BLUESKY_API_BASE_URL }).profile(actor);
        // Pinned to the DID: a handle can be renamed, the account behind it stays.
        return { ...fields, account_handle: account.handle, account_did: account.did };
      }
      default:
        return fields;
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.reason === 'auth' || error.reason === 'config') {
      const message =
        spec.authMethod === 'handle'
          ? `${spec.name} has no account ${fields.account_handle ?? fields.account_did ?? ''} that can be read: check the handle.`
          : `${spec.name} refused these credentials: check the ${spec.fields.map((f) => f.label.toLowerCase()).join(' and ')}.`;
      throw new ApiError('invalid_argument', message, {
        field,
        connector_type: spec.type,
        provider_reason: error.reason,
      });
    }
    throw new ApiError(
      'dependency_unavailable',
      `${spec.name} could not check the ${spec.authMethod === 'handle' ? 'account' : 'credentials'} just now; nothing was stored. Try again shortly.`,
      {
        connector_type: spec.type,
        provider_reason: error.reason,
        ...(error.retryAfterSeconds ? { retry_after_seconds: error.retryAfterSeconds } : {}),
      },
    );
  }
}
