import type { Connector } from '../../connector.js';
import { crmSummary } from '../../summary-blocks.js';
import { HubSpotClient } from './client.js';
import { hubspotSource } from './source.js';

/** HubSpot: a private app's access token; companies, contacts and deals. */
export const hubspot: Connector = {
  type: 'hubspot',
  name: 'HubSpot',
  category: 'crm',
  authMethod: 'api_key',
  monogram: 'HS',
  fields: [
    {
      key: 'api_key',
      label: 'Private app access token',
      secret: true,
      placeholder: 'pat-na1-…',
      help: 'HubSpot → Settings → Integrations → Private apps: create an app with crm.objects.companies.read, crm.objects.contacts.read and crm.objects.deals.read, then copy its access token.',
      resupplyOnReconnect: true,
    },
  ],
  keyUrl: 'https://app.hubspot.com/private-apps',
  single_instance: true,
  ownership: 'workspace',
  description: 'Companies, contacts and deals (with their stages) from your HubSpot CRM.',
  dataStreams: ['companies', 'contacts', 'deals'],
  unavailable: () => null,
  async checkCredentials(services, fields, secrets) {
    await new HubSpotClient({ baseUrl: services.config.HUBSPOT_API_BASE_URL, token: secrets.api_key ?? '' }).validate();
    return fields;
  },
  openSyncSource: hubspotSource,
  summary: crmSummary,
};
