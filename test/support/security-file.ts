import { afterAll, beforeAll } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { LAUNCH_SWITCHES, type Operation } from '../../functions/registry.js';
import { ManualClock } from '../../platform/clock.js';
import { fixtureSurface, securityFixtures } from '../security-fixtures/index.js';
import { FakeHubSpot } from './fake-providers.js';
import { createHarness } from './harness.js';
import { probeOperations } from './security-probes.js';
import {
  createSecurityContext,
  describeSecurity,
  hsIdpSigner,
  idpEnv,
  type SecurityContext,
} from './security-suite.js';

/**
 * The set-up every file of the security suite shares (test/security/): one harness over every
 * operation and the probes, with every launch switch on, an identity provider, a fake HubSpot, and
 * one pair of seeded workspaces for the whole file. The suite is split by surface into several files
 * so both workers run it; each file builds this once.
 */
export function useSecurityHarness(): () => SecurityContext {
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  const idp = hsIdpSigner({
    issuer: 'https://idp.security.test',
    audience: 'cip-security-suite',
    secret: 'idp-shared-secret-for-the-security-suite',
    clock,
  });
  const hubspot = new FakeHubSpot();
  let ctx: SecurityContext | undefined;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    await hubspot.start();
    const h = await createHarness({
      clock,
      // Every launch switch on, so a `coming_soon` operation is probed like the others (off, it is 404 to everyone).
      env: {
        ...idpEnv(idp),
        ALLOW_LOOPBACK_WEBHOOKS: '1',
        HUBSPOT_API_BASE_URL: hubspot.url,
        ...Object.fromEntries(LAUNCH_SWITCHES.map((name) => [name, '1'])),
      },
      operations: [...allOperations, ...probeOperations],
    });
    close = () => h.close();
    ctx = await createSecurityContext(h, clock, idp);
    // The app's first request loads what it loads lazily: under this hook's timeout, not the first case's.
    await h.request('GET', '/setup/status');
  });
  afterAll(async () => {
    await close?.();
    await hubspot.stop();
  });

  return () => {
    if (!ctx) throw new Error('the security harness is not set up yet');
    return ctx;
  };
}

/** The security cases of every operation whose fixture lives in one of these surfaces' files. */
export function describeSurfaces(surfaces: readonly string[], get: () => SecurityContext): void {
  const unknown = surfaces.filter((s) => !allOperations.some((op) => fixtureSurface(op.id) === s));
  if (unknown.length > 0) throw new Error(`no operation has its fixture in test/security-fixtures/${unknown[0]}.ts`);
  for (const op of operationsOf(surfaces)) {
    const fixture = securityFixtures[op.id];
    if (fixture) describeSecurity(op, fixture, get);
  }
}

const operationsOf = (surfaces: readonly string[]): Operation[] =>
  allOperations.filter((op) => surfaces.includes(fixtureSurface(op.id) ?? ''));
