import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { FIXTURE_SURFACES, fixtureSurface, securityFixtures } from '../security-fixtures/index.js';
import { describeSurfaces, useSecurityHarness } from '../support/security-file.js';
import { probeFixtures, probeOperations } from '../support/security-probes.js';
import { describeSecurity, fieldsThatReadDates, type SecurityFixture } from '../support/security-suite.js';
import { SURFACE_GROUPS } from './surface-groups.js';

/**
 * The security suite's own checks: every operation has a fixture and every surface runs in exactly one
 * file of test/security/, the operations that read dates are found, and the suite catches what it
 * claims on probe operations that reach every branch. The operations' cases run in the other files,
 * one per group of surfaces (surface-groups.ts).
 */

describe('security fixtures table', () => {
  it('has an entry for every operation in the registry, and none for an operation that does not exist', () => {
    const ids = allOperations.map((op) => op.id);
    const missing = ids.filter((id) => !securityFixtures[id]);
    const stale = Object.keys(securityFixtures).filter((id) => !ids.includes(id));
    expect(missing, `add these operations to test/security-fixtures/<surface>.ts: ${missing.join(', ')}`).toEqual([]);
    expect(
      stale,
      `remove these entries: ${stale.map((id) => `${id} (in test/security-fixtures/${fixtureSurface(id)}.ts)`).join(', ')}`,
    ).toEqual([]);
  });

  it('runs every surface in exactly one file of test/security/', () => {
    const grouped = Object.values(SURFACE_GROUPS).flat();
    expect([...grouped].sort(), 'add the surface to one group of test/security/surface-groups.ts').toEqual(
      [...FIXTURE_SURFACES].sort(),
    );
    for (const group of Object.keys(SURFACE_GROUPS))
      expect(existsSync(join(import.meta.dirname, `${group}.test.ts`)), `test/security/${group}.test.ts`).toBe(true);
  });
});

describe('operations that read dates', () => {
  it('are found from their declarations (the date class of the suite runs for each)', () => {
    const reading = allOperations
      .map((op) => [op.id, fieldsThatReadDates(op).map((f) => f.name)] as const)
      .filter(([, fields]) => fields.length > 0);
    expect(Object.fromEntries(reading)).toEqual({
      'search.query': ['query'],
      'research.start': ['question', 'context'],
      'chat.start': ['input'],
      'routines.create': ['prompt'],
      'routines.update': ['prompt'],
      'context.ask': ['query'],
    });
  });
});

const get = useSecurityHarness();

describe('the suite itself, on probe operations that reach every branch', () => {
  for (const op of probeOperations) describeSecurity(op, probeFixtures[op.id] as SecurityFixture, get);
});

// Kept so describeSurfaces' refusal of an unknown surface is exercised where the groups are checked.
describe('a group naming a surface without fixtures', () => {
  it('is refused when the file is collected', () => {
    expect(() => describeSurfaces(['no-such-surface'], get)).toThrow(/no-such-surface/);
  });
});
