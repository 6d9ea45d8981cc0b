/**
 * The layer rule (docs/architecture.md, "Layers"), checked by folders on value imports:
 * platform/ < schema/ < queues/ (the engine) < functions/ (registry, transports, features); inside
 * functions/, features meet only through each other's index.ts.
 * `npm run lint` runs it; test/layering.test.ts proves it catches what it claims to.
 */
/** The database adapters, which hand drizzle the tables (see the exception below). */
const DATABASE_ADAPTERS = '^platform/db/(neon|pglite)\\.ts$';
/** Folders of functions/ every feature may use: transports, page chrome, who is calling, limits, runs, the embedded default. */
const SHARED_FOLDERS = 'http|mcp|web|identity|limits|runs|embedded';

module.exports = {
  forbidden: [
    {
      name: 'platform-imports-nothing-above',
      comment: 'platform/ holds the adapters behind ports: it imports no table, no engine, no feature.',
      severity: 'error',
      from: { path: '^platform/', pathNot: DATABASE_ADAPTERS },
      to: { path: '^(schema|queues|functions)/' },
    },
    {
      // Exceptions 1 and 2 of the 3 the layer budget allows: the Neon and PGlite adapters
      // build drizzle with the tables (schema/index.ts) so every query is typed by them. Nothing else.
      name: 'database-adapters-import-only-the-tables',
      comment: 'platform/db/neon.ts and pglite.ts may import schema/index.ts and nothing else above platform/.',
      severity: 'error',
      from: { path: DATABASE_ADAPTERS },
      to: { path: '^(schema|queues|functions)/', pathNot: '^schema/index\\.ts$' },
    },
    {
      name: 'schema-imports-no-engine-or-feature',
      comment: 'schema/ holds tables and migrations only.',
      severity: 'error',
      from: { path: '^schema/' },
      to: { path: '^(queues|functions)/' },
    },
    {
      name: 'engine-imports-no-feature',
      comment: 'queues/ is the engine layer: pipelines live with the features that run them.',
      severity: 'error',
      from: { path: '^queues/' },
      to: { path: '^functions/' },
    },
    {
      name: 'agents-import-no-transport',
      comment:
        'The agent loop runs inside queue deliveries and calls operations through the registry, not HTTP or MCP.',
      severity: 'error',
      from: { path: '^functions/agents/' },
      to: { path: '^functions/(http|mcp)/' },
    },
    {
      name: 'features-meet-through-index',
      comment:
        'A feature imports another feature only through its index.ts (what it offers the others); the shared ' +
        'folders (http, mcp, web, identity, limits, runs, embedded) are not features. A feature wires itself into ' +
        'the app in its feature.ts, which only functions/modules.ts imports.',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: {
        path: '^functions/[^/]+/',
        pathNot: ['^functions/$1/', '^functions/[^/]+/index\\.ts$', `^functions/(${SHARED_FOLDERS})/`],
      },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles (biome noImportCycles checks type-only imports too).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)schema/migrations/' },
    tsPreCompilationDeps: false,
    babelConfig: { fileName: './babel.config.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
