import type { FeatureModule } from '../module.js';
import { subscriptionOperations } from './operations.js';
import { subscriptionFirePipeline, subscriptionPollPipeline } from './pipelines.js';
import { tickSubscriptions } from './scheduler.js';

/** The subscriptions feature as the app wires it in (functions/modules.ts). */
export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  operations: subscriptionOperations,
  pipelines: [subscriptionPollPipeline, subscriptionFirePipeline],
  async scheduledTick(services, at) {
    const done = await tickSubscriptions(services, at);
    if (done.polls + done.claimed + done.reaped > 0)
      services.log.info('subscriptions ticked', { ...done, at: at.toISOString() });
  },
};
