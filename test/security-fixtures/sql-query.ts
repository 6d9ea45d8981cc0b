import type { SecurityFixture } from '../support/security-suite.js';

/** SQL query: reads the caller's workspace through its views; there is no resource to address by id. */
export const sqlQueryFixtures: Record<string, SecurityFixture> = {
  'sql.query': {
    request: () => ({ body: { sql: 'select count(*) as n from accounts' } }),
    tenancy: { kind: 'workspace' },
    callerSql: { field: 'sql' },
  },
};
