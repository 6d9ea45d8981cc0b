import type { Connector } from '../../connector.js';
import { socialSummary } from '../../summary-blocks.js';
import { BlueskyClient } from './client.js';
import { normalizeHandle } from './handle.js';
import { blueskySource } from './source.js';

/** Bluesky, by handle (public posts, no secret): the threads the account starts or joins. */
export const bluesky: Connector = {
  type: 'bluesky',
  name: 'Bluesky',
  category: 'social',
  authMethod: 'handle',
  monogram: 'BS',
  fields: [
    {
      key: 'account_handle',
      label: 'Bluesky handle',
      secret: false,
      placeholder: 'yourcompany.com',
      help: 'Your company\u2019s account, as in its profile link (bsky.app/profile/yourcompany.com): yourcompany.com or yourcompany.bsky.social, with or without the @. Only public posts are read; nothing is posted.',
      resupplyOnReconnect: false,
    },
  ],
  keyUrl: null,
  single_instance: false,
  ownership: 'workspace',
  description:
    'Public conversations of your company\u2019s Bluesky account: the threads it starts or joins, with the replies people write, as customer voice.',
  dataStreams: ['threads'],
  unavailable: () => null,
  async checkCredentials(services, fields) {
    const actor = fields.account_did ?? normalizeHandle(fields.account_handle ?? '');
    const account = await new BlueskyClient({ baseUrl: services.config.BLUESKY_API_BASE_URL }).profile(actor);
    // Pinned to the DID: a handle can be renamed, the account behind it stays.
    return { ...fields, account_handle: account.handle, account_did: account.did };
  },
  // Public posts: nothing secret to open.
  openSyncSource: (services, connection) => blueskySource(services, connection),
  summary: socialSummary,
};
