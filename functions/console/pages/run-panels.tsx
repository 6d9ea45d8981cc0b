import { raw } from 'hono/html';

/**
 * What the Ask, thread and research pages share: their styles, the live panel of a run in flight
 * (its small script follows the run's own event stream through the console's stream routes), and
 * the hidden fields of a console form.
 */

const ASK_STYLE = `
.turn { margin: 0 0 1.25rem; }
.turn.user { background: #eef5fc; border-radius: 8px; padding: 0.75rem 1rem; white-space: pre-wrap; }
.turn .who { color: var(--muted); font-size: 0.85rem; margin-bottom: 0.25rem; display: block; }
.answer .block { margin: 0.75rem 0; }
.answer h3 { font-size: 1.1rem; margin: 1.25rem 0 0.5rem; }
.answer h4, .answer h5 { font-size: 1rem; margin: 1rem 0 0.5rem; }
figure.quote { margin: 0.75rem 0; border-left: 4px solid var(--accent); background: #fafbfc; padding: 0.5rem 1rem; }
figure.quote.contradicts { border-left-color: var(--danger); }
figure.quote.context { border-left-color: var(--line); }
figure.quote blockquote { margin: 0; font-style: italic; }
figure.quote figcaption { color: var(--muted); font-size: 0.9rem; margin-top: 0.25rem; }
.callout { border-left: 4px solid var(--accent); background: #eef5fc; padding: 0.5rem 1rem; }
.callout.warning { border-left-color: #d4a017; background: #fff8e1; }
.callout.success { border-left-color: #2e7d32; background: #e8f5e9; }
.callout p, .block.text p { margin: 0.4rem 0; }
.metric { display: inline-flex; flex-direction: column; border: 1px solid var(--line); border-radius: 8px; padding: 0.5rem 1rem; margin-right: 0.75rem; background: #fff; }
.metric-value { font-size: 1.5rem; font-weight: 700; }
.metric-label { color: var(--muted); font-size: 0.9rem; }
.table-block { overflow-x: auto; }
.table-block caption { text-align: left; font-weight: 600; padding: 0.25rem 0.5rem; }
.follow-ups form { display: inline; }
.follow-ups button { background: #fff; color: var(--accent); text-align: left; }
ol.steps { padding-left: 1.25rem; }
ol.steps li.running { color: var(--muted); }
ol.steps li.failed { color: var(--danger); }
.draft { white-space: pre-wrap; color: var(--muted); }
.transcript .turn-row { padding: 0.5rem 0.75rem; border-radius: 6px; }
.transcript .turn-row:target { background: #fff3c4; outline: 2px solid #f5a623; }
.transcript .turn-row .speaker { font-weight: 600; }
.transcript .turn-row.external .speaker { color: var(--accent); }
.tabs { display: flex; gap: 1rem; margin-bottom: 1rem; }
fieldset.choice label { font-weight: 400; display: flex; gap: 0.5rem; align-items: baseline; margin: 0.35rem 0; }
`;

export function AskStyle(props: { nonce: string }) {
  return <style nonce={props.nonce}>{raw(ASK_STYLE)}</style>;
}

/**
 * Follows a run on the page: tool labels as `tool.started` / `tool.completed` arrive, the draft as
 * `answer.delta` streams, a count of blocks as `answer.block` lands; when the run ends or pauses
 * after the page was rendered, the page reloads and the server renders the answer or the question.
 * The events come from the console's stream route, which serves the run's own stream operation.
 */
const LIVE_SCRIPT = `(() => {
  const panel = document.getElementById('live-run');
  if (!panel || typeof EventSource === 'undefined') return;
  const steps = document.getElementById('run-steps');
  const status = document.getElementById('run-status');
  const draft = document.getElementById('run-draft');
  const renderedSeq = Number(panel.dataset.lastSeq || '0');
  const running = new Map();
  let blocks = 0;
  const add = (text, state) => {
    const li = document.createElement('li');
    li.textContent = text;
    li.className = state;
    steps.appendChild(li);
    return li;
  };
  const data = (e) => JSON.parse(e.data);
  const source = new EventSource(panel.dataset.events);
  // The header's status was rendered with the page: it follows the run too.
  const threadStatus = document.getElementById('thread-status');
  source.addEventListener('run.started', () => {
    status.textContent = 'Working on it…';
    if (threadStatus) threadStatus.textContent = 'working'; // statusWords('running')
  });
  source.addEventListener('tool.started', (e) => {
    const d = data(e).data;
    const li = add(d.label + '…', 'running');
    const key = d.tool + '|' + d.label;
    running.set(key, [...(running.get(key) || []), li]);
  });
  source.addEventListener('tool.completed', (e) => {
    const d = data(e).data;
    const key = d.tool + '|' + d.label;
    const queue = running.get(key) || [];
    const li = queue.shift() || add(d.label, 'done');
    running.set(key, queue);
    li.textContent = (d.ok ? '✓ ' : '✗ ') + d.label + (d.summary ? ' — ' + d.summary : '');
    li.className = d.ok ? 'done' : 'failed';
  });
  source.addEventListener('answer.delta', (e) => {
    draft.hidden = false;
    draft.textContent += data(e).data.text;
  });
  source.addEventListener('answer.block', () => {
    blocks += 1;
    status.textContent = 'Writing the answer: ' + blocks + (blocks === 1 ? ' block' : ' blocks') + ' so far…';
  });
  const finish = (text) => {
    source.close();
    status.textContent = text;
    window.location.reload();
  };
  source.addEventListener('run.completed', () => finish('Done. Showing the answer…'));
  source.addEventListener('run.failed', () => finish('The run failed.'));
  source.addEventListener('run.canceled', () => finish('The run was canceled.'));
  source.addEventListener('run.awaiting_input', (e) => {
    if (data(e).seq > renderedSeq) finish('It has a question for you…');
  });
})();`;

/**
 * A run still working: what it is doing (live with JavaScript; without it, the page refreshes
 * itself every few seconds until the answer is there).
 */
export function LivePanel(props: {
  nonce: string;
  eventsUrl: string;
  lastSeq: number;
  status: string;
  draft?: string | null;
}) {
  return (
    <section
      class="card"
      id="live-run"
      data-events={props.eventsUrl}
      data-last-seq={String(props.lastSeq)}
      aria-labelledby="live-heading"
    >
      <noscript>
        <meta http-equiv="refresh" content="3" />
      </noscript>
      <h2 id="live-heading">Working</h2>
      <p id="run-status" role="status">
        {props.status === 'queued' ? 'Queued: it starts in a moment…' : 'Working on it…'}
      </p>
      <ol id="run-steps" class="steps" aria-label="What it is doing" aria-live="polite"></ol>
      <p id="run-draft" class="draft" hidden={!props.draft}>
        {props.draft ?? ''}
      </p>
      <script nonce={props.nonce}>{raw(LIVE_SCRIPT)}</script>
    </section>
  );
}

export function CsrfField(props: { csrf: string }) {
  return <input type="hidden" name="csrf_token" value={props.csrf} />;
}

/** A follow-up suggestion as a button: it asks the question in the same thread. */
export function FollowUpButton(props: { csrf: string; chatId: string; question: string }) {
  return (
    <form method="post" action="/console/ask">
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="chat_id" value={props.chatId} />
      <input type="hidden" name="input" value={props.question} />
      <button type="submit">{props.question}</button>
    </form>
  );
}

/** The end of every ask form: whether the run may ask back, and the submit button. */
export function MayAskAndSubmit() {
  return (
    <>
      <label class="check">
        <input type="checkbox" name="may_ask" value="yes" checked /> It may ask me when the data is ambiguous
      </label>
      <div class="actions">
        <button type="submit">Ask</button>
      </div>
    </>
  );
}
