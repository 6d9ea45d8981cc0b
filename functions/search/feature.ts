import type { FeatureModule } from '../module.js';
import { searchOperations } from './operations.js';
import { searchFuzzyPipeline } from './fuzzy-pipeline.js';

/** The search feature as the app wires it in (functions/module.ts). */
export const searchModule: FeatureModule = {
  name: 'search',
  operations: searchOperations,
  pipelines: [searchFuzzyPipeline],
};
