import type { AppConfig } from '../../platform/config.js';

/**
 * The sources a workspace can connect (spec: catalog entry). Each says how it connects (its
 * fields), what it brings (`dataStreams`), and whether it can be connected here and now: an OAuth
 * source needs this deployment's client id and secret, and a source whose sync this version does not
 * implement says so instead of accepting a connection that would never fill anything.
 */
export const CATEGORIES = ['crm', 'calls', 'comms', 'docs', 'support', 'social'] as const;
export type Category = (typeof CATEGORIES)[number];
export const AUTH_METHODS = ['oauth', 'api_key', 'handle', 'webhook'] as const;
export type ConnectMethod = (typeof AUTH_METHODS)[number];

export interface ConnectField {
  key: string;
  label: string;
  secret: boolean;
  placeholder: string | null;
  help: string;
  resupplyOnReconnect: boolean;
}

export interface ConnectorSpec {
  type: string;
  name: string;
  category: Category;
  authMethod: ConnectMethod;
  monogram: string;
  fields: ConnectField[];
  keyUrl: string | null;
  single_instance: boolean;
  ownership: 'workspace' | 'personal';
  description: string;
  dataStreams: string[];
  /** Why it cannot be connected in this deployment, or null when it can. */
  unavailable(config: AppConfig): string | null;
}

export const CONNECTORS: readonly ConnectorSpec[] = [
  {
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
  },
  {
    type: 'gong',
    name: 'Gong',
    category: 'calls',
    authMethod: 'api_key',
    monogram: 'GO',
    fields: [
      {
        key: 'api_id',
        label: 'Access key',
        secret: false,
        placeholder: null,
        help: 'Gong → Company settings → Ecosystem → API: the access key.',
        resupplyOnReconnect: false,
      },
      {
        key: 'api_key',
        label: 'Access key secret',
        secret: true,
        placeholder: null,
        help: 'The secret shown once beside the access key.',
        resupplyOnReconnect: true,
      },
    ],
    keyUrl: 'https://app.gong.io/company/api',
    single_instance: true,
    ownership: 'workspace',
    description: 'Recorded calls with their participants and transcripts.',
    dataStreams: ['calls', 'participants', 'transcripts'],
    unavailable: () => null,
  },
  {
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
  },
  {
    type: 'google_calendar',
    name: 'Google Calendar',
    category: 'comms',
    authMethod: 'oauth',
    monogram: 'GC',
    fields: [],
    keyUrl: null,
    single_instance: false,
    ownership: 'personal',
    description: 'Your meetings with external attendees, so calls and accounts line up with what is on your calendar.',
    dataStreams: ['events'],
    unavailable: (config) =>
      !config.GOOGLE_CLIENT_ID || !config.GOOGLE_CLIENT_SECRET
        ? 'This deployment has no Google OAuth client (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET).'
        : null,
  },
  {
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
  },
  {
    type: 'call_webhook',
    name: 'Calls and emails by webhook',
    category: 'calls',
    authMethod: 'webhook',
    monogram: 'WH',
    fields: [],
    keyUrl: null,
    single_instance: false,
    ownership: 'workspace',
    description:
      'Calls (with transcripts) and emails your own systems push to a signed ingest URL (Standard Webhooks signatures; the URL and secret are shown once, at connect).',
    dataStreams: ['calls', 'transcripts', 'emails'],
    unavailable: () => null,
  },
];

export const findConnector = (type: string): ConnectorSpec | undefined => CONNECTORS.find((c) => c.type === type);

/** A catalog entry as the API shows it (spec: Connection and catalog entry). */
export function catalogEntry(spec: ConnectorSpec, config: AppConfig) {
  const reason = spec.unavailable(config);
  return {
    type: spec.type,
    name: spec.name,
    kind: 'first_party' as const,
    category: spec.category,
    authMethod: spec.authMethod,
    logo: { key: spec.type, url: null, monogram: spec.monogram },
    connect: { method: spec.authMethod, fields: spec.fields, keyUrl: spec.keyUrl },
    connectable: reason === null,
    unavailableReason: reason,
    single_instance: spec.single_instance,
    ownership: spec.ownership,
    description: spec.description,
    dataStreams: spec.dataStreams,
  };
}
