import type { z } from 'zod';
import type { AnswerSchema, ContentBlockSchema } from '../../agents/index.js';
import { Markdown } from './markdown.js';

export type Answer = z.infer<typeof AnswerSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** The day of an ISO timestamp, as people read it ("12 Nov 2026"); unknown stays unknown. */
export function day(iso: string | null | undefined): string {
  if (!iso) return 'date unknown';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/** Where a quote's words were said: the interaction's page, at the turn. */
export const sourceHref = (source: { interaction_id: string; turn_id: string | null }) =>
  `/console/interactions/${source.interaction_id}${source.turn_id ? `#turn-${source.turn_id}` : ''}`;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
  if (typeof value === 'string')
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ? `${value.slice(0, 10)} ${value.slice(11, 16)} UTC` : value;
  return JSON.stringify(value);
}

/** One content block, for people (agents.md, "The answer"). */
export function AnswerBlock(props: { block: ContentBlock }) {
  const b = props.block;
  switch (b.kind) {
    case 'text':
      return (
        <div class="block text">
          <Markdown text={b.markdown} />
        </div>
      );
    case 'callout':
      return (
        <div class={`block callout ${b.tone}`} role="note">
          <Markdown text={b.markdown} />
        </div>
      );
    case 'quote':
      return (
        <figure class={`block quote ${b.stance}`}>
          <blockquote>{b.text}</blockquote>
          <figcaption>
            — <span class="speaker">{b.source.speaker ?? 'Unknown speaker'}</span>
            {b.source.account ? (
              <>
                , <span class="account">{b.source.account}</span>
              </>
            ) : null}
            , <time datetime={b.source.occurred_at ?? undefined}>{day(b.source.occurred_at)}</time> ·{' '}
            <a href={sourceHref(b.source)}>Open the source</a>
          </figcaption>
        </figure>
      );
    case 'document_quote':
      return (
        <figure class={`block quote ${b.stance}`}>
          <blockquote>{b.text}</blockquote>
          <figcaption>
            — <span class="document">{b.source.document_title}</span> · node {b.source.node_key}
          </figcaption>
        </figure>
      );
    case 'memory_quote':
      return (
        <figure class={`block quote ${b.stance}`}>
          <blockquote>{b.text}</blockquote>
          <figcaption>— workspace memory {b.source.memory_id}</figcaption>
        </figure>
      );
    case 'table':
      return (
        <div class="block table-block">
          <table>
            {b.title ? <caption>{b.title}</caption> : null}
            <thead>
              <tr>
                {b.columns.map((c) => (
                  <th scope="col">{c.label}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.data.map((row) => (
                <tr>
                  {b.columns.map((c) => (
                    <td>{cell(row[c.key])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {b.data.length === 0 ? <p class="hint">No rows.</p> : null}
        </div>
      );
    case 'metric':
      return (
        <div class="block metric">
          <span class="metric-value">{cell(b.value)}</span>
          <span class="metric-label">{b.label}</span>
        </div>
      );
    case 'citation':
      return (
        <div class="block citation">
          <span class="badge">{b.cite}</span> {b.label}
          {b.snippet ? <span class="hint"> — {b.snippet}</span> : null}
        </div>
      );
    case 'theme_finding':
      return (
        <div class="block theme">
          <strong>{b.label}</strong> <span class="hint">({b.member_count} mentions)</span>
          <p>{b.insight}</p>
        </div>
      );
  }
}

/**
 * A whole answer: its prose, its blocks in order, what the grounding check found, and the
 * follow-ups as buttons that ask them in the same thread (`followUp` renders each form).
 */
export function AnswerView(props: { answer: Answer; followUp?: ((question: string) => unknown) | undefined }) {
  const { answer } = props;
  const g = answer.grounding;
  // The prose is the answer; the blocks are its evidence, each checked (quotes link to their source).
  const proseInBlocks = answer.content_blocks.some((b) => b.kind === 'text');
  const evidence = answer.content_blocks.filter((b) => b.kind !== 'text' || proseInBlocks);
  return (
    <div class="answer">
      {proseInBlocks ? null : (
        <div class="block text">
          <Markdown text={answer.text} />
        </div>
      )}
      {evidence.length ? (
        <details class="evidence" open>
          <summary>Evidence ({evidence.length})</summary>
          {evidence.map((block) => (
            <AnswerBlock block={block} />
          ))}
        </details>
      ) : null}
      <p class="hint grounding">
        {g.verified ? <span class="badge ok">verified</span> : <span class="badge warn">not fully verified</span>}{' '}
        {g.quotes.verified} of {g.quotes.checked} quotes, {g.tables.verified} of {g.tables.checked} tables and{' '}
        {g.metrics.verified} of {g.metrics.checked} metrics checked against the workspace's data
        {g.numbers.unverified.length ? `; numbers not backed by a cell: ${g.numbers.unverified.join(', ')}` : ''}.
        {answer.partial
          ? ` Partial answer (${answer.partial_reason === 'usage_limit' ? 'usage limit' : 'turn budget'} reached).`
          : ''}
      </p>
      {answer.follow_ups.length && props.followUp ? (
        <div class="follow-ups">
          <h3>Ask next</h3>
          <div class="actions">{answer.follow_ups.map((q) => props.followUp?.(q))}</div>
        </div>
      ) : null}
    </div>
  );
}
