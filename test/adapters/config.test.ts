import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { neonOptionsFromConfig } from '../../platform/db/neon.js';

/** Configuration is validated once at the entry point; a bad environment fails loudly, naming every bad variable. */

function configError(env: Record<string, unknown>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected loadConfig to throw');
}

/** The variable names a ConfigError message lists, in order. */
const namedVariables = (message: string) => [...message.matchAll(/^ {2}- ([A-Z_]+):/gm)].map((m) => m[1]);

const PRODUCTION = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://user:pass@ep-example.eu-central-1.aws.neon.tech/db?sslmode=require',
  PUBLIC_URL: 'https://cip.example.com',
  OAUTH_SIGNING_SECRET: 'x'.repeat(40),
  SECRETS_ENCRYPTION_KEY: 'k'.repeat(40),
  UPSTASH_REDIS_REST_URL: 'https://eu1-example.upstash.io',
  UPSTASH_REDIS_REST_TOKEN: 'redis-token',
  QSTASH_TOKEN: 'qstash-token',
  QSTASH_CURRENT_SIGNING_KEY: 'sig_current',
  QSTASH_NEXT_SIGNING_KEY: 'sig_next',
};

describe('loadConfig', () => {
  it('applies defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      APP_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: 8787,
      MODEL_PROVIDER: 'local',
      LOG_LEVEL: 'info',
      TRUST_PROXY: false,
    });
    expect(config.publicUrl).toBe('http://127.0.0.1:8787');
    expect(config.globalRateLimitPerMinute).toBe(500);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('accepts a complete production environment (numbers and booleans from Worker bindings too)', () => {
    const config = loadConfig({
      ...PRODUCTION,
      PUBLIC_URL: 'https://cip.example.com///',
      PORT: 8080,
      TRUST_PROXY: true,
      IGNORED_OTHER_VAR: 'x',
    });
    expect(config.publicUrl).toBe('https://cip.example.com');
    expect(config.PORT).toBe(8080);
    expect(config.TRUST_PROXY).toBe(true);
    expect(config.globalRateLimitPerMinute).toBe(100);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', OPENAI_API_KEY: '  ', PUBLIC_URL: '' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.OPENAI_API_KEY).toBeUndefined();
    expect(config.publicUrl).toBe('http://127.0.0.1:8787');
  });

  it('rejects PORT=abc, PORT=0 and a PORT beyond 65535, naming PORT', () => {
    expect(configError({ PORT: 'abc' })).toContain('PORT: must be a positive integer, got "abc"');
    expect(namedVariables(configError({ PORT: '0' }))).toEqual(['PORT']);
    expect(namedVariables(configError({ PORT: '1.5' }))).toEqual(['PORT']);
    expect(configError({ PORT: '99999' })).toContain('PORT: must be at most 65535');
  });

  it('rejects MODEL_PROVIDER=openai without its settings, naming each missing one', () => {
    expect(namedVariables(configError({ MODEL_PROVIDER: 'openai' }))).toEqual([
      'OPENAI_BASE_URL',
      'OPENAI_MODEL',
      'OPENAI_EMBEDDING_MODEL',
    ]);
    expect(
      namedVariables(
        configError({
          MODEL_PROVIDER: 'openai',
          OPENAI_BASE_URL: 'https://api.openai.com/v1',
          OPENAI_MODEL: 'gpt-4o-mini',
        }),
      ),
    ).toEqual(['OPENAI_EMBEDDING_MODEL']);
    expect(configError({ MODEL_PROVIDER: 'openai' })).toContain(
      'OPENAI_BASE_URL: is required when MODEL_PROVIDER=openai',
    );
    expect(namedVariables(configError({ MODEL_PROVIDER: 'gpt' }))).toEqual(['MODEL_PROVIDER']);
  });

  it('rejects APP_ENV=production without DATABASE_URL (and the other production requirements)', () => {
    const { DATABASE_URL: _omit, ...withoutDatabase } = PRODUCTION;
    expect(namedVariables(configError(withoutDatabase))).toEqual(['DATABASE_URL']);
    expect(configError(withoutDatabase)).toContain('DATABASE_URL: is required in production');
    expect(namedVariables(configError({ APP_ENV: 'production' }))).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'PUBLIC_URL',
        'OAUTH_SIGNING_SECRET',
        'UPSTASH_REDIS_REST_URL',
        'QSTASH_TOKEN',
      ]),
    );
    expect(namedVariables(configError({ ...PRODUCTION, ALLOW_LOOPBACK_WEBHOOKS: '1' }))).toEqual([
      'ALLOW_LOOPBACK_WEBHOOKS',
    ]);
  });

  it('names every bad variable at once, malformed values and missing requirements together', () => {
    const message = configError({
      APP_ENV: 'production',
      PORT: 'abc',
      DATABASE_URL: 'mysql://db',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'yes',
      OPENAI_BASE_URL: 'ftp://models',
      OAUTH_SIGNING_SECRET: 'short',
    });
    expect(namedVariables(message)).toEqual(
      expect.arrayContaining([
        'PORT',
        'DATABASE_URL',
        'LOG_LEVEL',
        'TRUST_PROXY',
        'OPENAI_BASE_URL',
        'OAUTH_SIGNING_SECRET',
        'PUBLIC_URL',
        'UPSTASH_REDIS_REST_URL',
        'QSTASH_TOKEN',
      ]),
    );
    expect(message).toContain('DATABASE_URL: must be a postgres:// URL');
    expect(message).toContain('OAUTH_SIGNING_SECRET: must be at least 32 characters');
    // A malformed value is reported once, not also as missing.
    expect(namedVariables(message).filter((n) => n === 'DATABASE_URL')).toHaveLength(1);
  });

  it('requires the pairs that only work together', () => {
    expect(namedVariables(configError({ UPSTASH_REDIS_REST_TOKEN: 't' }))).toEqual(['UPSTASH_REDIS_REST_URL']);
    expect(namedVariables(configError({ UPSTASH_REDIS_REST_URL: 'https://r.upstash.io' }))).toEqual([
      'UPSTASH_REDIS_REST_TOKEN',
    ]);
    expect(namedVariables(configError({ QSTASH_TOKEN: 't' }))).toEqual([
      'QSTASH_CURRENT_SIGNING_KEY',
      'QSTASH_NEXT_SIGNING_KEY',
      'PUBLIC_URL',
    ]);
    expect(namedVariables(configError({ IDP_ISSUER: 'https://idp.example.com' }))).toEqual([
      'IDP_AUDIENCE',
      'IDP_JWKS_URL',
    ]);
  });

  it('takes NEON_WS_PROXY as host:port[/path] beside DATABASE_URL, and refuses it in production', () => {
    const local = { DATABASE_URL: 'postgres://user:pass@localhost:5432/db' };
    expect(loadConfig({ ...local, NEON_WS_PROXY: '127.0.0.1:5488/v2' }).NEON_WS_PROXY).toBe('127.0.0.1:5488/v2');
    expect(loadConfig({ ...local, NEON_WS_PROXY: 'relay.local' }).NEON_WS_PROXY).toBe('relay.local');
    expect(loadConfig({ ...local, NEON_WS_PROXY: '' }).NEON_WS_PROXY).toBeUndefined();
    // The driver picks ws:// or wss:// itself; a protocol, a query or a blank inside is a mistake.
    for (const bad of ['ws://127.0.0.1:5488', '127.0.0.1:5488/v2?address=x', 'relay local', '127.0.0.1:port']) {
      const message = configError({ ...local, NEON_WS_PROXY: bad });
      expect(namedVariables(message)).toEqual(['NEON_WS_PROXY']);
      expect(message).toContain('NEON_WS_PROXY: must be host:port[/path] without a protocol');
    }
    // A relay leads to a database: alone it means nothing.
    expect(configError({ NEON_WS_PROXY: '127.0.0.1:5488' })).toContain(
      'DATABASE_URL: is required when NEON_WS_PROXY is set',
    );
    const production = configError({ ...PRODUCTION, NEON_WS_PROXY: '127.0.0.1:5488/v2' });
    expect(namedVariables(production)).toEqual(['NEON_WS_PROXY']);
    expect(production).toContain('NEON_WS_PROXY: must not be set in production');
  });

  it('turns NEON_WS_PROXY into the Neon driver options for a local relay (plain ws, no pipelining)', () => {
    const databaseUrl = 'postgres://user:pass@localhost:5432/db';
    const relayed = loadConfig({ DATABASE_URL: databaseUrl, NEON_WS_PROXY: '127.0.0.1:5488/v2' });
    expect(neonOptionsFromConfig({ ...relayed, DATABASE_URL: databaseUrl })).toEqual({
      connectionString: databaseUrl,
      wsProxy: '127.0.0.1:5488/v2',
      // The same relay answers Neon's SQL-over-HTTP (the worker's statements outside a transaction).
      fetchEndpoint: 'http://127.0.0.1:5488/v2/sql',
      useSecureWebSocket: false,
    });
    // Without it, Neon's own defaults (wss:// to Neon's proxy, pipelined TLS and startup) stay untouched.
    expect(neonOptionsFromConfig({ ...loadConfig({ ...PRODUCTION }), DATABASE_URL: databaseUrl })).toEqual({
      connectionString: databaseUrl,
    });
  });
});
