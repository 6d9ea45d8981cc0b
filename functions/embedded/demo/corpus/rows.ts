import type { accounts, contacts } from '../../../../schema/warehouse-accounts.js';
import type { dealQualification, deals } from '../../../../schema/warehouse-deals.js';
import type { interactions, participants, transcriptTurns } from '../../../../schema/warehouse-interactions.js';
import type { themes, utterances } from '../../../../schema/warehouse-semantic.js';
import type { excludedInteractions, sourceFreshness } from '../../../../schema/warehouse-settings.js';

/** Insert shapes of the warehouse tables: what the generator produces and the loader writes. */
export type AccountRow = typeof accounts.$inferInsert;
export type ContactRow = typeof contacts.$inferInsert;
export type DealRow = typeof deals.$inferInsert;
export type QualificationRow = typeof dealQualification.$inferInsert;
export type InteractionRow = typeof interactions.$inferInsert;
export type ParticipantRow = typeof participants.$inferInsert;
export type TurnRow = typeof transcriptTurns.$inferInsert;
export type UtteranceRow = typeof utterances.$inferInsert;
export type ThemeRow = typeof themes.$inferInsert;
export type ExcludedRow = typeof excludedInteractions.$inferInsert;
export type FreshnessRow = typeof sourceFreshness.$inferInsert;

/** One slice of the corpus: a group of accounts with everything that hangs off them. */
export interface CorpusChunk {
  index: number;
  accounts: AccountRow[];
  contacts: ContactRow[];
  deals: DealRow[];
  qualification: QualificationRow[];
  interactions: InteractionRow[];
  participants: ParticipantRow[];
  turns: TurnRow[];
  utterances: UtteranceRow[];
  excluded: ExcludedRow[];
}

/** What can only be known once every chunk is generated. */
export interface CorpusTail {
  themes: ThemeRow[];
  freshness: FreshnessRow[];
}

export const CHUNK_TABLES = [
  'accounts',
  'contacts',
  'deals',
  'qualification',
  'interactions',
  'participants',
  'turns',
  'utterances',
  'excluded',
] as const;
export type ChunkTable = (typeof CHUNK_TABLES)[number];
