import type { FeatureModule } from '../module.js';
import { materializePipeline, requestMaterializations } from './materialize-pipeline.js';
import { lookalikeOperations } from './operations.js';

/** Lookalikes by conversation (functions/module.ts): centroids materialized on the engine, read by `find`. */
export const lookalikeModule: FeatureModule = {
  name: 'lookalike',
  operations: lookalikeOperations,
  pipelines: [materializePipeline],
  async scheduledTick(services, at) {
    const { runIds } = await requestMaterializations(services, at);
    if (runIds.length > 0) services.log.info('centroid materializations started', { runs: runIds.length });
  },
};
