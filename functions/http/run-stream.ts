import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { loadRun, readEventsAfter, isTerminal, TERMINAL_EVENT_TYPES } from '../../queues/run-store.js';
import type { RunStreamTarget } from '../registry.js';
import type { AppEnv } from './env.js';

const PAGE = 200;
/** Without a wake-up from this process, re-read the run at least this often (other processes commit too). */
const POLL_MS = 1_000;
const HEARTBEAT_MS = 15_000;
/** Long enough for a whole run; a client resumes with Last-Event-ID if cut. */
const MAX_STREAM_MS = 15 * 60_000;

export const wantsEventStream = (c: Context): boolean =>
  (c.req.header('accept') ?? '').toLowerCase().includes('text/event-stream');

/**
 * A run's events as server-sent events (spec, Events 5), unwrapped: `id:` is the event's seq,
 * `event:` its type, `data:` a JSON object {seq, type, at, data}. Replays everything after
 * `target.after`, then follows live; comment heartbeats keep proxies open; the stream ends after
 * the terminal event (run.completed, run.failed, run.canceled).
 */
export function streamRunEvents(c: Context<AppEnv>, target: RunStreamTarget): Response {
  const services = c.get('services');
  c.header('Cache-Control', 'no-cache');
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const abort = new AbortController();
    stream.onAbort(() => abort.abort());
    const started = Date.now();
    let lastWrite = Date.now();
    let cursor = target.after;
    while (!abort.signal.aborted) {
      const events = await readEventsAfter(services.db, target.runId, cursor, PAGE);
      for (const event of events) {
        await stream.writeSSE({
          id: String(event.seq),
          event: event.type,
          data: JSON.stringify({
            seq: event.seq,
            type: event.type,
            at: event.createdAt.toISOString(),
            data: event.data,
          }),
        });
        lastWrite = Date.now();
        cursor = event.seq;
        if ((TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type)) return;
      }
      if (events.length === PAGE) continue;
      const run = await loadRun(services.db, target.runId);
      // Ended before `after` (the terminal event was already seen by the client): nothing more will come.
      if (!run || (isTerminal(run.status) && run.lastSeq <= cursor)) return;
      if (Date.now() - started > MAX_STREAM_MS) return;
      await services.runNotifier.wait(target.runId, POLL_MS, abort.signal);
      if (Date.now() - lastWrite >= HEARTBEAT_MS) {
        await stream.write(': heartbeat\n\n');
        lastWrite = Date.now();
      }
    }
  });
}
