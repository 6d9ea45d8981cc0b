import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

let h: Harness;
let ws: SeededWorkspace;
beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

it('serves the corpus workspace with its overview', async () => {
  const res = await h.request('GET', '/search/overview', { key: ws.viewer.key });
  expect(res.status).toBe(200);
  expect(res.body.data.surfaces.interactions.row_count).toBe(1000);
  expect(res.body.data.semantic.utterances_external.row_count).toBeGreaterThan(4000);
});
