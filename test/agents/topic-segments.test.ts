import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicAskedOf } from '../../functions/agents/relevance.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { openCorpusDatabase } from '../support/harness.js';

/**
 * Who spoke is never what they spoke about: a region or industry the workspace's accounts hold, named
 * in the question ("EMEA customers", "healthcare accounts"), leaves the topic the verifier judges
 * quotes against, as an account's name does.
 */

let db: PgliteHandle;
beforeAll(async () => {
  db = await openCorpusDatabase();
}, 60_000);
afterAll(async () => {
  await db.close();
});

describe('the topic of a question that names a segment', () => {
  it('leaves the region and the industry out, in any case', async () => {
    const emea = await topicAskedOf(db.db, CORPUS_WORKSPACE_ID, 'what did EMEA customers say about pricing?');
    expect(emea?.terms.map((t) => t.stem).join(' ')).not.toMatch(/emea/);
    expect(emea?.label).toMatch(/pric/);
    const health = await topicAskedOf(
      db.db,
      CORPUS_WORKSPACE_ID,
      'what are healthcare accounts asking about security?',
    );
    expect(health?.label).not.toMatch(/healthcare/i);
    expect(health?.label).toMatch(/security/);
  });
});
