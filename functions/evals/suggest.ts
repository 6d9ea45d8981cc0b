import { HYPE_WORDS, asksIn, sentencesOf, splitSubject } from './text.js';

/** An advisory suggestion, anchored to a verbatim span of the submitted text (or to none: an addition). */
export interface Suggestion {
  anchor: string | null;
  suggestion: string;
  reason: string;
  check_id: string | null;
}

/** Advisory mode, locally: one suggestion per failed check, anchored where the problem is. */
export function suggestLocally(
  text: string,
  failed: readonly { check_id: string; note: string }[],
  customerPhrases: readonly string[],
): Suggestion[] {
  const { body } = splitSubject(text);
  const sentences = sentencesOf(body);
  const out: Suggestion[] = [];
  for (const f of failed) {
    switch (f.check_id) {
      case 'no_hype': {
        const lower = text.toLowerCase();
        const word = HYPE_WORDS.find((w) => lower.includes(w));
        const at = word ? lower.indexOf(word) : -1;
        out.push({
          anchor: at >= 0 && word ? text.slice(at, at + word.length) : null,
          suggestion: 'Cut it; say the concrete thing instead.',
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      }
      case 'has_call_to_action': {
        const last = asksIn(body).at(-1) ?? sentences.at(-1) ?? null;
        out.push({
          anchor: last,
          suggestion: 'End with one concrete ask (a time, a length, a next step).',
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      }
      case 'uses_customer_language':
        out.push({
          anchor: sentences[0] ?? null,
          suggestion: customerPhrases.length
            ? `Say it the way customers do: ${customerPhrases.map((p) => `"${p}"`).join(', ')}.`
            : 'Use the words customers use in the retrieved quotes.',
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      case 'length_fits_channel':
        out.push({
          anchor: null,
          suggestion: "Bring the length into the channel's range.",
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      case 'subject_line':
        out.push({
          anchor: null,
          suggestion: "Add a 2-6 word subject line in the customers' words.",
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      case 'specific_fact':
        out.push({
          anchor: sentences[0] ?? null,
          suggestion: "Add one fact from the account's record or the quotes.",
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      case 'reader_focus':
        out.push({
          anchor: sentences.find((s) => /\b(we|our|i)\b/i.test(s)) ?? null,
          suggestion: "Rewrite from the reader's side: what changes for them.",
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      case 'no_contradicted_claim':
        out.push({
          anchor: null,
          suggestion: 'Check the claim the contradicting quote cuts against; drop or qualify it.',
          reason: f.note,
          check_id: f.check_id,
        });
        break;
      default:
        out.push({ anchor: null, suggestion: `Fix: ${f.note}`, reason: f.note, check_id: f.check_id });
    }
  }
  // Anchors must be verbatim spans of the submitted text; anything else becomes an addition.
  return out.map((s) => (s.anchor && text.includes(s.anchor) ? s : { ...s, anchor: null }));
}
