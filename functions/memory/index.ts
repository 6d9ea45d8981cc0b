/**
 * What the memory feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export { recallMemory, type MemoryHit, type RecallMode, type RecallOutcome } from './recall.js';
export {
  countMemory,
  readMemoryRows,
  rememberEvidence,
  type EvidenceToRemember,
  type RememberOutcome,
} from './store.js';
