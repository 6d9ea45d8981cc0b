import { expect } from 'vitest';
import type { SecurityFixture } from '../support/security-suite.js';

/** Security fixtures of the analyses (see index.ts for how to write one): each reads the workspace as a whole. */
export const analysisFixtures: Record<string, SecurityFixture> = {
  // An empty workspace's talk ratio: nothing of another tenant's conversations, and why it is empty.
  'analyses.talk_ratio': {
    request: () => ({ body: { period: { from: '2026-01-01', to: '2027-01-01' }, limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('talk_ratio');
        expect(data.results.by_rep).toEqual([]);
        expect(data.empty_reason).toMatch(/No timed turns/);
      },
    },
  },
  // An empty workspace's feature requests: no other tenant's asks, and why it is empty.
  'analyses.feature_requests': {
    request: () => ({ body: { topic: 'integrations', audience: 'customers', limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('feature_requests');
        expect(data.results.requests).toEqual([]);
        expect(data.empty_reason).toMatch(/asked for/);
      },
    },
  },
  // An empty workspace's competitors: no other tenant's rivals, even one named outright.
  'analyses.competitors': {
    request: () => ({ body: { competitors: ['Pipewell'], period: { from: '2026-01-01', to: '2027-01-01' } } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('competitors');
        expect(data.results.competitors).toEqual([]);
        expect(data.empty_reason).toContain('Pipewell');
      },
    },
  },
  // An empty workspace's renewals: none of another tenant's deals, and why it is empty.
  'analyses.renewal_risk': {
    request: () => ({ body: { quiet_days: 30, as_of: '2026-11-20' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('renewal_risk');
        expect(data.results.renewals).toEqual([]);
        expect(data.empty_reason).toMatch(/No open renewal deals/);
      },
    },
  },
  // An empty workspace's champion changes: nothing of another tenant's assessments, contacts or conversations.
  'analyses.champion_changes': {
    request: () => ({ body: { period: { from: '2025-01-01', to: '2027-01-01' } } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('champion_changes');
        expect(data.results.changes).toEqual([]);
        expect(data.results.departures).toEqual([]);
        expect(data.empty_reason).toMatch(/No champion changes/);
      },
    },
  },
  // Another tenant's account by its name: not found here, and no near name of theirs either.
  'analyses.account_history': {
    request: () => ({ body: { account: 'Acme Logistics' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.analysis).toBe('account_history');
        expect(data.results.overview).toEqual([]);
        expect(data.empty_reason).toBe('No account named "Acme Logistics" in this workspace.');
      },
    },
  },
};
