import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockDraft } from '../../functions/agents/answer.js';
import { verifyAnswer, type GroundingContext } from '../../functions/agents/grounding.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness } from '../support/harness.js';

/**
 * The verifier's attribution check, whatever model wrote the draft: a verbatim quote whose source
 * names a wrong or missing account (or speaker, date) leaves the verifier with the warehouse's labels,
 * counted in `grounding.quotes.relabeled`, and the prose line quoting it names the right account.
 */

let h: Harness;
let ctx: GroundingContext;

type Turn = {
  turn_id: string;
  interaction_id: string;
  text: string;
  speaker: string;
  side: 'external' | 'internal';
  occurred_at: string;
  account: string;
  deal: string | null;
};

/** External turns of interactions on an account, two of different accounts, read by SQL. */
async function turnsOnAccounts(): Promise<[Turn, Turn]> {
  const rows = await queryRows<Turn>(
    h.database.db,
    sql`select distinct on (a.name) t.id as turn_id, t.interaction_id, t.text, t.speaker_name as speaker, t.side,
               i.occurred_at, a.name as account, d.name as deal
        from transcript_turns t join interactions i on i.id = t.interaction_id
        join accounts a on a.id = i.account_id left join deals d on d.id = i.deal_id
        where t.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and t.side = 'external' and t.speaker_name is not null
          and length(t.text) > 40
        order by a.name, t.id limit 2`,
  );
  expect(rows).toHaveLength(2);
  expect(rows[0]!.account).not.toBe(rows[1]!.account);
  return [rows[0]!, rows[1]!];
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  await h.corpusWorkspace();
  ctx = { db: h.database.db, workspaceId: CORPUS_WORKSPACE_ID, rerun: async () => ({ ok: true, output: {} }) as never };
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const quoteOf = (t: Turn, source: Partial<Extract<BlockDraft, { kind: 'quote' }>['source']>): BlockDraft => ({
  kind: 'quote',
  text: t.text,
  source: {
    interaction_id: t.interaction_id,
    turn_id: t.turn_id,
    speaker: t.speaker,
    occurred_at: new Date(t.occurred_at).toISOString(),
    account: t.account,
    ...source,
  },
  stance: 'supports',
});

const withText = (block: BlockDraft, text: string): BlockDraft => (block.kind === 'quote' ? { ...block, text } : block);

describe('attribution of quotes', () => {
  it('corrects a wrong account and a missing one on the blocks and in the prose, and counts them', async () => {
    const [a, b] = await turnsOnAccounts();
    const result = await verifyAnswer(
      {
        text: [
          'What they said:',
          `- **${b.account}**, ${a.speaker}: “${a.text}”`,
          `- **No linked account**, ${b.speaker}: “${b.text}”`,
        ].join('\n'),
        content_blocks: [quoteOf(a, { account: b.account }), quoteOf(b, { account: null, occurred_at: null })],
        follow_ups: [],
      },
      ctx,
    );
    expect(result.grounding.verified).toBe(true);
    expect(result.grounding.quotes).toMatchObject({ checked: 2, verified: 2, removed: 0, relabeled: 2 });
    const quotes = result.content_blocks.filter((q) => q.kind === 'quote');
    expect(quotes.map((q) => q.kind === 'quote' && q.source)).toEqual([
      expect.objectContaining({ account: a.account, deal: a.deal, speaker: a.speaker, side: 'external' }),
      expect.objectContaining({
        account: b.account,
        deal: b.deal,
        side: 'external',
        occurred_at: new Date(b.occurred_at).toISOString(),
      }),
    ]);
    expect(result.text).toContain(`- **${a.account}**, ${a.speaker}: “${a.text}”`);
    expect(result.text).toContain(`- **${b.account}**, ${b.speaker}: “${b.text}”`);
    expect(result.text).not.toContain('No linked account');
  });

  it('corrects a wrong speaker and fills deal and side on a quote whose labels are otherwise right, counting only the wrong one', async () => {
    const [a, b] = await turnsOnAccounts();
    const result = await verifyAnswer(
      {
        text: `- ${a.account}, Somebody Else: “${a.text}”\n- ${b.account}, ${b.speaker}: “${b.text}”`,
        content_blocks: [quoteOf(a, { speaker: 'Somebody Else' }), quoteOf(b, {})],
        follow_ups: [],
      },
      ctx,
    );
    expect(result.grounding.quotes).toMatchObject({ verified: 2, relabeled: 1 });
    expect(result.text).toContain(`- ${a.account}, ${a.speaker}: “${a.text}”`);
    const second = result.content_blocks[1];
    expect(second?.kind === 'quote' && second.source).toMatchObject({
      account: b.account,
      deal: b.deal,
      side: 'external',
    });
  });

  it('names a rightly attributed quote’s account on every line quoting it, whole or in part, and counts no correction', async () => {
    const [a, b] = await turnsOnAccounts();
    const part = a.text.split(/\s+/).slice(0, 6).join(' ');
    const result = await verifyAnswer(
      {
        text: [
          'What they said:',
          `- No linked account, ${a.speaker}: “${a.text}”`,
          `- **${b.account}**, ${b.speaker}: “${b.text}”`,
          '',
          `As one buyer put it, “${part}”, and that set the tone.`,
          `${b.account} said it too: “${a.text}”`,
        ].join('\n'),
        content_blocks: [quoteOf(a, {}), quoteOf(b, {})],
        follow_ups: [],
      },
      ctx,
    );
    expect(result.grounding.quotes).toMatchObject({ checked: 2, verified: 2, relabeled: 0 });
    expect(result.grounding.verified).toBe(true);
    expect(result.text).not.toContain('No linked account');
    expect(result.text).toContain(`- ${a.account}, ${a.speaker}: “${a.text}”`);
    // A line that already names the right account is left as written.
    expect(result.text).toContain(`- **${b.account}**, ${b.speaker}: “${b.text}”`);
    expect(result.text).toContain(`As one buyer put it, “${part}” (${a.account}), and that set the tone.`);
    expect(result.text).toContain(`${a.account} said it too: “${a.text}”`);
    expect(result.text).not.toContain(`${b.account} said it too`);
  });

  it('does not relabel a quote it removes, and takes out the line quoting it', async () => {
    const [a, b] = await turnsOnAccounts();
    const result = await verifyAnswer(
      {
        text: `- **${b.account}**, ${a.speaker}: “${a.text} banana”`,
        content_blocks: [
          quoteOf(a, { account: b.account, turn_id: b.turn_id }),
          withText(quoteOf(a, {}), `${a.text} banana`),
        ],
        follow_ups: [],
      },
      ctx,
    );
    expect(result.grounding.quotes).toMatchObject({ checked: 2, verified: 0, removed: 2, relabeled: 0 });
    // The line quoting the failed quote is not relabeled: it goes (no quote block says its words).
    expect(result.text).not.toContain('banana');
    expect(result.grounding.checks.find((c) => c.name === 'prose-quotes')).toMatchObject({ passed: false, removed: 1 });
  });
});
