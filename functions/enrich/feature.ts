import type { FeatureModule } from '../module.js';
import { enrichOperations } from './operations.js';
import { enrichRefreshPipeline } from './refresh-pipeline.js';

/** Tiered enrichment (functions/module.ts): cached briefs, first-party evidence, rebuilds on the engine. */
export const enrichModule: FeatureModule = {
  name: 'enrich',
  operations: enrichOperations,
  pipelines: [enrichRefreshPipeline],
};
