import type { Clock } from '../../platform/clock.js';
import type { AppConfig } from '../../platform/config.js';
import type { Database } from '../../platform/db/port.js';
import type { Embedder } from '../../platform/model/port.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { ConnectorSpec } from './catalog.js';
import type { CallVerdict } from './filters.js';
import type { OAuthSource } from './oauth-client.js';
import type { ConnectionRow } from './repository.js';
import type { SummaryBlock } from './summary-blocks.js';
import type { SyncSource } from './sync-source.js';

/**
 * A source a workspace can connect, as one plugin: everything the connections surface needs to know
 * about a provider is here, and nothing outside `connectors/` asks which provider a connection is.
 * A connector lives in `connectors/<provider>/` with its client and its ingest mapping, and is
 * switched on by one line in `connectors/index.ts` (`allConnectors`).
 *
 * The catalog entry (ConnectorSpec) says how it connects (`authMethod`, `fields`) and what it
 * brings; each capability below is optional where a connector may lack it, and the surface reads
 * its absence (no `openSyncSource`: nothing to sync on a schedule; no `oauth`: no consent flow).
 */
export interface Connector extends ConnectorSpec {
  /**
   * Ask the provider whether the connect fields work, before anything is stored, and return the
   * non-secret fields to keep (a handle source pins the account's stable id). A ProviderError
   * refusing them (`auth`, `config`) is the caller's to fix; any other is the provider's.
   * Absent: nothing to check (OAuth and webhook sources).
   */
  checkCredentials?(
    services: ConnectorServices,
    fields: Record<string, string>,
    secrets: Record<string, string>,
  ): Promise<Record<string, string>>;
  /** The sync of a connection, its sealed secrets opened. Absent: the source is not synced (pushed, or not in this version). */
  openSyncSource?(services: ConnectorServices, connection: ConnectionRow, secrets: Record<string, string>): SyncSource;
  /** The OAuth authorization server and this deployment's client, for an `oauth` source. */
  oauth?: OAuthSource;
  /** Receive a verified push (a webhook source): the parsed JSON body, written to the warehouse. */
  receivePush?(services: ConnectorServices, connection: ConnectionRow, body: unknown): Promise<PushOutcome>;
  /** The `source` its warehouse rows carry; the connector type unless the connector says otherwise. */
  warehouseSource?(connection: Pick<ConnectionRow, 'id'>): string;
  /** What the connection has brought, counted live (GET /connections/{id}/summary). */
  summary: SummaryBlock;
}

/** The ports a connector uses: a narrow view of the service's, so connectors import no feature wiring. */
export interface ConnectorServices {
  config: AppConfig;
  db: Database;
  clock: Clock;
  embedder: Embedder;
  secretBox: SecretBox;
}

/** What a push answers: items received, written, and dropped by a filter (by reason). */
export interface PushOutcome {
  accepted: number;
  written: number;
  dropped: Partial<Record<Exclude<CallVerdict, { keep: true }>['reason'], number>>;
}
