import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { PublishRequest, PublishResult, QueueTransport, SigningKeys } from './port.js';
import { stageEndpointUrl } from './port.js';
import { signDelivery } from './signing.js';

/** How a delivery reaches the stage endpoint in-process: the app's own fetch. */
export type Deliver = (request: Request) => Promise<Response>;

export interface LocalTransportOptions {
  publicUrl: string;
  keys: SigningKeys;
  clock: Clock;
  /** Attempts per message before it is dropped (the engine records failures itself). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. */
  backoffMs?: number;
  onError?: (error: unknown, request: PublishRequest) => void;
}

/**
 * The embedded default's transport: in-process, signed like QStash, delivered through the same stage
 * endpoint, retried with exponential backoff on any non-2xx, honouring delays and deduplication ids.
 */
export class LocalTransport implements QueueTransport {
  readonly name = 'local' as const;
  readonly #options: Required<Omit<LocalTransportOptions, 'onError'>> & Pick<LocalTransportOptions, 'onError'>;
  #deliver: Deliver | null = null;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #seenDeduplicationIds = new Set<string>();
  #closed = false;

  constructor(options: LocalTransportOptions) {
    this.#options = { maxAttempts: 5, backoffMs: 500, ...options };
  }

  /** Bind the stage endpoint (the app is built after its services, so this comes second). */
  attach(deliver: Deliver): void {
    this.#deliver = deliver;
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    const messageId = `msg_${newId()}`;
    if (request.deduplicationId) {
      if (this.#seenDeduplicationIds.has(request.deduplicationId)) return { messageId };
      this.#seenDeduplicationIds.add(request.deduplicationId);
    }
    const task = this.#run(request).finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
    return { messageId };
  }

  /** Resolve once nothing is pending or in flight (tests, clean shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  close(): void {
    this.#closed = true;
  }

  async #run(request: PublishRequest): Promise<void> {
    if (request.delaySeconds) await this.#options.clock.sleep(request.delaySeconds * 1000);
    const url = stageEndpointUrl(this.#options.publicUrl, request.kind);
    const rawBody = JSON.stringify(request.body);
    for (let attempt = 1; attempt <= this.#options.maxAttempts && !this.#closed; attempt++) {
      try {
        if (!this.#deliver) throw new Error('local transport has no stage endpoint attached');
        const response = await this.#deliver(
          new Request(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'upstash-signature': await signDelivery(this.#options.keys.current, url, rawBody),
              'upstash-retried': String(attempt - 1),
            },
            body: rawBody,
          }),
        );
        if (response.ok) return;
      } catch (error) {
        this.#options.onError?.(error, request);
      }
      if (attempt < this.#options.maxAttempts) await this.#options.clock.sleep(this.#options.backoffMs * 2 ** (attempt - 1));
    }
  }
}
