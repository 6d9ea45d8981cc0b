/**
 * Whether this test process runs on the PostgreSQL tier: vitest.pg.config.ts sets CIP_TEST_DATABASE
 * to `postgres`, and the harness then opens its databases there (test/pg/postgres.ts). A file of its
 * own so that npm test's harness reads the switch without loading the tier's driver and relay.
 */
export const onPostgresTier = (): boolean => process.env.CIP_TEST_DATABASE === 'postgres';
