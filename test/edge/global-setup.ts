import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEdgeStack } from '../../edge/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    edge: {
      url: string;
      controlUrl: string;
      databaseUrl: string;
      uncountedWsProxy: string;
      workspaceId: string;
      adminKey: string;
    };
  }
}

/** One stack (and one workerd) for the whole tier: a fresh data folder with the demo workspace. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-edge-data-'));
  const stack = await startEdgeStack({
    dataDir,
    logLevel: 'error',
    // EDGE_ECHO=1 prints workerd's own output (the worker's error log) while the tier runs.
    echo: process.env.EDGE_ECHO === '1',
    onPhase: (phase, ms) => process.stderr.write(`edge stack: ${phase} ${ms} ms\n`),
  });
  if (!stack.adminKey) throw new Error('a new data folder must mint the demo admin key');
  project.provide('edge', {
    url: stack.url,
    controlUrl: stack.controlUrl,
    databaseUrl: stack.databaseUrl,
    uncountedWsProxy: stack.uncountedWsProxy,
    workspaceId: stack.workspaceId,
    adminKey: stack.adminKey,
  });
  return async () => {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
