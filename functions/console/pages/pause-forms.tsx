import { CsrfField } from './run-panels.js';

/**
 * The forms that answer a paused run (agents.md, "Pauses"): a question with its options and a
 * write-in, an approval of a side effect, or continue-or-finish when the turn budget is spent.
 * Each posts to the console, which sends the reply through the run's own resume operation.
 */

export interface QuestionOption {
  id: string;
  label: string;
}

const WRITE_IN = 'other';

/** A question with choices (the last the write-in) or free-form; `action` is where the reply goes. */
export function QuestionForm(props: { csrf: string; action: string; question: string; options: QuestionOption[] }) {
  const choices = props.options.filter((o) => o.id !== WRITE_IN);
  return (
    <form method="post" action={props.action}>
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="reply" value="question" />
      {choices.length ? (
        <fieldset class="choice">
          <legend>{props.question}</legend>
          {choices.map((o, i) => (
            <label>
              <input type="radio" name="option_id" value={o.id} checked={i === 0} /> {o.label}
            </label>
          ))}
          <label>
            <input type="radio" name="option_id" value={WRITE_IN} /> Something else:
          </label>
          <label for="write-in" class="visually-hidden">
            Your answer in your words
          </label>
          <input type="text" id="write-in" name="response" maxlength={4000} placeholder="Your answer in your words" />
        </fieldset>
      ) : (
        <>
          <label for="free-answer">{props.question}</label>
          <textarea id="free-answer" name="response" rows={3} maxlength={4000} required></textarea>
        </>
      )}
      <div class="actions">
        <button type="submit">Answer</button>
      </div>
    </form>
  );
}

export function ApprovalForm(props: { csrf: string; action: string; label: string; operation: string | null }) {
  return (
    <form method="post" action={props.action}>
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="reply" value="approval" />
      <p>
        It wants to: <strong>{props.label}</strong>
        {props.operation ? (
          <>
            {' '}
            (<code>{props.operation}</code>)
          </>
        ) : null}
        . Nothing happens unless you approve.
      </p>
      <label for="approval-feedback">Why not (needed to decline)</label>
      <textarea id="approval-feedback" name="feedback" rows={2} maxlength={4000}></textarea>
      <div class="actions">
        <button type="submit" name="decision" value="approve">
          Approve
        </button>
        <button type="submit" name="decision" value="decline" class="danger">
          Decline
        </button>
      </div>
    </form>
  );
}

export function ContinueForm(props: { csrf: string; action: string; turnsUsed: number; turnBudget: number }) {
  return (
    <form method="post" action={props.action}>
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="reply" value="continue_or_finish" />
      <p>
        It used its whole budget ({props.turnsUsed} of {props.turnBudget} turns). Let it keep going, or have it answer
        with what it has.
      </p>
      <label for="additional-turns">More turns</label>
      <input type="number" id="additional-turns" name="additional_turns" min={1} max={75} value="10" />
      <div class="actions">
        <button type="submit" name="action" value="continue">
          Continue
        </button>
        <button type="submit" name="action" value="finish" class="secondary">
          Finish with what it has
        </button>
      </div>
    </form>
  );
}
