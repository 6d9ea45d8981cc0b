import { inject } from 'vitest';
import { createApp, type App } from '../../functions/app.js';
import { buildServices } from '../../functions/build-services.js';
import { API_PREFIX } from '../../functions/http/env.js';
import { createApiKey, revokeApiKey } from '../../functions/identity/api-keys.js';
import { createWorkspace, ensureMembership, ensureUser } from '../../functions/identity/members.js';
import { issueAccessToken } from '../../functions/identity/oauth-tokens.js';
import type { Bundle, Scope } from '../../functions/identity/scopes.js';
import type { Pipeline } from '../../queues/pipeline.js';
import { allPipelines } from '../../functions/modules.js';
import { LAUNCH_SWITCHES, OperationRegistry, type Operation } from '../../functions/registry.js';
import type { Services } from '../../functions/services.js';
import type { IdentityProviderFetch } from '../../functions/console/oidc.js';
import type { Connector } from '../../functions/connections/connector.js';
import { oauthClients } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import { loadConfig } from '../../platform/config.js';
import type { NeonHandle } from '../../platform/db/neon.js';
import type { PostgresTestDatabase } from '../pg/postgres.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { createLogger } from '../../platform/log.js';
import { randomBase62 } from '../../platform/ids.js';
import { LocalTransport } from '../../queues/transport/local.js';
import type { ModelProvider } from '../../platform/model/port.js';
import { nodeOutboundHttp } from '../../platform/net/node-http.js';
import { installedStaticAssets } from '../../platform/assets/installed.js';

import { onPostgresTier } from '../pg/tier-switch.js';
import { CORPUS_WORKSPACE_ID, CORPUS_WORKSPACE_NAME } from './corpus-fixture.js';
import { openDatabaseCopy } from './database-copies.js';

export const TEST_OAUTH_SECRET = 'test-oauth-signing-secret-0123456789abcdef';
export const TEST_QUEUE_KEYS = { current: 'sig_current_test_key_0123456789', next: 'sig_next_test_key_0123456789' };

/** A fresh database for one test file: a copy of the migrated template the global setup made. */
export async function openTestDatabase(options: { onQuery?: (sql: string) => void } = {}): Promise<PgliteHandle> {
  return openDatabaseCopy(inject('templateDir'), inject('databaseCopiesDir'), options);
}

/** A fresh database before any migration (the tests of migrations and of the drivers themselves). */
export async function openEmptyDatabase(): Promise<PgliteHandle> {
  return openDatabaseCopy(inject('emptyTemplateDir'), inject('databaseCopiesDir'));
}

/**
 * The database a harness runs on: PGlite (one connection) in `npm test`; in `npm run test:pg` a fresh
 * PostgreSQL database behind the Neon driver's Pool (several connections: test/pg/postgres.ts).
 */
export type TestDatabase = PgliteHandle | NeonHandle | PostgresTestDatabase;

/** A fresh database for one test file on the tier's database (see TestDatabase). */
export async function openTierDatabase(): Promise<TestDatabase> {
  if (!onPostgresTier()) return openTestDatabase();
  // Loaded only on the tier: npm test's files never import the driver and the relay for it.
  const { openPostgresTestDatabase } = await import('../pg/postgres.js');
  return openPostgresTestDatabase(inject('postgresTemplate'));
}

/** A fresh database holding the demo corpus in workspace CORPUS_WORKSPACE_ID (test/support/corpus-fixture.ts). */
export async function openCorpusDatabase(): Promise<PgliteHandle> {
  return openDatabaseCopy(inject('corpusTemplateDir'), inject('databaseCopiesDir'));
}

export interface HarnessOptions {
  env?: Record<string, string>;
  clock?: Clock;
  operations?: readonly Operation[];
  /** Extra run pipelines (test-only kinds) registered beside the service's own. */
  pipelines?: readonly Pipeline<Services>[];
  /** Replace the model (a scripted tool-calling model for agent-loop tests). */
  model?: ModelProvider;
  /** Reuse a database (several apps over one file's database). */
  database?: TestDatabase;
  /** Route the console's OIDC provider calls (a fake provider in process). */
  identityProviderFetch?: IdentityProviderFetch;
  /** Offer these connectors instead of the service's own list. */
  connectors?: readonly Connector[];
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  bearer?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  /** An API key of this member with the bundle given at seeding. */
  key: string;
}

export interface SeededWorkspace {
  id: string;
  name: string;
  admin: Member;
  editor: Member;
  viewer: Member;
  /** Mint another key for a member. */
  keyFor(
    member: Member,
    bundle: Bundle,
    options?: { expiresAt?: Date | null; name?: string },
  ): Promise<{ key: string; keyId: string }>;
  /** Mint an OAuth access token with exactly these scopes for a member. */
  tokenFor(member: Member, scopes: readonly Scope[], options?: { ttlSeconds?: number }): Promise<string>;
}

export interface Harness {
  app: App;
  registry: OperationRegistry;
  services: Services;
  database: TestDatabase;
  /**
   * The PGlite handle, for tests that check facts with PGlite's raw client; such a test runs on
   * PGlite only (npm test): on the PostgreSQL tier this throws.
   */
  readonly pglite: PgliteHandle;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Raw fetch through the app (absolute URL or a path outside the prefix). */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  /** A new workspace with an admin, an editor and a viewer, each with a key. */
  seedWorkspace(name?: string): Promise<SeededWorkspace>;
  /** Members and keys for the corpus workspace of a database from openCorpusDatabase(). */
  corpusWorkspace(): Promise<SeededWorkspace>;
  revokeKey(keyId: string): Promise<void>;
  close(): Promise<void>;
}

let workspaceCounter = 0;

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = options.database ?? (await openTierDatabase());
  const config = loadConfig({
    APP_ENV: 'test',
    PUBLIC_URL: 'http://platform.test',
    TRUST_PROXY: '1',
    RATE_LIMIT_GLOBAL_PER_MIN: '100000',
    OAUTH_SIGNING_SECRET: TEST_OAUTH_SECRET,
    LOG_LEVEL: 'silent',
    // Tests never reach a provider on the internet: a test that syncs points these at a local fake.
    HUBSPOT_API_BASE_URL: 'http://127.0.0.1:9/hubspot',
    GONG_API_BASE_URL: 'http://127.0.0.1:9/gong',
    BLUESKY_API_BASE_URL: 'http://127.0.0.1:9/bluesky',
    SALESFORCE_LOGIN_URL: 'http://127.0.0.1:9/salesforce',
    GOOGLE_ACCOUNTS_URL: 'http://127.0.0.1:9/google-accounts',
    GOOGLE_TOKEN_URL: 'http://127.0.0.1:9/google-token',
    GOOGLE_CALENDAR_API_BASE_URL: 'http://127.0.0.1:9/google-calendar',
    ...options.env,
  });
  const clock = options.clock ?? systemClock;
  const services = buildServices({
    config,
    db: database.db,
    oauthSecret: TEST_OAUTH_SECRET,
    localQueueKeys: TEST_QUEUE_KEYS,
    secretsEncryptionKey: 'test-secrets-encryption-key-0123456789abcdef',
    outbound: nodeOutboundHttp,
    assets: installedStaticAssets(),
    clock,
    log: createLogger(config.LOG_LEVEL),
    pipelines: [...allPipelines, ...(options.pipelines ?? [])],
    ...(options.model ? { model: options.model } : {}),
    ...(options.identityProviderFetch ? { identityProviderFetch: options.identityProviderFetch } : {}),
    ...(options.operations
      ? {
          registry: new OperationRegistry(
            options.operations,
            LAUNCH_SWITCHES.filter((name) => config[name]),
          ),
        }
      : {}),
    ...(options.connectors ? { connectors: options.connectors } : {}),
    // On the PostgreSQL tier caller SQL logs in as its own role, as on Neon (test/pg/postgres.ts).
    ...('sqlQueryConnection' in database ? { sqlQueryConnection: database.sqlQueryConnection } : {}),
  });
  const { app, registry } = createApp({ services });
  if (services.queue instanceof LocalTransport) services.queue.attach((req) => Promise.resolve(app.fetch(req)));

  const fetchApp = async (input: string | Request, init?: RequestInit): Promise<Response> => {
    const request =
      typeof input === 'string'
        ? new Request(input.startsWith('http') ? input : `${config.publicUrl}${input}`, init)
        : input;
    return app.fetch(request);
  };

  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const qs = opts.query
      ? `?${new URLSearchParams(
          Object.entries(opts.query)
            .filter((e): e is [string, string | number | boolean] => e[1] !== undefined)
            .map(([k, v]) => [k, String(v)]),
        )}`
      : '';
    const response = await fetchApp(`${API_PREFIX}${path}${qs}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (event streams, CSV); the raw text is there.
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };

  const seedWorkspace = async (name?: string, existingId?: string): Promise<SeededWorkspace> => {
    const wsName = name ?? `Test Workspace ${++workspaceCounter}-${randomBase62(4)}`;
    const workspaceId = existingId ?? (await createWorkspace(database.db, { name: wsName })).workspaceId;
    const tag = randomBase62(6).toLowerCase();
    const member = async (role: Role, bundle: Bundle): Promise<Member> => {
      const email = `${role}-${tag}@${workspaceId.slice(0, 8)}.test`;
      const userId = await ensureUser(database.db, email);
      await ensureMembership(database.db, workspaceId, userId, role);
      const { key } = await createApiKey(database.db, {
        workspaceId,
        userId,
        name: `${role} key`,
        bundle,
        role,
        expiresAt: null,
      });
      return { userId, email, role, key };
    };
    const admin = await member('admin', 'full_admin');
    const editor = await member('editor', 'customer_agent');
    const viewer = await member('viewer', 'customer_agent');
    const clientId = `test-client-${tag}`;
    let clientCreated = false;
    return {
      id: workspaceId,
      name: wsName,
      admin,
      editor,
      viewer,
      keyFor: async (m, bundle, o = {}) =>
        createApiKey(database.db, {
          workspaceId,
          userId: m.userId,
          name: o.name ?? 'extra key',
          bundle,
          role: m.role,
          expiresAt: o.expiresAt ?? null,
        }),
      tokenFor: async (m, scopes, o = {}) => {
        if (!clientCreated) {
          await database.db
            .insert(oauthClients)
            .values({ id: clientId, name: 'test client', redirectUris: ['http://localhost/cb'] })
            .onConflictDoNothing();
          clientCreated = true;
        }
        const { accessToken } = await issueAccessToken(database.db, services.credentials.oauth, {
          workspaceId,
          userId: m.userId,
          clientId,
          scopes,
          ttlSeconds: o.ttlSeconds ?? 3600,
          now: clock.now(),
        });
        return accessToken;
      },
    };
  };

  return {
    app,
    registry,
    services,
    database,
    get pglite(): PgliteHandle {
      if (database.driver !== 'pglite') throw new Error('this test reads PGlite directly: it runs on PGlite only');
      return database;
    },
    request,
    fetch: fetchApp,
    seedWorkspace: (name) => seedWorkspace(name),
    corpusWorkspace: () => seedWorkspace(CORPUS_WORKSPACE_NAME, CORPUS_WORKSPACE_ID),
    revokeKey: async (keyId) => {
      await revokeApiKey(database.db, keyId, clock.now());
    },
    close: async () => {
      if (services.queue instanceof LocalTransport) await services.queue.close();
      if (!options.database) await database.close();
    },
  };
}
