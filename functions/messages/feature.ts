import type { FeatureModule } from '../module.js';
import { messageOperations } from './operations.js';

/** The messages feature as the app wires it in (functions/module.ts). */
export const messagesModule: FeatureModule = {
  name: 'messages',
  operations: messageOperations,
};
