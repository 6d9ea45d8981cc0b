import type { Clock } from '../platform/clock.js';
import type { AppConfig } from '../platform/config.js';
import type { Database, DatabaseHandle } from '../platform/db/port.js';
import type { RateLimiter } from '../platform/limiter/port.js';
import type { Logger } from '../platform/log.js';
import type { OutboundHttp } from '../platform/net/port.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { Mailer } from '../platform/mail/port.js';
import type { FileStore } from '../platform/files/port.js';
import type { StaticAssets } from '../platform/assets/port.js';
import type { SqlParser } from '../platform/sql-parser/port.js';
import type { Embedder, ModelProvider } from '../platform/model/port.js';
import type { QueueTransport, SigningKeys } from '../queues/transport/port.js';
import type { RunEngine } from '../queues/engine.js';
import type { RunNotifier } from '../queues/notifier.js';
import type { EnginePorts } from '../queues/ports.js';
import type { CredentialVerifiers } from './identity/authenticate.js';
import type { ConsoleIdentityProvider } from './console/oidc.js';
import type { ConnectorList } from './connections/connector-list.js';
import type { DocxToHtml } from './knowledge/parsers/docx-html.js';

/**
 * The ports every handler may use, built once at an entry point from validated configuration.
 * Handlers receive them through their context; nothing imports a database or a client directly.
 * `registry` (every operation) is declared beside the registry in functions/registry.ts, which
 * adds it to this interface: operations see the services and the services hold the operations,
 * and declaring it there keeps that mutual reference out of the import graph (no cycle).
 */
export interface Services extends EnginePorts {
  config: AppConfig;
  db: Database;
  limiter: RateLimiter;
  queue: QueueTransport;
  /** Keys the stage endpoint verifies deliveries with (QStash's, or the local transport's own). */
  queueSigningKeys: SigningKeys;
  model: ModelProvider;
  embedder: Embedder;
  clock: Clock;
  log: Logger;
  credentials: CredentialVerifiers;
  /** Runs asynchronous work in stages over the queue (queues/engine.ts). */
  engine: RunEngine<Services>;
  /** Wakes long-polls and streams in this process when a run commits. */
  runNotifier: RunNotifier;
  /** Seals secrets the service must read back (webhook signing secrets). */
  secretBox: SecretBox;
  /** Where actions' emails go: the outbox (kept, not sent) or an HTTP email API. */
  mailer: Mailer;
  /** Outbound HTTP (webhook deliveries), with the SSRF address policy. */
  outbound: OutboundHttp;
  /**
   * Work a request started that must finish before its resources go (last_used_at writes): the
   * Worker waits for it before closing the request's database pool; on Node nothing needs to.
   */
  pendingWork: Promise<unknown>[];
  /** How people sign in to the console: the OIDC provider (if configured); links are a config flag. */
  consoleIdentityProvider: ConsoleIdentityProvider | null;
  /** The sources a workspace can connect (functions/connections/connectors/index.ts, unless a test passes its own). */
  connectors: ConnectorList;
  /** Uploaded files' bytes: R2 on Workers, a folder under DATA_DIR embedded, memory in tests. */
  files: FileStore;
  /** Files served as they are (the API reference's renderer): the installed packages on Node, none on a Worker. */
  assets: StaticAssets;
  /** The Postgres parser the SQL query guard checks caller SQL on: the npm package on Node, the bundled WASM on Workers. */
  sqlParser: SqlParser;
  /** Where a DOCX becomes HTML: worker threads on Node (the entry passes them), in-process when not given. */
  docxToHtml?: DocxToHtml;
  /** A connection as the least-privilege role for caller SQL, where one is configured (functions/sql-query/sandbox.ts). */
  sqlQueryConnection?: () => DatabaseHandle;
}
