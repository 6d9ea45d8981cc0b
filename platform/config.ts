import { z } from 'zod';

/**
 * Every setting the service reads from its environment, validated once at each entry point
 * (functions/node.ts, functions/worker.ts, functions/admin.ts). Nothing below an entry point reads
 * process.env; it receives an AppConfig.
 */

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^https?$/ }).optional())
  .optional();

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const positiveInt = (fallback?: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: `must be a positive integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

export const EnvSchema = z
  .object({
    APP_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    PORT: positiveInt(8787).refine((port) => port === undefined || port <= 65535, 'must be at most 65535'),
    DATA_DIR: z.string().trim().min(1).default('./.data'),
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
        .optional(),
    ),
    /**
     * A local WebSocket relay in front of a Postgres wire server, for the Neon driver instead of Neon's
     * own proxy: `host:port[/path]` without a protocol (the driver appends `?address=<db host>:<port>`).
     * Development and tests only (refused in production).
     */
    NEON_WS_PROXY: optionalString.pipe(
      z
        .string()
        .regex(
          /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\])(:\d{1,5})?(\/[^\s?#]*)?$/,
          'must be host:port[/path] without a protocol (e.g. 127.0.0.1:5433/v2)',
        )
        .optional(),
    ),
    PUBLIC_URL: optionalUrl,
    TRUST_PROXY: flag,
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),

    RATE_LIMIT_GLOBAL_PER_MIN: positiveInt(),

    UPSTASH_REDIS_REST_URL: optionalUrl,
    UPSTASH_REDIS_REST_TOKEN: optionalString,

    QSTASH_URL: optionalUrl,
    QSTASH_TOKEN: optionalString,
    QSTASH_CURRENT_SIGNING_KEY: optionalString,
    QSTASH_NEXT_SIGNING_KEY: optionalString,

    MODEL_PROVIDER: z.enum(['local', 'openai', 'workers_ai']).default('local'),
    OPENAI_BASE_URL: optionalUrl,
    OPENAI_API_KEY: optionalString,
    OPENAI_MODEL: optionalString,
    OPENAI_EMBEDDING_MODEL: optionalString,
    WORKERS_AI_MODEL: z.string().default('@cf/meta/llama-3.1-8b-instruct'),
    WORKERS_AI_EMBEDDING_MODEL: z.string().default('@cf/baai/bge-small-en-v1.5'),

    OAUTH_SIGNING_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    OAUTH_ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600),
    /** Seals secrets the service must be able to read back (webhook signing secrets). */
    SECRETS_ENCRYPTION_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),

    IDP_ISSUER: optionalString,
    IDP_AUDIENCE: optionalString,
    IDP_JWKS_URL: optionalUrl,
    IDP_JWT_SECRET: optionalString,
    IDP_WORKSPACE_CLAIM: z.string().default('business_id'),
    IDP_EMAIL_CLAIM: z.string().default('email'),

    ALLOW_LOOPBACK_WEBHOOKS: flag,

    /**
     * A connection that logs in as the least-privilege role cip_query, for POST /sql/query on a managed
     * PostgreSQL (Neon) where the server's own role cannot be confined by SET ROLE (docs: operate/security).
     * Unset there, SQL query answers 503; the embedded database and one migrated by a superuser do not need it.
     */
    SQL_QUERY_DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
        .optional(),
    ),
    /** How long one POST /sql/query statement may run before Postgres cancels it (SET LOCAL statement_timeout). */
    SQL_QUERY_TIMEOUT_MS: positiveInt(5000),
    /**
     * The planner's total cost (EXPLAIN, Postgres cost units) above which a POST /sql/query statement is
     * refused before it runs: the one bound the embedded database can enforce (it cannot cancel), on every backend.
     */
    SQL_QUERY_MAX_COST: positiveInt(500_000),

    /** Serves POST /simulate (`coming soon`); off, it is 404 and absent from OpenAPI, MCP and agents' tools. */
    SIMULATE_ENABLED: flag,

    /** Console sign-in through an OpenID Connect provider (authorization code + PKCE). */
    CONSOLE_OIDC_ISSUER: optionalUrl,
    CONSOLE_OIDC_CLIENT_ID: optionalString,
    /** Absent: the console is a public client of the provider (PKCE only). */
    CONSOLE_OIDC_CLIENT_SECRET: optionalString,
    /** One-time console sign-in links (`admin login-link`); on by default outside production. */
    CONSOLE_SIGN_IN_LINKS: z
      .enum(['0', '1', 'true', 'false', ''])
      .optional()
      .transform((v) => (v === undefined || v === '' ? undefined : v === '1' || v === 'true')),
    /** Connectors: provider API bases (tests point them at local fakes) and OAuth clients. */
    HUBSPOT_API_BASE_URL: z.string().trim().url().default('https://api.hubapi.com'),
    GONG_API_BASE_URL: z.string().trim().url().default('https://api.gong.io'),
    /** Bluesky's public AppView: public posts and threads, read without credentials. */
    BLUESKY_API_BASE_URL: z.string().trim().url().default('https://public.api.bsky.app'),
    SALESFORCE_CLIENT_ID: optionalString,
    SALESFORCE_CLIENT_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    /** Salesforce's login host (https://test.salesforce.com for sandboxes); the API host comes with the token. */
    SALESFORCE_LOGIN_URL: z.string().trim().url().default('https://login.salesforce.com'),
    GOOGLE_ACCOUNTS_URL: z.string().trim().url().default('https://accounts.google.com'),
    GOOGLE_TOKEN_URL: z.string().trim().url().default('https://oauth2.googleapis.com/token'),
    GOOGLE_CALENDAR_API_BASE_URL: z.string().trim().url().default('https://www.googleapis.com'),
    /** Minutes between scheduled syncs of a connection. */
    CONNECTION_SYNC_INTERVAL_MINUTES: positiveInt(15),
    /**
     * The external-search port (functions/enrich: the market half of a full brief): any HTTP search
     * API answering `GET <url>?q=<query>&limit=<n>` with JSON results (platform/external-search/http.ts).
     * Unset: briefs carry the customer's half only and say the market half is not configured.
     */
    EXTERNAL_SEARCH_URL: optionalUrl,
    EXTERNAL_SEARCH_API_KEY: optionalString,
    /** The message optimizer; `0` answers `ok: false, reason: optimizer_unconfigured`. */
    OPTIMIZER_ENABLED: z
      .enum(['0', '1', 'true', 'false', ''])
      .optional()
      .transform((v) => v === undefined || v === '' || v === '1' || v === 'true'),
    /** The optimizer's whole budget; past it the answer is `optimizer_timeout`. */
    OPTIMIZER_TIMEOUT_MS: positiveInt(45_000),
    /** Human-readable documentation the OAuth metadata points to; defaults to the OpenAPI document. */
    SERVICE_DOCUMENTATION_URL: optionalUrl,

    /** An HTTP email API for actions (Resend-style); unset, emails stay in the outbox. */
    EMAIL_API_URL: optionalUrl,
    EMAIL_API_KEY: optionalString,
    EMAIL_FROM: optionalString,
  })
  // `when`: run these cross-variable checks even when a variable failed its own parse, so one
  // ConfigError names every bad variable instead of revealing them a wave at a time.
  .superRefine(
    (env, ctx) => {
      const need = (key: keyof typeof env, why: string) => {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `is required ${why}` });
      };
      if (env.UPSTASH_REDIS_REST_URL || env.UPSTASH_REDIS_REST_TOKEN) {
        need('UPSTASH_REDIS_REST_URL', 'when UPSTASH_REDIS_REST_TOKEN is set');
        need('UPSTASH_REDIS_REST_TOKEN', 'when UPSTASH_REDIS_REST_URL is set');
      }
      if (env.QSTASH_TOKEN) {
        need('QSTASH_CURRENT_SIGNING_KEY', 'when QSTASH_TOKEN is set');
        need('QSTASH_NEXT_SIGNING_KEY', 'when QSTASH_TOKEN is set');
        need('PUBLIC_URL', 'when QSTASH_TOKEN is set (QStash delivers stages to <PUBLIC_URL>/queues/<kind>)');
      }
      if (env.NEON_WS_PROXY) need('DATABASE_URL', 'when NEON_WS_PROXY is set (the relay leads to that database)');
      if (env.EMAIL_API_URL) {
        need('EMAIL_API_KEY', 'when EMAIL_API_URL is set');
        need('EMAIL_FROM', 'when EMAIL_API_URL is set');
      }
      if (env.MODEL_PROVIDER === 'openai') {
        need('OPENAI_BASE_URL', 'when MODEL_PROVIDER=openai');
        need('OPENAI_MODEL', 'when MODEL_PROVIDER=openai');
        need('OPENAI_EMBEDDING_MODEL', 'when MODEL_PROVIDER=openai');
      }
      if (env.IDP_ISSUER || env.IDP_AUDIENCE) {
        need('IDP_ISSUER', 'when IDP_AUDIENCE is set');
        need('IDP_AUDIENCE', 'when IDP_ISSUER is set');
        if (!env.IDP_JWKS_URL && !env.IDP_JWT_SECRET) {
          ctx.addIssue({
            code: 'custom',
            path: ['IDP_JWKS_URL'],
            message: 'IDP_JWKS_URL or IDP_JWT_SECRET is required when IDP_ISSUER is set',
          });
        }
      }
      if (env.CONSOLE_OIDC_ISSUER || env.CONSOLE_OIDC_CLIENT_ID) {
        need('CONSOLE_OIDC_ISSUER', 'when CONSOLE_OIDC_CLIENT_ID is set');
        need('CONSOLE_OIDC_CLIENT_ID', 'when CONSOLE_OIDC_ISSUER is set');
      }
      if (env.APP_ENV === 'production') {
        need('DATABASE_URL', 'in production');
        need('PUBLIC_URL', 'in production');
        need('OAUTH_SIGNING_SECRET', 'in production');
        need('SECRETS_ENCRYPTION_KEY', 'in production');
        need('UPSTASH_REDIS_REST_URL', 'in production (an in-memory limiter is per isolate)');
        need('QSTASH_TOKEN', 'in production (the local queue transport needs a long-lived process)');
        if (env.NEON_WS_PROXY) {
          // Plain ws:// to a relay of our own instead of Neon's TLS proxy: never in production.
          ctx.addIssue({ code: 'custom', path: ['NEON_WS_PROXY'], message: 'must not be set in production' });
        }
        if (env.ALLOW_LOOPBACK_WEBHOOKS === true) {
          ctx.addIssue({ code: 'custom', path: ['ALLOW_LOOPBACK_WEBHOOKS'], message: 'must not be set in production' });
        }
      }
    },
    { when: () => true },
  );

export type Env = z.input<typeof EnvSchema>;
export type ParsedEnv = z.output<typeof EnvSchema>;

export interface AppConfig extends ParsedEnv {
  /** Requests per minute per IP over every route under the prefix. */
  globalRateLimitPerMinute: number;
  /** Base URL the service is reachable at, without the /api/platform/v1 prefix. */
  publicUrl: string;
  /** Whether one-time console sign-in links are accepted (CONSOLE_SIGN_IN_LINKS, else on outside production). */
  consoleSignInLinks: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse an environment record (process.env or Worker bindings). Throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, unknown>): AppConfig {
  const strings: Record<string, string | undefined> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (typeof value === 'string') strings[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') strings[key] = String(value);
  }
  const parsed = EnvSchema.safeParse(strings);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const globalRateLimitPerMinute = cfg.RATE_LIMIT_GLOBAL_PER_MIN ?? (cfg.APP_ENV === 'production' ? 100 : 500);
  const publicUrl = (cfg.PUBLIC_URL ?? `http://${cfg.HOST}:${cfg.PORT}`).replace(/\/+$/, '');
  const consoleSignInLinks = cfg.CONSOLE_SIGN_IN_LINKS ?? cfg.APP_ENV !== 'production';
  return { ...cfg, globalRateLimitPerMinute, publicUrl, consoleSignInLinks };
}
