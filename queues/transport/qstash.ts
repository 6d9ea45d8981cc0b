import { Client } from '@upstash/qstash';
import type { PublishRequest, PublishResult, QueueTransport } from './port.js';
import { stageEndpointUrl } from './port.js';

/**
 * Production transport: QStash delivers each message to <PUBLIC_URL>/queues/<kind>, signed with the
 * account's signing keys, retrying failed deliveries itself. `baseUrl` is injectable so a test can
 * point the client at a local server and assert the exact request.
 */
export class QStashTransport implements QueueTransport {
  readonly name = 'qstash' as const;
  readonly #client: Client;
  readonly #publicUrl: string;

  constructor(options: { token: string; publicUrl: string; baseUrl?: string | undefined; retries?: number }) {
    this.#client = new Client({ token: options.token, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) });
    this.#publicUrl = options.publicUrl;
    this.retries = options.retries ?? 3;
  }

  readonly retries: number;

  async publish(request: PublishRequest): Promise<PublishResult> {
    const result = await this.#client.publishJSON({
      url: stageEndpointUrl(this.#publicUrl, request.kind),
      body: request.body,
      retries: this.retries,
      ...(request.delaySeconds ? { delay: Math.ceil(request.delaySeconds) } : {}),
      ...(request.deduplicationId ? { deduplicationId: request.deduplicationId } : {}),
    });
    const messageId = 'messageId' in result ? result.messageId : undefined;
    return { messageId: messageId ?? '' };
  }
}
