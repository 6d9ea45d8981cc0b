import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/port.js';
import type { Logger } from '../platform/log.js';
import type { RunNotifier } from './notifier.js';
import type { QueueTransport } from './transport/port.js';

/**
 * The few ports the run engine itself uses. A pipeline's stages receive the engine's services type
 * parameter (the full `Services` of functions/ in the service), but the engine, the run store and the
 * transports depend only on this, so the asynchronous machinery never reaches up into functions/.
 */
export interface EnginePorts {
  db: Database;
  queue: QueueTransport;
  clock: Clock;
  log: Logger;
  /** Wakes long-polls and streams in this process when a run commits. */
  runNotifier: RunNotifier;
}
