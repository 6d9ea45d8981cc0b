import { Layout, type HeaderSession } from '../../web/layout.js';
import type { InteractionView } from '../interaction-operations.js';
import { day } from './answer.js';
import { AskStyle } from './run-panels.js';

const clock = (seconds: number | null) => {
  if (seconds === null) return null;
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/**
 * `/console/interactions/:id`: one call, meeting, email or post, read-only: who took part and what
 * was said, turn by turn. A quote's source link lands on its turn (`#turn-<id>`), highlighted.
 */
export function InteractionPage(props: { nonce: string; session: HeaderSession; interaction: InteractionView }) {
  const i = props.interaction;
  return (
    <Layout title={i.title} nonce={props.nonce} session={props.session} active="ask">
      <AskStyle nonce={props.nonce} />
      <p>
        <a href="/console/ask">← Ask</a>
      </p>
      <h1>{i.title}</h1>
      <section class="card" aria-labelledby="about-heading">
        <h2 id="about-heading">About</h2>
        <dl class="facts">
          <dt>Kind</dt>
          <dd>{i.kind}</dd>
          <dt>When</dt>
          <dd>
            <time datetime={i.occurred_at}>{day(i.occurred_at)}</time>, {i.occurred_at.slice(11, 16)} UTC
          </dd>
          <dt>Account</dt>
          <dd>{i.account?.name ?? 'No linked account'}</dd>
          {i.duration_seconds !== null ? (
            <>
              <dt>Duration</dt>
              <dd>{Math.round(i.duration_seconds / 60)} min</dd>
            </>
          ) : null}
          <dt>Source</dt>
          <dd>{i.source}</dd>
          <dt>Participants</dt>
          <dd>
            {i.participants.length === 0
              ? 'Not recorded'
              : i.participants
                  .map((p) => `${p.name ?? p.email ?? 'Unknown'} (${p.side}${p.role ? `, ${p.role}` : ''})`)
                  .join('; ')}
          </dd>
        </dl>
        {i.summary ? <p>{i.summary}</p> : null}
      </section>
      <section class="card transcript" aria-labelledby="words-heading">
        <h2 id="words-heading">{i.turns.length ? 'Transcript' : 'Message'}</h2>
        {i.turns.length ? (
          i.turns.map((t) => (
            <div class={`turn-row ${t.side}`} id={`turn-${t.id}`}>
              <span class="speaker">{t.speaker ?? 'Unknown speaker'}</span>{' '}
              <span class="hint">
                ({t.side}
                {clock(t.started_at_seconds) ? `, ${clock(t.started_at_seconds)}` : ''})
              </span>
              <p>{t.text}</p>
            </div>
          ))
        ) : i.body ? (
          <p class="draft">{i.body}</p>
        ) : (
          <p>No words were recorded for this interaction.</p>
        )}
      </section>
    </Layout>
  );
}
