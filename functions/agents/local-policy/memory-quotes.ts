import type { StepResult } from '../../../platform/model/port.js';
import type { AnswerDraft, BlockDraft } from '../answer.js';
import { FINAL_ANSWER } from '../tool-names.js';
import type { PolicyContext } from './context.js';
import { bestSentence, salientWords } from './document-quotes.js';

const MAX_MEMORY_QUOTES = 2;

/**
 * When the answer is ready, add what the workspace remembered about the ask: the memory the run
 * started with (recalled for the question, memory-context.ts), each text sharing a salient word with
 * the ask quoted verbatim (its best sentence) in a memory_quote block naming its memory_id, so the
 * grounding verifier checks it against that remembered row. Nothing is added when none qualifies.
 */
export function withMemoryQuotes(ctx: PolicyContext, step: StepResult): StepResult {
  const final = step.tool_calls.find((c) => c.name === FINAL_ANSWER);
  if (!final || ctx.memories.length === 0) return step;
  const askWords = salientWords(ctx.ask);
  const quotes: { id: string; sentence: string }[] = [];
  for (const memory of ctx.memories) {
    const sentence = bestSentence(memory.text, askWords);
    if (sentence) quotes.push({ id: memory.id, sentence });
    if (quotes.length === MAX_MEMORY_QUOTES) break;
  }
  if (quotes.length === 0) return step;
  const answer = final.arguments as AnswerDraft;
  const blocks: BlockDraft[] = quotes.map(({ id, sentence }) => ({
    kind: 'memory_quote',
    text: sentence,
    source: { memory_id: id },
    stance: 'context',
  }));
  const prose = quotes.map(({ sentence }) => `> ${sentence}`).join('\n\n');
  const text = `${answer.text}\n\n**From the workspace's memory**\n\n${prose}`;
  return {
    ...step,
    tool_calls: step.tool_calls.map((c) =>
      c === final ? { ...c, arguments: { ...answer, text, content_blocks: [...answer.content_blocks, ...blocks] } } : c,
    ),
  };
}
