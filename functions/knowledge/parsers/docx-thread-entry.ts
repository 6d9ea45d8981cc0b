import { parentPort } from 'node:worker_threads';
import { inProcessDocxToHtml } from './docx-html.js';

/** One conversion at a time, on the thread docx-thread.ts starts: the bytes in, the HTML or the failure's message out. */
parentPort?.on('message', async ({ bytes }: { bytes: Uint8Array }) => {
  try {
    parentPort?.postMessage({ html: await inProcessDocxToHtml(bytes) });
  } catch (error) {
    parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
