import { Client } from '@upstash/qstash';
import type { PublishRequest, PublishResult, QueueTransport } from './port.js';
import { stageEndpointUrl } from './port.js';

const QSTASH_DEFAULT_URL = 'https://qstash.upstash.io';

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
    // Always pass baseUrl and devMode: otherwise the client consults process.env itself (QSTASH_DEV
    // swaps in dev credentials and downloads a dev-server binary; QSTASH_REGION swaps the token).
    this.#client = new Client({ token: options.token, baseUrl: options.baseUrl ?? QSTASH_DEFAULT_URL, devMode: false });
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

  async publishMany(requests: readonly PublishRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await this.#client.batchJSON(
      requests.map((request) => ({
        url: stageEndpointUrl(this.#publicUrl, request.kind),
        body: request.body,
        retries: this.retries,
        ...(request.delaySeconds ? { delay: Math.ceil(request.delaySeconds) } : {}),
        ...(request.deduplicationId ? { deduplicationId: request.deduplicationId } : {}),
      })),
    );
  }
}
