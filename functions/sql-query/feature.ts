import type { FeatureModule } from '../module.js';
import { sqlQueryOperations } from './operations.js';

/** Read-only SQL over the workspace-scoped views (functions/module.ts). */
export const sqlQueryModule: FeatureModule = {
  name: 'sql-query',
  operations: sqlQueryOperations,
};
