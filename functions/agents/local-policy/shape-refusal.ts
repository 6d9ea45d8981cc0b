import type { AnswerDraft } from '../answer.js';

/**
 * An honest answer to a question the model cannot map: what it understood, what it did not, and
 * questions it can answer instead. No quotes and no figures: nothing here is dressed up as evidence.
 */

const PHRASINGS = [
  'Which deals are closing this quarter?',
  'What do customers say about pricing?',
  'Which deals have gone quiet?',
];

export function notUnderstood(understood: readonly string[], missingField: string | null): AnswerDraft {
  const lines: string[] = [];
  const read =
    understood.length > 0
      ? `I understood ${understood.join(', ')}`
      : 'I understood no account, person, deal or period in it';
  if (missingField) {
    lines.push(
      `I can't answer that from this workspace's data: it needs ${missingField}. The data holds calls, meetings, emails and posts, CRM accounts and deals (stage, amount, close date, owner) and their qualification notes.`,
      '',
      `${read}, but not a question those records can answer.`,
    );
  } else {
    lines.push(
      `I did not understand that as a question about this workspace's customers, deals or conversations, so I have not searched for evidence to dress up as an answer.`,
      '',
      `${read}; I did not understand what to look up or count.`,
    );
  }
  lines.push('', 'Questions I can answer, for example:');
  for (const p of PHRASINGS) lines.push(`- ${p}`);
  return { text: lines.join('\n'), content_blocks: [], follow_ups: PHRASINGS.slice(0, 3) };
}
