import type { Queryable } from '../../platform/db/port.js';

/**
 * The queue port: how a stage delivery gets from the code that schedules it to the stage endpoint
 * `POST <PUBLIC_URL>/queues/<kind>`. At-least-once is the contract for every adapter: a message may
 * arrive twice, late, or concurrently with itself, and the receiver must be idempotent.
 */
export interface PublishRequest {
  /** The pipeline kind; selects the endpoint /queues/<kind>. */
  kind: string;
  /** JSON body of the delivery (validated by the receiver with zod). */
  body: Record<string, unknown>;
  /** Deliver no earlier than this many seconds from now. */
  delaySeconds?: number;
  /** Identical ids published within the transport's window are delivered once. */
  deduplicationId?: string;
}

export interface PublishResult {
  messageId: string;
}

export interface QueueTransport {
  readonly name: 'qstash' | 'local';
  publish(request: PublishRequest): Promise<PublishResult>;
  /** Many deliveries in one request (QStash's batch API, one insert locally); the same contract as publish. */
  publishMany?(requests: readonly PublishRequest[]): Promise<void>;
  /**
   * A transport whose deliveries live in the service's own database (the local one) can take part
   * in the engine's commit: the next stage's deliveries are written, and the delivery being handled
   * is acknowledged, in the same transaction as the stage's result, so a crash between them loses
   * or repeats nothing. `afterCommit` wakes the dispatcher once the transaction is visible.
   */
  within?(tx: Queryable): TransactionalQueue;
}

export interface TransactionalQueue {
  publishMany(requests: readonly PublishRequest[]): Promise<void>;
  /** Acknowledge (remove) the delivery with this message id. */
  acknowledge(messageId: string): Promise<void>;
  afterCommit(): void;
}

/** What the stage endpoint knows of a delivery, and learns back from the engine. */
export interface DeliveryReceipt {
  /** The transport's message id (`Upstash-Message-Id`). */
  messageId: string;
  /** Set by the engine when it acknowledged the delivery inside its commit: the transport need not. */
  acknowledged: boolean;
}

/** Response header by which the stage endpoint tells the local transport the delivery is already acknowledged. */
export const ACKNOWLEDGED_HEADER = 'x-cip-delivery-acknowledged';

/** Signing keys shared by the sender and the stage endpoint's receiver (QStash's current and next key). */
export interface SigningKeys {
  current: string;
  next: string;
}

export const stageEndpointPath = (kind: string): string => `/queues/${encodeURIComponent(kind)}`;
export const stageEndpointUrl = (publicUrl: string, kind: string): string => `${publicUrl}${stageEndpointPath(kind)}`;
