import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { consoleFlashes } from '../../schema/index.js';
import type { Services } from '../services.js';

/**
 * The one-time outcome of a form a page shows after its POST-redirect-GET. Secrets (a new API key,
 * a webhook signing secret) are sealed at rest and deleted when read, so a refresh shows nothing
 * again and nothing secret ever sits in a URL or the browser's history.
 */
export const FlashSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api_key_created'), name: z.string(), key: z.string() }),
  z.object({
    kind: z.literal('ingest_secret'),
    connection_id: z.string(),
    name: z.string(),
    url: z.string(),
    secret: z.string(),
  }),
  z.object({ kind: z.literal('webhook_secret'), webhook_id: z.string(), url: z.string(), secret: z.string() }),
]);
export type Flash = z.infer<typeof FlashSchema>;

export async function putFlash(services: Services, sessionId: string, flash: Flash): Promise<void> {
  const sealed = await services.secretBox.seal(JSON.stringify(flash));
  await services.db
    .insert(consoleFlashes)
    .values({ sessionId, sealed, createdAt: services.clock.now() })
    .onConflictDoUpdate({ target: consoleFlashes.sessionId, set: { sealed, createdAt: services.clock.now() } });
}

/** The session's flash of this kind, deleted as it is read; anything else stays for its own page. */
export async function takeFlash<K extends Flash['kind']>(
  services: Services,
  sessionId: string,
  kind: K,
): Promise<Extract<Flash, { kind: K }> | null> {
  const [row] = await services.db.select().from(consoleFlashes).where(eq(consoleFlashes.sessionId, sessionId));
  if (!row) return null;
  const parsed = FlashSchema.safeParse(JSON.parse(await services.secretBox.open(row.sealed)));
  if (parsed.success && parsed.data.kind !== kind) return null;
  const [taken] = await services.db
    .delete(consoleFlashes)
    .where(eq(consoleFlashes.sessionId, sessionId))
    .returning({ sessionId: consoleFlashes.sessionId });
  // Two tabs racing for one flash: only the one whose delete took it shows it.
  if (!taken || !parsed.success) return null;
  return parsed.data as Extract<Flash, { kind: K }>;
}
