import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../platform/db/migrations-folder.js';
import { openEmptyDatabase } from './support/harness.js';
import { textHash } from '../platform/text-hash.js';

/**
 * Upgrading a database that holds data, not only creating one: migrations 0012-0013 move the
 * vectors out of `utterances` into `utterance_vectors`, one per distinct external text.
 */
const folder = mkdtempSync(join(tmpdir(), 'cip-upgrade-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The migrations folder as it stood before migration `tag`. */
function migrationsBefore(tag: string): string {
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return folder;
}

it('moves each workspace’s distinct external texts into the vector store, and keeps every utterance findable', async () => {
  const handle = await openEmptyDatabase();
  try {
    await migrate(drizzle({ client: handle.client }), { migrationsFolder: migrationsBefore('0012_utterance_vectors') });
    const q = (text: string, params: unknown[] = []) => handle.client.query<Record<string, unknown>>(text, params);
    const vector = (i: number) => `[${Array.from({ length: 384 }, (_, j) => (j === i ? 1 : 0)).join(',')}]`;
    for (const ws of ['00000000-0000-7000-8000-00000000000a', '00000000-0000-7000-8000-00000000000b']) {
      await q(`insert into workspaces (id, name) values ($1, $2)`, [ws, `Upgrade ${ws.slice(-1)}`]);
      const call = ws.replace(/0000000000(.)$/, '1000000000$1');
      await q(
        `insert into interactions (id, workspace_id, kind, title, occurred_at, source) values ($1, $2, 'call', 'Call', now(), 'gong')`,
        [call, ws],
      );
      const said: [string, 'external' | 'internal', number | null][] = [
        ['We need SSO.', 'external', 1],
        ['We need SSO.', 'external', 1],
        ['Price is high.', 'external', 2],
        ['Noted.', 'internal', null],
      ];
      for (const [i, [text, side, v]] of said.entries()) {
        await q(
          `insert into utterances (id, workspace_id, interaction_id, utterance_index, side, text, embedding, embedder, occurred_at)
           values (gen_random_uuid(), $1, $2, $3, $4, $5, $6::vector, $7, now())`,
          [ws, call, i, side, text, v === null ? null : vector(v), v === null ? null : 'local:test'],
        );
      }
    }

    await migrate(drizzle({ client: handle.client }), { migrationsFolder: MIGRATIONS_FOLDER });

    const stored = await q(
      `select workspace_id, embedder, text_hash, embedding::text as embedding from utterance_vectors order by workspace_id, text_hash`,
    );
    expect(stored.rows).toHaveLength(4);
    for (const ws of ['00000000-0000-7000-8000-00000000000a', '00000000-0000-7000-8000-00000000000b']) {
      const mine = stored.rows.filter((r) => r.workspace_id === ws);
      expect(mine.map((r) => r.text_hash).sort()).toEqual(
        [textHash('We need SSO.'), textHash('Price is high.')].sort(),
      );
      expect(mine.find((r) => r.text_hash === textHash('Price is high.'))?.embedding).toBe(vector(2));
    }
    const columns = await q(
      `select column_name from information_schema.columns where table_name = 'utterances' order by column_name`,
    );
    expect(columns.rows.map((r) => r.column_name)).not.toContain('embedding');
    // Every external utterance still reaches a vector of its embedder; internal ones none.
    const reach = await q(`select u.side, count(v.text_hash)::int as with_vector, count(*)::int as n
                           from utterances u left join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
                           group by u.side order by u.side`);
    const counted = await q(
      `select workspace_id, embedder, utterances from utterance_store_counts order by workspace_id`,
    );
    expect(counted.rows.map((r) => [r.embedder, r.utterances])).toEqual([
      ['local:test', 3],
      ['local:test', 3],
    ]);
    expect(reach.rows).toEqual([
      { side: 'external', with_vector: 6, n: 6 },
      { side: 'internal', with_vector: 0, n: 2 },
    ]);
  } finally {
    await handle.close();
  }
});
