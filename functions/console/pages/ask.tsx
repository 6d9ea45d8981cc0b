import type { z } from 'zod';
import type { ChatSummarySchema } from '../../chat/index.js';
import { Flash, Layout, type HeaderSession } from '../../web/layout.js';
import { AskStyle, CsrfField, MayAskAndSubmit } from './run-panels.js';

export type ChatSummary = z.infer<typeof ChatSummarySchema>;

const STATUS_WORDS: Record<string, string> = {
  queued: 'queued',
  running: 'working',
  awaiting_input: 'waiting for you',
  complete: 'answered',
  failed: 'failed',
  canceled: 'canceled',
};
export const statusWords = (status: string | null) => (status ? (STATUS_WORDS[status] ?? status) : 'no run yet');

/** `/console/ask`: ask the workspace a question (or start a research job), and the threads so far. */
export function AskPage(props: {
  nonce: string;
  session: HeaderSession;
  threads: ChatSummary[];
  total: number;
  mine: boolean;
  question?: string | undefined;
  error?: string | undefined;
}) {
  const csrf = props.session.csrf;
  return (
    <Layout title="Ask" nonce={props.nonce} session={props.session} active="ask">
      <AskStyle nonce={props.nonce} />
      <h1>Ask the workspace</h1>
      <Flash error={props.error} />
      <section class="card" aria-labelledby="ask-heading">
        <h2 id="ask-heading">A question</h2>
        <form method="post" action="/console/ask">
          <CsrfField csrf={csrf} />
          <label for="ask-input">Your question</label>
          <textarea id="ask-input" name="input" rows={3} maxlength={20000} required>
            {props.question ?? ''}
          </textarea>
          <p class="hint">
            For example: “What do customers say about pricing?”, “Prep me for my call with Acme Logistics”, “Which deals
            close this quarter?”
          </p>
          <fieldset class="choice">
            <legend>How deep</legend>
            <label>
              <input type="radio" name="kind" value="chat" checked /> Ask: an answer in a moment, kept as a thread you
              can continue
            </label>
            <label>
              <input type="radio" name="kind" value="research" /> Research job: a deeper, sectioned report with
              citations (counts toward the monthly research cap)
            </label>
          </fieldset>
          <MayAskAndSubmit />
        </form>
      </section>
      <section class="card" aria-labelledby="threads-heading">
        <h2 id="threads-heading">{props.mine ? 'Your threads' : 'Threads in this workspace'}</h2>
        <p class="tabs">
          {props.mine ? <strong>Yours</strong> : <a href="/console/ask">Yours</a>}
          {props.mine ? <a href="/console/ask?threads=all">Everyone's</a> : <strong>Everyone's</strong>}
        </p>
        {props.threads.length === 0 ? (
          <p>No threads yet. Ask a question above.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Thread</th>
                <th scope="col">Agent</th>
                <th scope="col">Latest run</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {props.threads.map((t) => (
                <tr>
                  <td>
                    <a href={`/console/ask/threads/${t.chat_id}`}>{t.name}</a>
                  </td>
                  <td>{t.agent.slug}</td>
                  <td>{statusWords(t.status)}</td>
                  <td>{t.last_activity_at.replace('T', ' ').slice(0, 16)} UTC</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {props.total > props.threads.length ? (
          <p class="hint">
            The {props.threads.length} most recent of {props.total}.
          </p>
        ) : null}
      </section>
    </Layout>
  );
}
