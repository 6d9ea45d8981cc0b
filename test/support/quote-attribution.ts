import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { NO_ACCOUNT } from '../../functions/agents/grounding-attribution.js';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { Harness } from './harness.js';

/**
 * Whether every quote of an answer names whose words it is as the warehouse holds them: the
 * interaction's account, deal and date, and the quoted turn's speaker and side (an email's side from
 * its direction), each compared with an independent SQL read; no prose line quoting an attributed
 * quote says "No linked account" or leaves its account out.
 */

type Quote = Extract<Answer['content_blocks'][number], { kind: 'quote' }>;

type Truth = {
  account: string | null;
  deal: string | null;
  occurred_at: string;
  kind: string;
  direction: string | null;
  speaker: string | null;
  side: string | null;
};

/** The quotes of an answer, each checked against the warehouse; returns how many there were. */
export async function expectAttributed(db: Queryable, workspaceId: string, answer: Answer): Promise<number> {
  const quotes = answer.content_blocks.filter((b): b is Quote => b.kind === 'quote');
  for (const q of quotes) {
    const [truth] = await queryRows<Truth>(
      db,
      sql`select a.name as account, d.name as deal, i.occurred_at, i.kind, i.direction,
                 t.speaker_name as speaker, t.side
          from interactions i
          left join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
          left join transcript_turns t on t.id = ${q.source.turn_id}::uuid and t.interaction_id = i.id
          where i.id = ${q.source.interaction_id}::uuid and i.workspace_id = ${workspaceId}::uuid`,
    );
    expect(truth, `interaction ${q.source.interaction_id} is in the workspace`).toBeDefined();
    const what = `the source of “${q.text}”`;
    expect(q.source.account, what).toBe(truth!.account);
    expect(q.source.deal ?? null, what).toBe(truth!.deal);
    expect(Date.parse(q.source.occurred_at ?? ''), what).toBe(new Date(truth!.occurred_at).getTime());
    if (q.source.turn_id) {
      expect(q.source.speaker, what).toBe(truth!.speaker);
      expect(q.source.side, what).toBe(truth!.side);
    } else {
      const side = truth!.direction === 'inbound' ? 'external' : truth!.direction === 'outbound' ? 'internal' : null;
      expect(q.source.side ?? null, what).toBe(side);
    }
    if (truth!.account === null) continue;
    // The line quoting exactly these words, by this speaker (the corpus has buyers saying the same sentence).
    const quoting = answer.text
      .split('\n')
      .filter((line) => line.includes(`“${q.text}”`) && (!q.source.speaker || line.includes(q.source.speaker)));
    for (const line of quoting) {
      expect(line).not.toContain(NO_ACCOUNT);
      expect(line).toContain(truth!.account);
    }
  }
  return quotes.length;
}

async function answerOfRun(db: Queryable, runId: string): Promise<Answer> {
  const [row] = await queryRows<{ answer: Answer }>(
    db,
    sql`select state->'answer' as answer from runs where id = ${runId}::uuid`,
  );
  expect(row?.answer, `run ${runId} has an answer`).toBeTruthy();
  return row!.answer;
}

/** Ask the same question through POST /chat, POST /ask and POST /research; the three answers. */
export async function askEveryWay(h: Harness, key: string, question: string): Promise<Answer[]> {
  const queue = h.services.queue as LocalTransport;
  const chat = await h.request('POST', '/chat', { key, body: { input: question } });
  expect(chat.status, chat.text).toBe(202);
  await queue.drain();
  const ask = await h.request('POST', '/ask', { key, body: { query: question } });
  expect(ask.status, ask.text).toBe(200);
  const research = await h.request('POST', '/research', { key, body: { question, allow_questions: false } });
  expect(research.status, research.text).toBe(202);
  await queue.drain();
  const job = (await h.request('GET', `/research/${research.body.data.research_id}`, { key })).body.data;
  expect(job.status).toBe('complete');
  return [
    await answerOfRun(h.database.db, chat.body.data.run_id),
    await answerOfRun(h.database.db, ask.body.data.run_id),
    job.answer as Answer,
  ];
}
