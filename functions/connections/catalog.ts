import type { AppConfig } from '../../platform/config.js';
import { configOf } from './filters.js';
import type { ConnectionRow } from './repository.js';

/**
 * A catalog entry (spec: catalog entry), the part of a connector (connector.ts) the catalog shows;
 * the entries themselves are the connectors' own (connectors/<provider>/index.ts). Each says how it
 * connects (its fields), what it brings (`dataStreams`), and whether it can be connected here and now: an OAuth
 * source needs this deployment's client id and secret, and a source whose sync this version does not
 * implement says so instead of accepting a connection that would never fill anything.
 */
export const CATEGORIES = ['crm', 'calls', 'comms', 'docs', 'support', 'social'] as const;
export type Category = (typeof CATEGORIES)[number];
export const AUTH_METHODS = ['oauth', 'api_key', 'handle', 'webhook'] as const;
export type ConnectMethod = (typeof AUTH_METHODS)[number];

export interface ConnectField {
  key: string;
  label: string;
  secret: boolean;
  placeholder: string | null;
  help: string;
  resupplyOnReconnect: boolean;
}

export interface ConnectorSpec {
  type: string;
  name: string;
  category: Category;
  authMethod: ConnectMethod;
  monogram: string;
  fields: ConnectField[];
  keyUrl: string | null;
  single_instance: boolean;
  ownership: 'workspace' | 'personal';
  description: string;
  dataStreams: string[];
  /** Why it cannot be connected in this deployment, or null when it can. */
  unavailable(config: AppConfig): string | null;
}

/** A catalog entry as the API shows it (spec: Connection and catalog entry). */
export function catalogEntry(spec: ConnectorSpec, config: AppConfig) {
  const reason = spec.unavailable(config);
  return {
    type: spec.type,
    name: spec.name,
    kind: 'first_party' as const,
    category: spec.category,
    authMethod: spec.authMethod,
    logo: { key: spec.type, url: null, monogram: spec.monogram },
    connect: { method: spec.authMethod, fields: spec.fields, keyUrl: spec.keyUrl },
    connectable: reason === null,
    unavailableReason: reason,
    single_instance: spec.single_instance,
    ownership: spec.ownership,
    description: spec.description,
    dataStreams: spec.dataStreams,
  };
}

/** Whether a connection's syncs wait on a decision (a calls source without its call filter decision). */
export function pausedReason(
  connector: Pick<ConnectorSpec, 'category'>,
  connection: Pick<ConnectionRow, 'config'>,
): 'call_filters_required' | null {
  return connector.category === 'calls' && !configOf(connection.config).call_filters ? 'call_filters_required' : null;
}

/** Sources that push to the service instead of being synced on a schedule. */
export const isPushed = (connector: Pick<ConnectorSpec, 'authMethod'>): boolean => connector.authMethod === 'webhook';
