import type { SecurityFixture } from '../support/security-suite.js';
import { agentFixtures } from './agents.js';
import { analysisFixtures } from './analyses.js';
import { chatFixtures } from './chat.js';
import { connectionFixtures } from './connections.js';
import { consoleFixtures } from './console.js';
import { enrichFixtures } from './enrich.js';
import { evalFixtures } from './evals.js';
import { knowledgeFixtures } from './knowledge.js';
import { knowledgeDocumentFixtures } from './knowledge-documents.js';
import { lookalikeFixtures } from './lookalike.js';
import { messageFixtures } from './messages.js';
import { actionFixtures, documentFixtures } from './documents.js';
import { researchFixtures } from './research.js';
import { routineFixtures } from './routines.js';
import { searchFixtures } from './search.js';
import { setupFixtures } from './setup.js';
import { simulateFixtures } from './simulate.js';
import { sqlQueryFixtures } from './sql-query.js';
import { subscriptionFixtures } from './subscriptions.js';
import { webhookFixtures } from './webhooks.js';

/**
 * One entry per operation in `allOperations`, in one file per surface, all merged here
 * (test/security/registry.test.ts fails on a missing or stale entry; two surfaces naming the same operation
 * fail at import). An entry says how to build a valid request in a given workspace and how the operation
 * relates to tenants; the shared suite in test/support/security-suite.ts derives every refusal from the
 * operation's declaration. When you add an operation, add its entry to its surface's file
 * (test/security-fixtures/<surface>.ts); for a new surface, add a file exporting
 * `<surface>Fixtures: Record<string, SecurityFixture>`, register it in SURFACES below and give it a
 * file of the suite in test/security/surface-groups.ts. An entry has:
 *
 *   - `request({h, ws})`: a valid request in `ws` (path params, query, body). It runs for every
 *     probe, so an operation on one resource should create that resource here (through `h` or the
 *     database) and address it; never rely on state another entry left behind.
 *   - `tenancy`: `{kind: 'by_id', foreign}` when the operation addresses a resource by id
 *     (`foreign` creates one in the other workspace: the caller must get 404 not_found), or
 *     `{kind: 'workspace', assertOwn?}` when it reads or writes the workspace as a whole.
 *   - `okStatus` when an authorized valid call does not return the declared success status.
 *
 * The security harness runs with ALLOW_LOOPBACK_WEBHOOKS=1, a ManualClock and no network: anything
 * that would call out must point at loopback.
 */

const SURFACES: Record<string, Record<string, SecurityFixture>> = {
  setup: setupFixtures,
  connections: connectionFixtures,
  search: searchFixtures,
  analyses: analysisFixtures,
  'sql-query': sqlQueryFixtures,
  simulate: simulateFixtures,
  enrich: enrichFixtures,
  lookalike: lookalikeFixtures,
  research: researchFixtures,
  knowledge: knowledgeFixtures,
  evals: evalFixtures,
  messages: messageFixtures,
  chat: chatFixtures,
  agents: agentFixtures,
  routines: routineFixtures,
  subscriptions: subscriptionFixtures,
  documents: documentFixtures,
  actions: actionFixtures,
  webhooks: webhookFixtures,
  'knowledge-documents': knowledgeDocumentFixtures,
  console: consoleFixtures,
};

function merge(): Record<string, SecurityFixture> {
  const merged: Record<string, SecurityFixture> = {};
  const owner = new Map<string, string>();
  for (const [surface, fixtures] of Object.entries(SURFACES)) {
    for (const [id, fixture] of Object.entries(fixtures)) {
      const twin = owner.get(id);
      if (twin) throw new Error(`security fixture for ${id} is declared by both ${twin}.ts and ${surface}.ts`);
      owner.set(id, surface);
      merged[id] = fixture;
    }
  }
  return merged;
}

export const securityFixtures = merge();
/** Every surface that has a fixture file (test/security/surface-groups.ts runs each in one file). */
export const FIXTURE_SURFACES: readonly string[] = Object.keys(SURFACES);
/** Which surface file declares each operation's fixture (for failure messages). */
export const fixtureSurface = (id: string): string | undefined =>
  Object.entries(SURFACES).find(([, f]) => id in f)?.[0];
