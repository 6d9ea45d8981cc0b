// The thread's first module: it registers tsx's loader in this thread (a loader the process was started
// with does not reach a worker thread here), then loads the TypeScript entry.
import { register } from 'tsx/esm/api';

register();
await import('./docx-thread-entry.ts');
