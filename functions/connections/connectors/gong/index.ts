import type { Connector } from '../../connector.js';
import { callsSummary } from '../../summary-blocks.js';
import { GongClient } from './client.js';
import { gongSource } from './source.js';

/** Gong: an access key and its secret; recorded calls with their parties and transcripts. */
export const gong: Connector = {
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
  async checkCredentials(services, fields, secrets) {
    await new GongClient({
      baseUrl: services.config.GONG_API_BASE_URL,
      accessKey: fields.api_id ?? '',
      accessKeySecret: secrets.api_key ?? '',
    }).validate();
    return fields;
  },
  openSyncSource: gongSource,
  summary: callsSummary,
};
