import type { FeatureModule } from '../module.js';
import { webhookOperations } from './operations.js';
import { webhookDeliveryPipeline } from './delivery-pipeline.js';

/** The webhooks feature as the app wires it in (functions/module.ts). */
export const webhooksModule: FeatureModule = {
  name: 'webhooks',
  operations: webhookOperations,
  pipelines: [webhookDeliveryPipeline],
};
