import type { FeatureModule } from '../module.js';
import { chatOperations } from './operations.js';

/** The chat feature as the app wires it in (functions/module.ts). */
export const chatModule: FeatureModule = {
  name: 'chat',
  operations: chatOperations,
};
