import type { OperationContext } from '../registry.js';

/**
 * What an evidence source is and returns (sources.ts lists them; conversations-source.ts and
 * memory-source.ts are two).
 */

export type SearchMode = 'hybrid' | 'semantic' | 'keyword';

export interface EvidenceQuery {
  query: string;
  limit: number;
  mode: SearchMode;
  /** Only what the customer side said (external speakers, inbound email); memory is not a conversation and is unaffected. */
  externalOnly: boolean;
}

/** One piece of evidence, as every source returns it (the spec's SearchResults item and more). */
export interface EvidenceItem {
  /** The evidence's id in its source (an interaction, a memory row). */
  id: string;
  source: string;
  title: string | null;
  /** `<source>/<type>`: conversations/call, conversations/email, memory/web, ... (what `source_type` filters on). */
  origin: string;
  snippets: string[];
  /** Reciprocal-rank score within its source's answer (higher first). */
  score: number;
  occurred_at: string | null;
  account: { id: string | null; name: string | null } | null;
  /** Where each snippet came from: the turn or utterance quoted, for a client to cite. */
  refs: {
    interaction_id?: string;
    turn_id?: string | null;
    utterance_id?: string;
    memory_id?: string;
    document_group_id?: string;
    node_key?: string;
  }[];
}

export interface SourceAnswer {
  items: EvidenceItem[];
  /** What could not be done (a lane degraded, a query not embedded), said plainly. */
  notes: string[];
}

export interface EvidenceSource {
  name: string;
  /** The finer types this source's items carry (the part of `origin` after the slash). */
  types: readonly string[];
  search(ctx: OperationContext, query: EvidenceQuery): Promise<SourceAnswer>;
  /** How much evidence the source holds for the workspace (what `evidenceSearched` counts). */
  size(ctx: OperationContext): Promise<number>;
}
