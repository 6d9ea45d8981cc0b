import type { FeatureModule } from '../module.js';
import { routineOperations } from './operations.js';
import { routineFirePipeline } from './fire-pipeline.js';
import { fireDueRoutines } from './scheduler.js';

/** The routines feature as the app wires it in (functions/module.ts). */
export const routinesModule: FeatureModule = {
  name: 'routines',
  operations: routineOperations,
  pipelines: [routineFirePipeline],
  async scheduledTick(services, at) {
    const fired = await fireDueRoutines(services, at);
    if (fired.due > 0)
      services.log.info('routines fired', { due: fired.due, claimed: fired.claimed, at: at.toISOString() });
  },
};
