import type { ArtifactType } from './definition.js';

/** A quote retrieved for a run: verbatim text, where it is from, and whether it backs or cuts against the message. */
export interface GradedQuote {
  text: string;
  source: {
    interaction_id: string;
    turn_id: string;
    speaker: string | null;
    occurred_at: string | null;
    account: string | null;
    title: string | null;
  };
  stance: 'supports' | 'contradicts';
}

/** Facts of the recipient account, read from the workspace (never assumed). */
export interface AccountFacts {
  name: string;
  type: string | null;
  industry: string | null;
  openDeals: number;
  lastInteractionAt: string | null;
}

/** What every check, dimension and rewrite may look at besides the text itself. */
export interface GradingContext {
  artifactType: ArtifactType | null;
  audience: string | null;
  account: AccountFacts | null;
  referenceAccounts: string[];
  quotes: GradedQuote[];
}
