import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import type { AppEnv } from '../http/env.js';
import type { OperationRegistry } from '../registry.js';
import { headerFor, renderPage } from '../web/browser.js';
import { consoleCall, message, withMember } from './page-helpers.js';
import { UsagePage, type UsageView } from './pages/usage.js';

/** The usage page: the console's usage operation, as the member. */
export function usageRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/console/usage', async (c) =>
    withMember(c, async (session) => {
      const usage = await consoleCall(c, registry, session, 'console.usage.get', {});
      if (usage instanceof ApiError && usage.status === 403)
        return message(c, 403, 'Usage', `Usage is shown to editors and admins. ${usage.message}`, session);
      if (usage instanceof ApiError) throw usage;
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => <UsagePage nonce={nonce} session={header} usage={usage as UsageView} />);
    }),
  );
  return app;
}
