import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';

/**
 * The drizzle tables and the generated migrations agree: generating against a copy of the
 * migrations finds nothing to add. Fails when a table changes without `npm run db:generate`.
 */
const copy = mkdtempSync(join(tmpdir(), 'cip-migrations-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it('has a migration for every schema change', () => {
  cpSync('schema/migrations', copy, { recursive: true });
  const before = readdirSync(copy).sort();
  // drizzle-kit prefixes `--out` with "./", so it must be relative to the working directory.
  const output = execFileSync(
    'npx',
    [
      'drizzle-kit',
      'generate',
      '--dialect',
      'postgresql',
      '--schema',
      './schema/index.ts',
      '--out',
      relative(process.cwd(), copy),
    ],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  expect(output).toContain('No schema changes');
  expect(readdirSync(copy).sort()).toEqual(before);
}, 60_000);
