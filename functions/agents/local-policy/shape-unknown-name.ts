import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { KNOWLEDGE_PURPOSE } from './document-quotes.js';
import { call, calls, finish, type Query } from './steps.js';

/**
 * A name the question gives that the workspace does not hold as an account, deal or owner ("what did
 * Globex say about pricing?", "is Initech a customer?"). Before any other reading answers with other
 * companies' facts, the data is asked whether anything mentions it: a conversation that names it, a
 * customer-side speaker of that name, a document or a memory. Nothing: the answer says so, with the
 * count of 0 that proves it (a metric the verifier re-runs). Something: it is a competitor, a product
 * or a person the other readers answer about (null here).
 */
export function unknownNameStep(ctx: PolicyContext, names: readonly string[]): StepResult | null {
  if (names.length === 0) return null;
  const probes = names
    .slice(0, 3)
    .map((name, i) => ({ name, i, mentions: mentionsQuery(name), speaker: speakerQuery(name) }));
  if (!ctx.results.get('name_probe_0')) {
    if (ctx.mustFinish) return null;
    return calls(
      ...probes.flatMap((p) => [
        call(ctx, `name_probe_${p.i}`, p.mentions),
        call(ctx, `name_speaker_${p.i}`, p.speaker),
      ]),
    );
  }
  // The workspace's documents (searched in the first turn) and what it remembers count as holding a name too.
  const elsewhere = JSON.stringify([rowsOf(ctx.results.get(KNOWLEDGE_PURPOSE)), ctx.memories]).toLowerCase();
  const absent = probes.filter((p) => {
    const mentions = ctx.results.get(`name_probe_${p.i}`);
    const speaker = ctx.results.get(`name_speaker_${p.i}`);
    return (
      mentions?.ok &&
      speaker?.ok &&
      Number(rowsOf(mentions)[0]?.count ?? -1) === 0 &&
      rowsOf(speaker).length === 0 &&
      !elsewhere.includes(p.name.toLowerCase())
    );
  });
  if (absent.length === 0) return null;
  const named = absent.map((p) => `**${p.name}**`).join(' and ');
  const blocks: BlockDraft[] = absent.map((p) => ({
    kind: 'metric',
    label: `Conversations that mention ${p.name}`,
    value: 0,
    column: 'count',
    query: p.mentions,
  }));
  return finish({
    text: [
      `*Read as: a question about ${absent.map((p) => p.name).join(' and ')}, a name this workspace does not hold.*`,
      '',
      `There is no ${named} in this workspace's data: no account, deal or deal owner has that name, no call, meeting or email mentions it, and no one of that name speaks in a transcript. So I have not answered with other companies' facts in its place.`,
      '',
      `I understood the question as being about ${named}; nothing else in it can be answered without it. If it goes by another name here, ask with that name, or ask about the accounts the data does hold.`,
    ].join('\n'),
    content_blocks: blocks,
    follow_ups: ['Which accounts have we talked to most this quarter?', 'What is our open pipeline by stage?'],
  });
}

const mentionsQuery = (name: string): Query => ({
  surface: 'interactions',
  filters: [{ field: 'said_or_written', op: 'contains', value: name }],
  metrics: [{ fn: 'count' }],
});

const speakerQuery = (name: string): Query => ({
  query: name,
  mode: 'semantic',
  filters: [{ field: 'speaker', op: 'contains', value: name }],
  limit: 1,
});
