import { searchNotes, type Result } from './context.js';

/**
 * Why a search came back empty, in words. The search's own message is not repeated: it carries
 * counts that no table in the answer would back.
 */
export function whyEmpty(result: Result | undefined): string {
  if (!result) return 'the search did not run';
  if (!result.ok) return `the search failed (${result.error.code})`;
  switch (searchNotes(result).emptyReason) {
    case 'not_synced':
      return 'nothing has been synced to this workspace yet';
    case 'scope_disjoint':
      return "the period asked for lies outside the data's span";
    case 'read_failed':
      return 'the search could not read the data (try again)';
    default:
      return 'nothing in the data matched';
  }
}

export function staleNote(result: Result | undefined): string {
  return searchNotes(result).stale ? 'Note: the synced data is behind, so recent activity may be missing.' : '';
}
