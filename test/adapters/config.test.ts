import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';

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
});
