import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAskedPeriod } from '../../functions/search/asked-period.js';
import { ManualClock } from '../../platform/clock.js';
import { isApiError } from '../../platform/errors.js';
import { impossibleDateIn, parseIsoDate, parseIsoTimestamp } from '../../platform/validation.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { searchClient } from '../support/search-client.js';
import { IMPOSSIBLE_DATES } from '../support/security-suite.js';

/**
 * A date that does not exist is 400 invalid_argument naming the field or the phrase, in every lane:
 * the free text of the fuzzy and semantic lanes (read by the one period module) and the typed
 * values of the filter lane (read by the one calendar in platform/validation.ts). Every other
 * operation with such a field is covered by the security suite's date class.
 */

const clock = new ManualClock('2026-11-20T12:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
let client: ReturnType<typeof searchClient>;

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace('Impossible dates');
  client = searchClient(h, clock, () => ws.viewer.key);
});
afterAll(async () => h.close());

describe('the calendar', () => {
  it('reads real dates and refuses the ones that name no day', () => {
    expect(parseIsoDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    for (const date of [...IMPOSSIBLE_DATES, '2023-02-29', '2026-04-31', '0000-01-01']) {
      expect(parseIsoDate(date), date).toBeNull();
      expect(parseIsoTimestamp(`${date}T10:00:00Z`), date).toBeNull();
      expect(impossibleDateIn(`calls since ${date}, please`), date).toBe(date);
    }
    expect(impossibleDateIn('calls since 2026-02-28 about SKU 12026-02-30 and v1.2026-13-01')).toBeNull();
  });

  it('is what the period module reads with: a date that does not exist is invalid_argument naming the phrase', () => {
    for (const date of IMPOSSIBLE_DATES) {
      let thrown: unknown;
      try {
        parseAskedPeriod(`emails since ${date}`, '2026-11-20');
      } catch (error) {
        thrown = error;
      }
      expect(isApiError(thrown) && thrown.toEnvelope(), date).toMatchObject({
        error: { code: 'invalid_argument', details: { reason: 'invalid_date', phrase: `since ${date}` } },
      });
    }
    expect(parseAskedPeriod('emails since 2026-02-28', '2026-11-20')).toMatchObject({ from: '2026-02-28' });
  });
});

describe('POST /search/query', () => {
  it('refuses a date that does not exist in the query text of every lane, naming the field', async () => {
    for (const date of IMPOSSIBLE_DATES)
      for (const mode of ['auto', 'fuzzy', 'semantic'] as const) {
        const problem = await client.rejects({ query: `emails since ${date}`, mode }, 'query');
        expect(problem, `${mode} ${date}`).toMatchObject({
          code: 'invalid_date',
          problem: expect.stringContaining(date),
        });
      }
    // The async fuzzy job refuses it before any job starts.
    await client.rejects({ query: 'calls on 2026-02-30', mode: 'fuzzy', async: true }, 'query');
  });

  it('refuses it in filter values, naming the filter', async () => {
    for (const date of IMPOSSIBLE_DATES) {
      await client.rejects({ filters: [{ field: 'occurred_at', op: 'gte', value: date }] }, 'filters.0.value');
      await client.rejects(
        { filters: [{ field: 'occurred_at', op: 'between', value: ['2026-01-01', `${date}T00:00:00Z`] }] },
        'filters.0.value',
      );
      await client.rejects(
        { surface: 'deals', filters: [{ field: 'close_date', op: 'in', value: ['2026-01-31', date] }] },
        'filters.0.value',
      );
    }
  });

  it('still answers real dates', async () => {
    const data = await client.ok({ query: 'emails since 2026-02-28', mode: 'fuzzy' });
    expect(data.detail.internal.plan?.subqueries[0]).toMatchObject({ since: '2026-02-28T00:00:00.000Z' });
  });
});
