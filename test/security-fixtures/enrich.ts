import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/**
 * Security fixtures of tiered enrichment (see index.ts for how to write one). The suite's keys hold
 * data:read without external_search:execute, so a valid call is the first-party tier with
 * `refresh_omitted: missing_scope`, and an empty workspace answers the empty envelope.
 */
const firstPartyEmpty = (data: any) => {
  expect(data).toMatchObject({ success: true, tier: 'first_party', brief: null });
  expect(data.evidence).toMatchObject({ matched_count: 0, utterances: [] });
};

export const enrichFixtures: Record<string, SecurityFixture> = {
  'enrich.company': {
    request: () => ({ body: { domain: 'suite-company.example' } }),
    tenancy: { kind: 'workspace', assertOwn: firstPartyEmpty },
  },
  'enrich.person': {
    request: () => ({ body: { email: 'someone@suite-company.example' } }),
    tenancy: { kind: 'workspace', assertOwn: firstPartyEmpty },
  },
  'enrich.topic': {
    request: () => ({ body: { topic: 'security review' } }),
    tenancy: { kind: 'workspace', assertOwn: firstPartyEmpty },
  },
};
