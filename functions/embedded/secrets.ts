import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { AppConfig } from '../../platform/config.js';
import { randomBase62 } from '../../platform/ids.js';
import type { SigningKeys } from '../../queues/transport/port.js';

const SecretsFile = z.object({
  oauth_signing_secret: z.string().min(32),
  queue_current_key: z.string().min(16),
  queue_next_key: z.string().min(16),
  // Added after the first release: a file without it gets one, keeping the other secrets.
  secrets_encryption_key: z.string().min(32).optional(),
});

export interface EmbeddedSecrets {
  oauthSecret: string;
  localQueueKeys: SigningKeys;
  secretsEncryptionKey: string;
}

/**
 * Secrets the embedded default needs but nobody configured: generated once and kept in
 * DATA_DIR/secrets.json (mode 600), so issued OAuth tokens survive a restart. Configured values win.
 * With DATABASE_URL and no data folder of ours, they are per process (and a warning says so).
 */
export function loadEmbeddedSecrets(config: AppConfig, warn: (message: string) => void): EmbeddedSecrets {
  const fresh = () => ({
    oauth_signing_secret: randomBase62(48),
    queue_current_key: randomBase62(32),
    queue_next_key: randomBase62(32),
    secrets_encryption_key: randomBase62(48),
  });
  let stored: z.infer<typeof SecretsFile>;
  if (config.DATABASE_URL) {
    stored = fresh();
    if (!config.OAUTH_SIGNING_SECRET)
      warn('OAUTH_SIGNING_SECRET is not set: OAuth tokens issued by this process stop working when it exits.');
    if (!config.SECRETS_ENCRYPTION_KEY)
      warn('SECRETS_ENCRYPTION_KEY is not set: webhook secrets sealed by this process cannot be read after it exits.');
  } else {
    const dir = resolve(config.DATA_DIR);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'secrets.json');
    const existing = existsSync(path) ? SecretsFile.safeParse(JSON.parse(readFileSync(path, 'utf8'))) : null;
    if (existing?.success && existing.data.secrets_encryption_key) stored = existing.data;
    else if (existing?.success) {
      stored = { ...existing.data, secrets_encryption_key: randomBase62(48) };
      writeFileSync(path, JSON.stringify(stored, null, 2), { mode: 0o600 });
    } else {
      stored = fresh();
      writeFileSync(path, JSON.stringify(stored, null, 2), { mode: 0o600 });
    }
  }
  return {
    oauthSecret: config.OAUTH_SIGNING_SECRET ?? stored.oauth_signing_secret,
    localQueueKeys: { current: stored.queue_current_key, next: stored.queue_next_key },
    secretsEncryptionKey: config.SECRETS_ENCRYPTION_KEY ?? stored.secrets_encryption_key ?? randomBase62(48),
  };
}
