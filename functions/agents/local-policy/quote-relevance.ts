import {
  NEIGHBOUR_TURNS,
  type Neighbours,
  type QuestionTopic,
  RELEVANCE_THRESHOLD,
  relevanceInConversation,
} from '../relevance.js';
import { bestExcerpt, type QuoteCandidate } from './evidence.js';

type Row = Record<string, unknown>;

interface KnownTurn {
  interactionId: string;
  index: number;
  text: string;
}

/**
 * The transcript turns search rows hold, by turn id: a hydrated semantic row is one turn
 * (`interaction_id`, `turn_index`), a fuzzy row lists its `matching_turns`.
 */
function turnsOf(rows: readonly Row[]): Map<string, KnownTurn> {
  const out = new Map<string, KnownTurn>();
  const add = (id: unknown, interactionId: unknown, index: unknown, text: unknown) => {
    if (typeof id !== 'string' || typeof interactionId !== 'string' || typeof text !== 'string') return;
    if (typeof index !== 'number' || !Number.isInteger(index)) return;
    out.set(id, { interactionId, index, text });
  };
  for (const row of rows) {
    if (Array.isArray(row.matching_turns))
      for (const t of row.matching_turns as Row[]) add(t.turn_id, row.id, t.turn_index, t.text);
    else add(row.id, row.interaction_id, row.turn_index, row.text);
  }
  return out;
}

/**
 * Whether the verifier keeps a candidate as a quote on the topic, judged as it judges (relevance.ts):
 * the excerpt that would be quoted, scored in its conversation, with the turns around it that the
 * searches returned as its neighbours (the verifier reads every turn around it, so what passes here
 * passes there). A spoken turn on the topic often names none of its words: the discussion around it
 * does.
 */
export function keptAsOnTopic(
  topic: QuestionTopic,
  excerptTopic: string,
  rows: readonly Row[],
): (c: QuoteCandidate) => boolean {
  const known = turnsOf(rows);
  const byPlace = new Map<string, string>();
  for (const t of known.values()) byPlace.set(`${t.interactionId}:${t.index}`, t.text);
  return (c) => {
    const excerpt = bestExcerpt(c.text, excerptTopic);
    const turn = c.email ? undefined : known.get(c.turnId);
    const neighbours: Neighbours = { before: [], after: [] };
    if (turn)
      for (let d = -NEIGHBOUR_TURNS; d <= NEIGHBOUR_TURNS; d++) {
        const text = d === 0 ? undefined : byPlace.get(`${turn.interactionId}:${turn.index + d}`);
        if (text !== undefined) (d < 0 ? neighbours.before : neighbours.after).push(text);
      }
    return relevanceInConversation(topic, excerpt, neighbours) >= RELEVANCE_THRESHOLD;
  };
}
