import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house plan's layers (architecture.md, "Layout"), checked on the source: a lower layer never
 * imports code from above it.
 *
 *   schema/, platform/     import neither functions/ nor queues/ (not even types)
 *   queues/                the engine layer (engine, pipeline contract, run store, reads, notifier,
 *                          ports, transports) imports nothing from functions/ (not even types);
 *                          each pipeline lives with the feature it runs (functions/<feature>/)
 */

const ROOT = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'migrations' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports (static and dynamic), resolved to a repo path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
  ].map((m) => m[1] ?? '');
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, join(ROOT, file, '..', s)));
}

const violations = (files: string[], forbidden: string[]): string[] =>
  files.flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden.some((top) => target.startsWith(`${top}/`)))
      .map((target) => `${file} imports ${target}`),
  );

describe('layers', () => {
  it('schema/ and platform/ import neither functions/ nor queues/', () => {
    expect(violations([...sourceFiles('schema'), ...sourceFiles('platform')], ['functions', 'queues'])).toEqual([]);
  });

  it('the engine, its run store, its ports and the transports import nothing from functions/', () => {
    expect(violations(sourceFiles('queues'), ['functions'])).toEqual([]);
  });

  it('catches what it claims to catch', () => {
    // The import scanner itself: every form of import, a type-only one included, resolved to a path.
    const probe = importsOf('functions/search/fuzzy-pipeline.ts');
    expect(probe).toContain('functions/search/fuzzy-lane.js');
    expect(probe).toContain('functions/services.js');
  });
});
