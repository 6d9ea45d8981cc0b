import type { z } from 'zod';
import type { ChatRunView, ChatSchema } from '../../chat/index.js';
import { Flash, Layout, type HeaderSession } from '../../web/layout.js';
import { type Answer, AnswerView } from './answer.js';
import { statusWords } from './ask.js';
import { ApprovalForm, ContinueForm, type QuestionOption, QuestionForm } from './pause-forms.js';
import { AskStyle, CsrfField, FollowUpButton, LivePanel, MayAskAndSubmit } from './run-panels.js';

export type ChatView = z.infer<typeof ChatSchema>;

const inFlight = (status: string | null | undefined) => status === 'queued' || status === 'running';

/**
 * `/console/ask/threads/:id`: a thread's turns, the answers rendered for people; the latest run live
 * while it works, its question (or approval, or budget) answered here when it pauses; then a box to
 * continue the thread and the answer's follow-ups as buttons.
 */
export function ThreadPage(props: {
  nonce: string;
  session: HeaderSession;
  chat: ChatView;
  latest: ChatRunView | null;
  question?: string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { chat, latest } = props;
  const csrf = props.session.csrf;
  const busy = inFlight(latest?.status) || latest?.status === 'awaiting_input';
  const lastAssistant = [...chat.turns].reverse().find((t) => t.role === 'assistant');
  return (
    <Layout title={chat.name} nonce={props.nonce} session={props.session} active="ask">
      <AskStyle nonce={props.nonce} />
      <p>
        <a href="/console/ask">← Ask and all threads</a>
      </p>
      <h1>{chat.name}</h1>
      <p class="hint">
        Agent <code>{chat.agent.slug}</code> · <span id="thread-status">{statusWords(chat.status)}</span>
      </p>
      <Flash error={props.error} notice={props.notice} />
      {chat.turns.map((turn) =>
        turn.role === 'user' ? (
          <div class="turn user">
            <span class="who">You asked</span>
            {turn.content}
          </div>
        ) : (
          <section class="card turn assistant" aria-label="Answer">
            {turn.answer ? (
              <AnswerView
                answer={turn.answer as Answer}
                followUp={
                  turn === lastAssistant && !busy
                    ? (q) => <FollowUpButton csrf={csrf} chatId={chat.chat_id} question={q} />
                    : undefined
                }
              />
            ) : (
              <div class={turn.status === 'complete' ? 'notice' : 'error'} role="status">
                {turn.content}
              </div>
            )}
          </section>
        ),
      )}
      {latest && inFlight(latest.status) ? (
        <>
          <LivePanel
            nonce={props.nonce}
            eventsUrl={`/console/ask/runs/${latest.run_id}/events`}
            lastSeq={latest.last_seq}
            status={latest.status}
            draft={latest.draft?.text ?? null}
          />
          <form method="post" action={`/console/ask/runs/${latest.run_id}/cancel`}>
            <CsrfField csrf={csrf} />
            <button type="submit" class="danger">
              Stop this run
            </button>
          </form>
        </>
      ) : null}
      {latest?.status === 'awaiting_input' ? <PausedRun csrf={csrf} run={latest} /> : null}
      {busy ? null : (
        <section class="card" aria-labelledby="continue-heading">
          <h2 id="continue-heading">Continue the thread</h2>
          <form method="post" action="/console/ask">
            <CsrfField csrf={csrf} />
            <input type="hidden" name="chat_id" value={chat.chat_id} />
            <label for="follow-up-input">Your next question</label>
            <textarea id="follow-up-input" name="input" rows={2} maxlength={20000} required>
              {props.question ?? ''}
            </textarea>
            <MayAskAndSubmit />
          </form>
        </section>
      )}
    </Layout>
  );
}

/** The pause of a chat run, answered through the run's resume operation. */
function PausedRun(props: { csrf: string; run: ChatRunView }) {
  const { run } = props;
  const context = run.pending_input_context ?? {};
  const action = `/console/ask/runs/${run.run_id}/resume`;
  return (
    <section class="card" aria-labelledby="pause-heading">
      <h2 id="pause-heading">It needs you</h2>
      {run.pending_input_type === 'question' ? (
        <QuestionForm
          csrf={props.csrf}
          action={action}
          question={String(context.question ?? 'It has a question.')}
          options={(context.options as QuestionOption[] | undefined) ?? []}
        />
      ) : run.pending_input_type === 'approval' ? (
        <ApprovalForm
          csrf={props.csrf}
          action={action}
          label={String(context.label ?? context.tool ?? 'an action')}
          operation={typeof context.operation === 'string' ? context.operation : null}
        />
      ) : (
        <ContinueForm
          csrf={props.csrf}
          action={action}
          turnsUsed={Number(context.turns_used ?? run.usage.turns_used)}
          turnBudget={Number(context.turn_budget ?? run.usage.turn_budget)}
        />
      )}
    </section>
  );
}
