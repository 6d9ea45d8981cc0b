import { ApiError } from '../../platform/errors.js';
import type { ConnectorSpec } from './catalog.js';
import type { Connector, ConnectorServices } from './connector.js';
import { ProviderError } from './provider-errors.js';

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
 * Ask the provider whether the credentials work before anything is stored (the connector's own
 * check), and return the non-secret fields to store (a handle source adds the account's stable id). A refusal is the
 * caller's to fix (400 naming the field); an unreachable or rate-limiting provider is not (503).
 */
export async function validateWithProvider(
  services: ConnectorServices,
  spec: Connector,
  fields: Record<string, string>,
  secrets: Record<string, string>,
): Promise<Record<string, string>> {
  const field = spec.authMethod === 'handle' ? 'account_handle' : 'api_key';
  try {
    return spec.checkCredentials ? await spec.checkCredentials(services, fields, secrets) : fields;
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
