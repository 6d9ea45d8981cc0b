import { systemClock, type Clock } from '../platform/clock.js';
import type { AppConfig } from '../platform/config.js';
import type { Database, DatabaseHandle } from '../platform/db/port.js';
import type { RateLimiter } from '../platform/limiter/port.js';
import { MemoryRateLimiter } from '../platform/limiter/memory.js';
import { UpstashRateLimiter } from '../platform/limiter/upstash.js';
import { createLogger, type Logger } from '../platform/log.js';
import { fetchOutboundHttp } from '../platform/net/fetch-http.js';
import type { OutboundHttp } from '../platform/net/port.js';
import { SecretBox } from '../platform/secret-box.js';
import { MemoryFileStore } from '../platform/files/memory.js';
import type { FileStore } from '../platform/files/port.js';
import { noStaticAssets, type StaticAssets } from '../platform/assets/port.js';
import { packageSqlParser } from '../platform/sql-parser/package.js';
import type { SqlParser } from '../platform/sql-parser/port.js';
import { httpMailer } from '../platform/mail/http.js';
import { outboxMailer } from '../platform/mail/outbox.js';
import { LocalHashEmbedder, LocalModelProvider } from '../platform/model/local.js';
import { OpenAiCompatibleProvider, openAiEmbedder } from '../platform/model/openai.js';
import type { Embedder, ModelProvider } from '../platform/model/port.js';
import { WorkersAiEmbedder, WorkersAiProvider, type WorkersAiBinding } from '../platform/model/workers-ai.js';
import { RunEngine } from '../queues/engine.js';
import { RunNotifier } from '../queues/notifier.js';
import type { Pipeline } from '../queues/pipeline.js';
import { allPipelines, defaultRegistry } from './modules.js';
import { LocalTransport } from '../queues/transport/local.js';
import type { QueueTransport, SigningKeys } from '../queues/transport/port.js';
import { QStashTransport } from '../queues/transport/qstash.js';
import { API_PREFIX } from './http/env.js';
import { identityProviderFromConfig } from './identity/identity-provider.js';
import { consoleIdentityProviderFromConfig, type IdentityProviderFetch } from './console/oidc.js';
import type { Connector } from './connections/connector.js';
import { ConnectorList } from './connections/connector-list.js';
import { allConnectors } from './connections/connectors/index.js';
import type { Services } from './services.js';
import type { OperationRegistry } from './registry.js';
import type { DocxToHtml } from './knowledge/parsers/docx-html.js';

/**
 * Choose every adapter from configuration, in one place (architecture: "the adapter is chosen once,
 * from validated configuration, at the entry point"). Runtime-neutral: no PGlite, no node:fs, so the
 * Worker can use it too; the database handle is opened by the entry point and passed in.
 */
export interface ServiceInputs {
  config: AppConfig;
  db: Database;
  /** The OAuth signing secret (from config, or generated and kept by the embedded default). */
  oauthSecret: string;
  /** Signing keys for the local transport when QStash is not configured. */
  localQueueKeys?: SigningKeys;
  clock?: Clock;
  log?: Logger;
  limiter?: RateLimiter;
  workersAi?: WorkersAiBinding;
  /** Keep one memory limiter alive across requests (Workers build services per request). */
  memoryLimiter?: MemoryRateLimiter;
  /** The operations offered (REST, MCP, runs' tools); defaults to every operation of the service. */
  registry?: OperationRegistry;
  /** The run kinds the engine knows; tests add their own. */
  pipelines?: readonly Pipeline<Services>[];
  /** Shared across per-request service sets in one process. */
  runNotifier?: RunNotifier;
  /** Key that seals stored secrets (the embedded default's own; else config SECRETS_ENCRYPTION_KEY). */
  secretsEncryptionKey?: string | undefined;
  /** A model to use instead of the configured one (tests and benchmarks script agent turns with it). */
  model?: ModelProvider;
  /** Outbound HTTP for webhooks: Node's guarded client, or fetch on Workers (the default). */
  outbound?: OutboundHttp;
  /** How the console reaches its OIDC provider (tests route it to a fake provider in process). */
  identityProviderFetch?: IdentityProviderFetch;
  /** The connectors offered; defaults to every connector of the service (`allConnectors`). */
  connectors?: readonly Connector[];
  /** Where uploads go: R2 (Worker), a folder under DATA_DIR (npm start); memory when not given (tests). */
  files?: FileStore;
  /** Files served as they are (the API reference's renderer); none when not given (a Worker). */
  assets?: StaticAssets;
  /** The Postgres parser: the npm package when not given (Node); the Worker passes its bundled WASM. */
  sqlParser?: SqlParser;
  /** DOCX to HTML off the event loop (Node: docxThreadPool); in-process when not given. */
  docxToHtml?: DocxToHtml;
  /** Opens a connection as the least-privilege role for caller SQL (SQL_QUERY_DATABASE_URL), where configured. */
  sqlQueryConnection?: () => DatabaseHandle;
}

export function buildServices(inputs: ServiceInputs): Services {
  const { config } = inputs;
  const clock = inputs.clock ?? systemClock;
  const log = inputs.log ?? createLogger(config.LOG_LEVEL);
  const limiter =
    inputs.limiter ??
    (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN
      ? new UpstashRateLimiter({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN })
      : (inputs.memoryLimiter ?? new MemoryRateLimiter(clock)));

  let queue: QueueTransport;
  let queueSigningKeys: SigningKeys;
  if (config.QSTASH_TOKEN && config.QSTASH_CURRENT_SIGNING_KEY && config.QSTASH_NEXT_SIGNING_KEY) {
    queue = new QStashTransport({
      token: config.QSTASH_TOKEN,
      publicUrl: config.publicUrl,
      baseUrl: config.QSTASH_URL,
    });
    queueSigningKeys = { current: config.QSTASH_CURRENT_SIGNING_KEY, next: config.QSTASH_NEXT_SIGNING_KEY };
  } else {
    if (!inputs.localQueueKeys) throw new Error('the local queue transport needs signing keys');
    queueSigningKeys = inputs.localQueueKeys;
    queue = new LocalTransport({ publicUrl: config.publicUrl, keys: queueSigningKeys, clock, db: inputs.db, log });
  }

  const chosen = chooseModel(config, inputs.workersAi);
  const model = inputs.model ?? chosen.model;
  const embedder = chosen.embedder;

  const services: Services = {
    config,
    db: inputs.db,
    limiter,
    queue,
    queueSigningKeys,
    model,
    embedder,
    clock,
    log,
    credentials: {
      oauth: {
        secret: new TextEncoder().encode(inputs.oauthSecret),
        issuer: config.publicUrl,
        audience: `${config.publicUrl}${API_PREFIX}`,
        mcpAudience: `${config.publicUrl}${API_PREFIX}/mcp`,
      },
      identityProvider: identityProviderFromConfig(config),
    },
    runNotifier: inputs.runNotifier ?? new RunNotifier(),
    registry: inputs.registry ?? defaultRegistry(config),
    secretBox: new SecretBox(inputs.secretsEncryptionKey ?? config.SECRETS_ENCRYPTION_KEY),
    outbound: inputs.outbound ?? fetchOutboundHttp,
    mailer:
      config.EMAIL_API_URL && config.EMAIL_API_KEY && config.EMAIL_FROM
        ? httpMailer({
            url: config.EMAIL_API_URL,
            apiKey: config.EMAIL_API_KEY,
            from: config.EMAIL_FROM,
            outbound: inputs.outbound ?? fetchOutboundHttp,
            allowLoopback: config.ALLOW_LOOPBACK_WEBHOOKS,
          })
        : outboxMailer,
    consoleIdentityProvider: consoleIdentityProviderFromConfig(config, inputs.identityProviderFetch),
    pendingWork: [],
    connectors: new ConnectorList(inputs.connectors ?? allConnectors),
    files: inputs.files ?? new MemoryFileStore(),
    assets: inputs.assets ?? noStaticAssets,
    sqlParser: inputs.sqlParser ?? packageSqlParser,
    ...(inputs.sqlQueryConnection ? { sqlQueryConnection: inputs.sqlQueryConnection } : {}),
    ...(inputs.docxToHtml ? { docxToHtml: inputs.docxToHtml } : {}),
    // Bound below: the engine reads the services it belongs to.
    engine: undefined as unknown as RunEngine<Services>,
  };
  services.engine = new RunEngine<Services>(() => services, inputs.pipelines ?? allPipelines);
  return services;
}

function chooseModel(
  config: AppConfig,
  workersAi: WorkersAiBinding | undefined,
): { model: ModelProvider; embedder: Embedder } {
  if (
    config.MODEL_PROVIDER === 'openai' &&
    config.OPENAI_BASE_URL &&
    config.OPENAI_MODEL &&
    config.OPENAI_EMBEDDING_MODEL
  ) {
    const provider = new OpenAiCompatibleProvider({
      baseUrl: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      model: config.OPENAI_MODEL,
      embeddingModel: config.OPENAI_EMBEDDING_MODEL,
    });
    return { model: provider, embedder: openAiEmbedder(provider) };
  }
  if (config.MODEL_PROVIDER === 'workers_ai') {
    if (!workersAi) throw new Error('MODEL_PROVIDER=workers_ai needs the AI binding (Workers only)');
    return {
      model: new WorkersAiProvider(workersAi, config.WORKERS_AI_MODEL),
      embedder: new WorkersAiEmbedder(workersAi, config.WORKERS_AI_EMBEDDING_MODEL),
    };
  }
  return { model: new LocalModelProvider(), embedder: new LocalHashEmbedder() };
}
