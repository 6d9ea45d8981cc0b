import type { Connector } from './connector.js';
import type { ConnectionRow } from './repository.js';

/**
 * The connectors a deployment offers, in catalog order: the catalog, connects, syncs, OAuth
 * callbacks, pushes and summaries all find a connector here, by its type. Built once from
 * `allConnectors` (connectors/index.ts); a test passes a list of its own.
 */
export class ConnectorList {
  readonly #byType: ReadonlyMap<string, Connector>;

  constructor(readonly all: readonly Connector[]) {
    const byType = new Map<string, Connector>();
    for (const connector of all) {
      if (byType.has(connector.type)) throw new Error(`two connectors of type ${connector.type}`);
      byType.set(connector.type, connector);
    }
    this.#byType = byType;
  }

  find(type: string): Connector | undefined {
    return this.#byType.get(type);
  }

  /** The connector of a stored connection. */
  of(row: Pick<ConnectionRow, 'connectorType'>): Connector {
    const connector = this.find(row.connectorType);
    // A row is only ever written for a listed type; a type later removed from the list is a deploy error.
    if (!connector) throw new Error(`connection of unknown connector type ${row.connectorType}`);
    return connector;
  }
}
