import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The house plan's layers (docs/design/architecture.md), checked by folders with dependency-cruiser and
 * the rules in .dependency-cruiser.cjs (the same run `npm run lint` makes): platform/ < schema/ <
 * queues/ (the engine) < functions/; the agent loop imports no transport; features meet through index.ts; no cycles.
 */

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const SOURCES = '{functions,queues,schema,platform}/**/*.{ts,tsx}';

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Cruise the tree under `cwd` with the project's rules; the violations it reports. */
function violationsIn(cwd: string): Violation[] {
  const out = execFileSync(
    DEPCRUISE,
    [SOURCES, '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json', '--no-progress'],
    // A violation makes depcruise exit non-zero; the JSON on stdout is what the test reads.
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(out) as { summary: { violations: Violation[]; totalDependenciesCruised: number } }).summary
    .violations;
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway tree with the given files, the project's Babel config and its node_modules. */
function treeWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  scratch.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  cpSync(join(ROOT, 'babel.config.json'), join(dir, 'babel.config.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('layers', () => {
  it('the project has no value import against the layers and no cycle', { timeout: 120_000 }, () => {
    expect(violationsIn(ROOT).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });

  it('catches an engine file importing a feature, an agent importing a transport, in .ts and .tsx, any quotes', {
    timeout: 120_000,
  }, () => {
    const dir = treeWith({
      'functions/search/lane.ts': 'export const lane = 1;\n',
      'functions/http/env.ts': 'export const prefix = "/api";\n',
      'platform/clock.ts': 'export const now = () => 0;\n',
      'queues/new-engine-file.ts': "import { lane } from '../functions/search/lane.js';\nexport const x = lane;\n",
      'functions/agents/page.tsx': 'import { prefix } from "../http/env.js";\nexport const y = <b>{prefix}</b>;\n',
      'platform/uses-engine.ts': "import { x } from '../queues/new-engine-file.js';\nexport const z = x;\n",
    });
    const found = violationsIn(dir).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found).toContain('engine-imports-no-feature: queues/new-engine-file.ts -> functions/search/lane.ts');
    expect(found).toContain('agents-import-no-transport: functions/agents/page.tsx -> functions/http/env.ts');
    expect(found).toContain('platform-imports-nothing-above: platform/uses-engine.ts -> queues/new-engine-file.ts');
  });
  it('catches a feature reaching into another feature past its index.ts, and allows index.ts and the shared folders', {
    timeout: 120_000,
  }, () => {
    const dir = treeWith({
      'functions/agents/start.ts': 'export const startRun = 1;\n',
      'functions/agents/index.ts': "export { startRun } from './start.js';\n",
      'functions/web/layout.tsx': 'export const Layout = 1;\n',
      'functions/chat/operations.ts': "import { startRun } from '../agents/start.js';\nexport const a = startRun;\n",
      'functions/research/operations.ts':
        "import { startRun } from '../agents/index.js';\nimport { Layout } from '../web/layout.js';\nexport const b = startRun + Layout;\n",
      'functions/routines/page.tsx':
        'import { startRun } from "../agents/start.js";\nexport const c = <i>{startRun}</i>;\n',
    });
    const found = violationsIn(dir).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found).toEqual([
      'features-meet-through-index: functions/chat/operations.ts -> functions/agents/start.ts',
      'features-meet-through-index: functions/routines/page.tsx -> functions/agents/start.ts',
    ]);
  });
});
