import type { ResearchView } from '../../research/schemas.js';
import { Flash, Layout, type HeaderSession } from '../../web/layout.js';
import { AnswerView } from './answer.js';
import { QuestionForm } from './pause-forms.js';
import { AskStyle, CsrfField, FollowUpButton, LivePanel } from './run-panels.js';

export type { ResearchView };

const STATUS_WORDS: Record<ResearchView['status'], string> = {
  running: 'working',
  needs_input: 'waiting for you',
  complete: 'complete',
  failed: 'failed',
  canceled: 'canceled',
};

/**
 * `/console/research/:id`: a research job as it works (live), its question answered here, and its
 * sectioned report with citations once complete; follow-ups continue its thread as a chat.
 */
export function ResearchPage(props: {
  nonce: string;
  session: HeaderSession;
  job: ResearchView;
  lastSeq: number;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { job } = props;
  const csrf = props.session.csrf;
  return (
    <Layout title="Research job" nonce={props.nonce} session={props.session} active="ask">
      <AskStyle nonce={props.nonce} />
      <p>
        <a href="/console/ask">← Ask and all threads</a> ·{' '}
        <a href={`/console/ask/threads/${job.chat_id}`}>Its thread</a>
      </p>
      <h1>Research job</h1>
      <p class="hint">
        {STATUS_WORDS[job.status]} · started {job.created_at.replace('T', ' ').slice(0, 16)} UTC
      </p>
      <Flash error={props.error} notice={props.notice} />
      <div class="turn user">
        <span class="who">The question</span>
        {job.question}
      </div>
      {job.answered_questions.length ? (
        <section class="card" aria-labelledby="answered-heading">
          <h2 id="answered-heading">What you told it</h2>
          <dl class="facts">
            {job.answered_questions.map((q) => (
              <>
                <dt>{q.question}</dt>
                <dd>{q.answer}</dd>
              </>
            ))}
          </dl>
        </section>
      ) : null}
      {job.status === 'running' ? (
        <>
          <LivePanel
            nonce={props.nonce}
            eventsUrl={`/console/research/${job.research_id}/events`}
            lastSeq={props.lastSeq}
            status="running"
          />
          <form method="post" action={`/console/research/${job.research_id}/cancel`}>
            <CsrfField csrf={csrf} />
            <button type="submit" class="danger">
              Stop this job
            </button>
          </form>
        </>
      ) : null}
      {job.status === 'needs_input' && job.question_for_you ? (
        <section class="card" aria-labelledby="pause-heading">
          <h2 id="pause-heading">It needs you</h2>
          <QuestionForm
            csrf={csrf}
            action={`/console/research/${job.research_id}/respond`}
            question={job.question_for_you.question}
            options={job.question_for_you.options}
          />
        </section>
      ) : null}
      {job.answer ? (
        <section class="card" aria-labelledby="report-heading">
          <h2 id="report-heading">Report</h2>
          <AnswerView
            answer={job.answer}
            followUp={(q) => <FollowUpButton csrf={csrf} chatId={job.chat_id} question={q} />}
          />
        </section>
      ) : null}
      {job.error ? (
        <div class="error" role="alert">
          {job.error}
        </div>
      ) : null}
    </Layout>
  );
}
