import { z } from 'zod';
import type { Connector, ConnectorServices } from './connector.js';
import type { ConnectorList } from './connector-list.js';
import { OAuthSession, TokenSetSchema, type OAuthSource } from './oauth-client.js';
import { ProviderError } from './provider-errors.js';
import { updateConnection, type ConnectionRow } from './repository.js';
import type { SyncSource } from './sync-source.js';

/** The secret fields of a connection, as sealed at connect. */
export const SealedCredentials = z.record(z.string(), z.string());

export async function openCredentials(
  services: Pick<ConnectorServices, 'secretBox'>,
  connection: ConnectionRow,
): Promise<Record<string, string>> {
  if (!connection.credentialsSealed)
    throw new ProviderError('config', 'The connection holds no credentials; reconnect it.');
  const parsed = SealedCredentials.safeParse(JSON.parse(await services.secretBox.open(connection.credentialsSealed)));
  if (!parsed.success)
    throw new ProviderError('config', 'The connection\u2019s stored credentials cannot be read; reconnect it.');
  return parsed.data;
}

/** The OAuth session of a connection; a refreshed token is sealed back onto the connection at once. */
export function connectionOAuthSession(
  services: ConnectorServices,
  connection: ConnectionRow,
  secrets: Record<string, string>,
  source: OAuthSource,
): OAuthSession {
  const tokens = TokenSetSchema.safeParse(JSON.parse(secrets.oauth ?? 'null'));
  if (!tokens.success)
    throw new ProviderError('auth', 'The connection holds no usable authorization; connect it again.');
  return new OAuthSession(tokens.data, {
    source,
    config: services.config,
    now: () => services.clock.now(),
    onRefresh: async (next) => {
      const sealed = await services.secretBox.seal(JSON.stringify({ oauth: JSON.stringify(next) }));
      await updateConnection(services.db, connection, { credentialsSealed: sealed });
    },
  });
}

/** The sync source of a connection, with its credentials opened (never logged, never returned). */
export async function openSyncSource(
  services: ConnectorServices & { connectors: ConnectorList },
  connection: ConnectionRow,
): Promise<SyncSource> {
  const secrets = await openCredentials(services, connection);
  const connector = services.connectors.find(connection.connectorType);
  if (!connector?.openSyncSource)
    throw new ProviderError('config', `Syncing ${connection.connectorType} is not available in this version.`);
  return connector.openSyncSource(services, connection, secrets);
}

/** The `source` a connection's rows carry in the warehouse. */
export const warehouseSourceOf = (connector: Connector, connection: Pick<ConnectionRow, 'id'>): string =>
  connector.warehouseSource?.(connection) ?? connector.type;
