import { WorkSection } from './agents.js';
import { when } from './connections.js';
import { DangerLink, type HeaderSession } from '../../web/layout.js';

export interface RoutineView {
  id: string;
  name: string;
  prompt: string;
  cron: string;
  timezone: string;
  agent: string | null;
  enabled: boolean;
  next_run_at: string | null;
  last_fire: { scheduled_for: string; chat_id: string | null; run_id: string | null } | null;
}

interface PageBase {
  nonce: string;
  session: HeaderSession;
  canWrite: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

/** The fields of a routine a person sets; the operation checks cron, time zone and agent. */
function RoutineFields(props: { routine?: RoutineView | undefined; draft?: Record<string, string> | undefined }) {
  const r = props.routine;
  const value = (key: string, current: string) => props.draft?.[key] ?? current;
  const enabled = props.draft ? props.draft.enabled === 'yes' : (r?.enabled ?? true);
  return (
    <>
      <label for="routine-name">Name</label>
      <input type="text" id="routine-name" name="name" required value={value('name', r?.name ?? '')} />
      <label for="routine-prompt">What the agent does each time</label>
      <textarea id="routine-prompt" name="prompt" rows={5} required>
        {value('prompt', r?.prompt ?? '')}
      </textarea>
      <label for="routine-cron">Schedule (cron: minute hour day month weekday)</label>
      <input
        type="text"
        id="routine-cron"
        name="cron"
        required
        placeholder="0 9 * * 1"
        value={value('cron', r?.cron ?? '')}
      />
      <label for="routine-timezone">Time zone</label>
      <input type="text" id="routine-timezone" name="timezone" value={value('timezone', r?.timezone ?? 'UTC')} />
      <label for="routine-agent">Agent (slug; empty for the default)</label>
      <input type="text" id="routine-agent" name="agent" value={value('agent', r?.agent ?? '')} />
      <label class="check" for="routine-enabled">
        <input type="checkbox" id="routine-enabled" name="enabled" value="yes" checked={enabled} />
        Enabled (fires on schedule)
      </label>
    </>
  );
}

export function RoutinesPage(
  props: PageBase & { routines: RoutineView[]; draft?: Record<string, string> | undefined },
) {
  return (
    <WorkSection
      title="Routines"
      nonce={props.nonce}
      session={props.session}
      current="routines"
      notice={props.notice}
      error={props.error}
    >
      <section class="card" aria-labelledby="routines-heading">
        <h2 id="routines-heading">Scheduled routines</h2>
        {props.routines.length === 0 ? (
          <p>No routines yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Routine</th>
                <th scope="col">Schedule</th>
                <th scope="col">Next run</th>
                <th scope="col">Last fire</th>
              </tr>
            </thead>
            <tbody>
              {props.routines.map((r) => (
                <tr>
                  <td>
                    <a href={`/console/routines/${r.id}`}>{r.name}</a>
                  </td>
                  <td>
                    <code>{r.cron}</code> {r.timezone}
                  </td>
                  <td>{r.enabled ? when(r.next_run_at) : 'disabled'}</td>
                  <td>{r.last_fire ? when(r.last_fire.scheduled_for) : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {props.canWrite ? (
        <section class="card" aria-labelledby="new-routine-heading">
          <h2 id="new-routine-heading">Create a routine</h2>
          <form method="post" action="/console/routines">
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <RoutineFields draft={props.draft} />
            <div class="actions">
              <button type="submit">Create</button>
            </div>
          </form>
        </section>
      ) : null}
    </WorkSection>
  );
}

export function RoutinePage(
  props: PageBase & {
    routine: RoutineView;
    /** Whether this member may delete it (the delete operation's own role and scope check). */
    canDelete: boolean;
    draft?: Record<string, string> | undefined;
  },
) {
  const { routine } = props;
  return (
    <WorkSection
      title={routine.name}
      nonce={props.nonce}
      session={props.session}
      current="routines"
      notice={props.notice}
      error={props.error}
    >
      <section class="card" aria-labelledby="routine-heading">
        <h2 id="routine-heading">Schedule</h2>
        <dl class="facts">
          <dt>Cron</dt>
          <dd>
            <code>{routine.cron}</code> ({routine.timezone})
          </dd>
          <dt>Next run</dt>
          <dd>{routine.enabled ? when(routine.next_run_at) : 'disabled'}</dd>
          <dt>Last fire</dt>
          <dd>
            {routine.last_fire ? when(routine.last_fire.scheduled_for) : 'never'}
            {routine.last_fire?.run_id ? (
              <>
                {' '}
                (run <code>{routine.last_fire.run_id}</code>)
              </>
            ) : null}
          </dd>
        </dl>
        {props.canWrite ? (
          <form method="post" action={`/console/routines/${routine.id}/run`}>
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <div class="actions">
              <button type="submit" class="secondary">
                Run now
              </button>
            </div>
          </form>
        ) : null}
        {props.canDelete ? (
          <div class="actions">
            <DangerLink
              href={`/console/routines/${routine.id}/delete`}
              label={`Delete routine ${routine.name}`}
              text="Delete"
            />
          </div>
        ) : null}
      </section>
      {props.canWrite ? (
        <section class="card" aria-labelledby="edit-routine-heading">
          <h2 id="edit-routine-heading">Edit</h2>
          <form method="post" action={`/console/routines/${routine.id}`}>
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <RoutineFields routine={routine} draft={props.draft} />
            <div class="actions">
              <button type="submit">Save</button>
            </div>
          </form>
        </section>
      ) : (
        <section class="card" aria-labelledby="prompt-heading">
          <h2 id="prompt-heading">Prompt</h2>
          <pre>{routine.prompt}</pre>
        </section>
      )}
    </WorkSection>
  );
}
