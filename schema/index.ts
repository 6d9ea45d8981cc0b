/** Every table of the service, for drizzle's schema-aware query builder and for drizzle-kit. */
export * from './tenancy.js';
export * from './credentials.js';
export * from './usage.js';
export * from './runs.js';
export * from './webhooks.js';
export * from './warehouse-accounts.js';
export * from './warehouse-deals.js';
export * from './warehouse-interactions.js';
export * from './warehouse-semantic.js';
export * from './warehouse-settings.js';
export * from './demo-corpus-loads.js';
export * from './agents.js';
export * from './routines.js';
export * from './artifacts.js';
export * from './oauth-grants.js';
export * from './console.js';
export * from './evals.js';
