import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../platform/db/pglite.js';
import { queryRows } from '../platform/db/port.js';
import { THEMES, TOPICS } from '../functions/embedded/demo/corpus/topics.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from './support/corpus-fixture.js';
import { openCorpusDatabase } from './support/harness.js';

/**
 * The demo corpus as a user meets it, checked with SQL over the loaded 1x corpus:
 * no template slot left unfilled, every customer quote on an account, customer voice in the last 90
 * days, so "recent" questions have recent evidence, and customers who do not all say the same
 * sentence about a theme.
 */
let db: PgliteHandle;
beforeAll(async () => {
  db = await openCorpusDatabase();
}, 120_000);
afterAll(async () => {
  await db.close();
});

const CUSTOMER_THEMES = new Set(THEMES.filter((t) => t.customerVoice).map((t) => t.key));
const SLOT = '\\{[A-Za-z_]+\\}';

describe('the demo corpus', () => {
  it('has no unfilled {slot} in any text a user can read', async () => {
    const [left] = await queryRows<Record<string, number>>(
      db.db,
      sql`select
        (select count(*)::int from transcript_turns where workspace_id = ${CORPUS_WORKSPACE_ID} and text ~ ${SLOT}) as turns,
        (select count(*)::int from utterances where workspace_id = ${CORPUS_WORKSPACE_ID} and text ~ ${SLOT}) as utterances,
        (select count(*)::int from interactions where workspace_id = ${CORPUS_WORKSPACE_ID}
           and (title ~ ${SLOT} or coalesce(summary, '') ~ ${SLOT} or coalesce(body, '') ~ ${SLOT})) as interactions,
        (select count(*)::int from themes where workspace_id = ${CORPUS_WORKSPACE_ID}
           and (label ~ ${SLOT} or summary ~ ${SLOT} or examples::text ~ ${SLOT})) as themes,
        (select count(*)::int from deals where workspace_id = ${CORPUS_WORKSPACE_ID} and name ~ ${SLOT}) as deals,
        (select count(*)::int from deal_qualification where workspace_id = ${CORPUS_WORKSPACE_ID} and coalesce(notes, '') ~ ${SLOT}) as qualification`,
    );
    expect(left).toEqual({ turns: 0, utterances: 0, interactions: 0, themes: 0, deals: 0, qualification: 0 });
    // The opener with a "{rep}" slot is there, filled with a name: the check above is not vacuous.
    const [said] = await queryRows<{ n: number }>(
      db.db,
      sql`select count(*)::int as n from transcript_turns where workspace_id = ${CORPUS_WORKSPACE_ID} and text ~ 'As I mentioned to [A-Z][a-z]+,'`,
    );
    expect(said?.n).toBeGreaterThan(0);
  });

  it('puts every interaction with a customer speaking on an account', async () => {
    const [row] = await queryRows<{ speaking: number; without_account: number }>(
      db.db,
      sql`select count(*)::int as speaking, count(*) filter (where i.account_id is null)::int as without_account
          from interactions i
          where i.workspace_id = ${CORPUS_WORKSPACE_ID}
            and (exists (select 1 from utterances u where u.interaction_id = i.id and u.side = 'external')
                 or exists (select 1 from participants p where p.interaction_id = i.id and p.side = 'external'))`,
    );
    expect(row?.speaking).toBeGreaterThan(500);
    expect(row?.without_account).toBe(0);
  });

  it('has customer voice in each of the last three 30-day windows, a fair share of it in the last 90 days', async () => {
    const [row] = await queryRows<{ total: number; last_90: number; d0_30: number; d30_60: number; d60_90: number }>(
      db.db,
      sql`select count(*)::int as total,
                 count(*) filter (where occurred_at >= ${CORPUS_NOW.toISOString()}::timestamptz - interval '90 days')::int as last_90,
                 count(*) filter (where occurred_at >= ${CORPUS_NOW.toISOString()}::timestamptz - interval '30 days')::int as d0_30,
                 count(*) filter (where occurred_at < ${CORPUS_NOW.toISOString()}::timestamptz - interval '30 days'
                                    and occurred_at >= ${CORPUS_NOW.toISOString()}::timestamptz - interval '60 days')::int as d30_60,
                 count(*) filter (where occurred_at < ${CORPUS_NOW.toISOString()}::timestamptz - interval '60 days'
                                    and occurred_at >= ${CORPUS_NOW.toISOString()}::timestamptz - interval '90 days')::int as d60_90
          from utterances where workspace_id = ${CORPUS_WORKSPACE_ID} and side = 'external'`,
    );
    // 18 months of data: an even spread would put a sixth (17%) in the last 90 days.
    expect((row?.last_90 ?? 0) / (row?.total ?? 1)).toBeGreaterThanOrEqual(0.15);
    for (const window of ['d0_30', 'd30_60', 'd60_90'] as const) expect(row?.[window], window).toBeGreaterThan(100);
  });

  it('words each theme in several distinct sentences, none of them in more than 30% of what customers said about it', async () => {
    // Each buyer line of the generator, by its longest slot-free stretch ("{competitor} quoted us almost
    // a third less ..." is found by "quoted us almost a third less ..."), counted in the loaded
    // customer-side utterances: how often the corpus really says it, whatever openers surround it.
    for (const topic of TOPICS) {
      for (const [theme, lines] of Object.entries(topic.buyer)) {
        if (!CUSTOMER_THEMES.has(theme)) continue; // investors, press, vendors: not customer quotes
        const counts: number[] = [];
        for (const line of lines) {
          const fragment = line
            .split(/\{\w+\}/)
            .map((part) => part.trim())
            .sort((a, b) => b.length - a.length)[0]!;
          const [row] = await queryRows<{ n: number }>(
            db.db,
            sql`select count(*)::int as n from utterances where workspace_id = ${CORPUS_WORKSPACE_ID}
                and side = 'external' and strpos(lower(text), lower(${fragment})) > 0`,
          );
          counts.push(row?.n ?? 0);
        }
        const total = counts.reduce((a, b) => a + b, 0);
        if (total < 20) continue; // a theme voiced a handful of times cannot show a share
        expect(lines.length, theme).toBeGreaterThanOrEqual(5);
        expect(Math.max(...counts) / total, theme).toBeLessThanOrEqual(0.3);
        expect(counts.filter((n) => n > 0).length, theme).toBeGreaterThanOrEqual(5);
      }
    }
  });
});
