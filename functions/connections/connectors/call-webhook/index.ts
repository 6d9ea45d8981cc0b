import type { Connector } from '../../connector.js';
import { callsSummary } from '../../summary-blocks.js';
import { receiveCallsAndEmails, webhookSource } from './ingest.js';

/**
 * Calls and emails pushed by the workspace's own systems to a signed ingest URL: no sync, no
 * credentials to check (the signing secret is issued at connect), and each connection is a source of
 * its own in the warehouse (two pushing systems may well use the same ids).
 */
export const callWebhook: Connector = {
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
  receivePush: receiveCallsAndEmails,
  warehouseSource: (connection) => webhookSource(connection.id),
  summary: callsSummary,
};
