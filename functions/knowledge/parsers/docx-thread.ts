import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DocxToHtml } from './docx-html.js';

/**
 * DOCX to HTML on worker threads (Node only: the Node entry passes it to buildServices; the Workers
 * bundle never reaches this file). mammoth's conversion is one synchronous stretch that grows with the
 * document (a realistic DOCX held the event loop for about 100 ms at a time); here it runs beside the
 * event loop instead. At most `size` threads, started on first use, each converting one document at a
 * time, the rest queued in order; an idle thread does not keep the process alive. What bounds a
 * conversion is unchanged: the zip and markup limits are checked before the bytes are sent (docx.ts).
 */
export interface DocxThreadPool {
  toHtml: DocxToHtml;
  /** Stops the threads; a conversion in progress or queued fails. */
  close(): Promise<void>;
}

/** Plain JavaScript, so that it loads without a loader; it registers tsx and loads docx-thread-entry.ts. */
const ENTRY = new URL('./docx-thread-boot.mjs', import.meta.url);

interface Task {
  bytes: Uint8Array;
  resolve: (html: string) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
}

/** One thread fewer than the cores (the event loop keeps one), at least one, at most two. */
export const defaultDocxThreads = (): number => Math.max(1, Math.min(2, availableParallelism() - 1));

export function docxThreadPool(size: number = defaultDocxThreads()): DocxThreadPool {
  const threads: Thread[] = [];
  const queue: Task[] = [];
  let closed = false;

  const start = (): Thread => {
    const thread: Thread = { worker: new Worker(ENTRY, { execArgv: [] }), task: null };
    thread.worker.unref();
    thread.worker.on('message', (reply: { html?: string; error?: string }) => {
      const task = thread.task;
      thread.task = null;
      thread.worker.unref();
      if (task) {
        if (typeof reply.html === 'string') task.resolve(reply.html);
        else task.reject(new Error(reply.error ?? 'the DOCX conversion failed'));
      }
      next();
    });
    const fail = (error: Error) => {
      threads.splice(threads.indexOf(thread), 1);
      thread.task?.reject(error);
      thread.task = null;
      next();
    };
    thread.worker.on('error', fail);
    thread.worker.on('exit', (code) => {
      if (threads.includes(thread)) fail(new Error(`the DOCX conversion thread stopped (exit code ${code})`));
    });
    threads.push(thread);
    return thread;
  };

  const next = () => {
    while (!closed && queue.length > 0) {
      const thread = threads.find((t) => t.task === null) ?? (threads.length < size ? start() : undefined);
      if (!thread) return;
      const task = queue.shift() as Task;
      thread.task = task;
      // Referenced while it works: a conversion in progress keeps the process alive until it answers.
      thread.worker.ref();
      // A copy of its own to hand over: the caller's bytes stay whole.
      const bytes = task.bytes.slice();
      thread.worker.postMessage({ bytes }, [bytes.buffer]);
    }
  };

  return {
    toHtml: (bytes) =>
      new Promise<string>((resolve, reject) => {
        if (closed) return reject(new Error('the DOCX conversion threads are stopped'));
        queue.push({ bytes, resolve, reject });
        next();
      }),
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error('the DOCX conversion threads are stopped'));
      await Promise.all(
        threads.splice(0).map((t) => {
          t.task?.reject(new Error('the DOCX conversion threads are stopped'));
          return t.worker.terminate();
        }),
      );
    },
  };
}
