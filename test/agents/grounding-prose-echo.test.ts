import { describe, expect, it } from 'vitest';
import { verifyAnswer } from '../../functions/agents/grounding.js';

/**
 * The prose may echo the asker's own words in quotation marks ("I did not use: “Zoe Kim”") whatever
 * case the asker wrote them in: those are the question's words, not a customer's, so no quote block
 * must back them. Words nobody asked stay held to a quote block.
 */

const ctx = {
  db: null as never,
  workspaceId: '00000000-0000-7000-8000-000000000000',
  rerun: async () => ({ ok: false as const, error: { code: 'internal' as const, message: 'unused' } }),
  question: { text: 'how many meetings has zoe kim sat in on this year', asked_at: '2026-11-20T12:00:00.000Z' },
};

describe('prose quoting the question back', () => {
  it('accepts the asker’s words in another case, and still removes words nobody asked or said', async () => {
    const echoed = await verifyAnswer(
      { text: 'I did not use these words of your question: “Zoe Kim”.', content_blocks: [], follow_ups: [] },
      ctx,
    );
    expect(echoed.grounding.checks.find((c) => c.name === 'prose-quotes')?.passed).toBe(true);
    expect(echoed.text).toContain('Zoe Kim');

    const invented = await verifyAnswer(
      { text: 'Zoe said: “we sat in on every meeting this year”.', content_blocks: [], follow_ups: [] },
      ctx,
    );
    expect(invented.grounding.checks.find((c) => c.name === 'prose-quotes')?.passed).toBe(false);
  });
});
