import type { Connector } from '../../connector.js';
import { crmSummary } from '../../summary-blocks.js';
import { salesforceOAuth } from './oauth.js';
import { salesforceSource } from './source.js';

/** Salesforce, by OAuth: accounts, contacts and opportunities. */
export const salesforce: Connector = {
  type: 'salesforce',
  name: 'Salesforce',
  category: 'crm',
  authMethod: 'oauth',
  monogram: 'SF',
  fields: [],
  keyUrl: null,
  single_instance: true,
  ownership: 'workspace',
  description: 'Accounts, contacts and opportunities from Salesforce.',
  dataStreams: ['accounts', 'contacts', 'opportunities'],
  unavailable: (config) =>
    !config.SALESFORCE_CLIENT_ID || !config.SALESFORCE_CLIENT_SECRET
      ? 'This deployment has no Salesforce OAuth client (SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET).'
      : null,
  oauth: salesforceOAuth,
  openSyncSource: salesforceSource,
  summary: crmSummary,
};
