import type { RunEventDraft } from '../../queues/pipeline.js';

/**
 * `answer.delta {text}` events (agents.md, "Events on the run's stream") while a hosted model
 * streams its step: each piece of text is appended to the run's stream as it arrives, ahead of the
 * turn's commit. Pieces that arrive while an append is in flight are joined into the next one, so
 * a fast model costs one write per round trip, not one per token. Deltas are progress only: the
 * answer a reader can rely on is the verified one (`answer.block` events and the run's `answer`).
 */
export class AnswerDeltas {
  #waiting = '';
  #flushing: Promise<void> | null = null;
  #open = true;

  constructor(private readonly emit: (events: readonly RunEventDraft[]) => Promise<boolean>) {}

  push = (text: string): void => {
    if (!this.#open || !text) return;
    this.#waiting += text;
    this.#kick();
  };

  /** Wait until every piece pushed so far is on the stream (or the run has moved on). */
  async flush(): Promise<void> {
    for (;;) {
      // Text pushed after a drain's last look and before it was cleared is picked up here.
      if (!this.#flushing && this.#open && this.#waiting) this.#kick();
      if (!this.#flushing) return;
      await this.#flushing;
    }
  }

  #kick(): void {
    // Cleared in a later microtask, after the assignment, however quickly the drain ends.
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = null;
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#open && this.#waiting) {
        const text = this.#waiting;
        this.#waiting = '';
        // False: this delivery no longer holds the run (canceled, superseded); stop appending.
        if (!(await this.emit([{ type: 'answer.delta', data: { text } }]))) this.#open = false;
      }
    } catch {
      // A failed append loses progress text only; the turn itself goes on and commits as usual.
      this.#open = false;
    }
  }
}
