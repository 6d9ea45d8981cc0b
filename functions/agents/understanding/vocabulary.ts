/**
 * The workspace's own vocabulary, as a model learns it: through search calls like any other data.
 * Two filter-lane aggregates, run once at the start of a run, list the accounts (with industry and
 * region), the deals (with account and owner) and the deal owners; the names in an ask are then
 * linked against these, never guessed from capital letters. The competitors the conversations name
 * are learned the same way, through the competitors analysis, when a question holds a word none of
 * the rest explains (COMPETITOR_VOCABULARY_QUERY): most questions never pay for that scan.
 */

type Query = Record<string, unknown>;
type Row = Record<string, unknown>;

export const VOCABULARY_QUERIES = {
  deals: {
    surface: 'deals',
    group_by: ['name', 'account_name', 'owner_email'],
    metrics: [{ fn: 'count' }],
    limit: 1000,
  },
  accounts: {
    surface: 'interactions',
    group_by: ['account_name', 'account_industry', 'account_region'],
    metrics: [{ fn: 'count' }],
    limit: 1000,
  },
} as const satisfies Record<string, Query>;

/** The competitors analysis's input that lists every rival the conversations name (its table's rows). */
export const COMPETITOR_VOCABULARY_QUERY = { limit: 50 } as const;

export interface Owner {
  email: string;
  /** "Rhea Okafor" read from "rhea.okafor@…"; null when the address does not spell a name. */
  name: string | null;
}

export interface Vocabulary {
  accounts: { name: string; industry: string | null; region: string | null }[];
  deals: { name: string; account: string | null; owner: string | null }[];
  owners: Owner[];
  industries: string[];
  regions: string[];
  /** Rivals as the workspace's conversations name them (empty until learned). */
  competitors: string[];
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/**
 * The vocabulary from the two aggregates' rows (either may be empty: a new workspace) and, when they
 * were learned, the competitors analysis's rows (each with a `competitor`).
 */
export function vocabularyOf(
  dealRows: readonly Row[],
  accountRows: readonly Row[],
  competitorRows: readonly Row[] = [],
): Vocabulary {
  const accounts = new Map<string, { name: string; industry: string | null; region: string | null }>();
  for (const r of accountRows) {
    const name = text(r.account_name);
    if (name) accounts.set(name, { name, industry: text(r.account_industry), region: text(r.account_region) });
  }
  const deals: Vocabulary['deals'] = [];
  const owners = new Map<string, Owner>();
  for (const r of dealRows) {
    const name = text(r.name);
    const account = text(r.account_name);
    const owner = text(r.owner_email);
    if (name) deals.push({ name, account, owner });
    if (account && !accounts.has(account)) accounts.set(account, { name: account, industry: null, region: null });
    if (owner && !owners.has(owner)) owners.set(owner, { email: owner, name: nameFromEmail(owner) });
  }
  const list = [...accounts.values()];
  return {
    accounts: list,
    deals,
    owners: [...owners.values()],
    industries: [...new Set(list.flatMap((a) => (a.industry ? [a.industry] : [])))],
    regions: [...new Set(list.flatMap((a) => (a.region ? [a.region] : [])))],
    competitors: [...new Set(competitorRows.flatMap((r) => (text(r.competitor) ? [text(r.competitor)!] : [])))],
  };
}

/** "rhea.okafor@brightwave.io" → "Rhea Okafor"; null for "sales@…". */
export function nameFromEmail(email: string): string | null {
  const local = email.split('@')[0] ?? '';
  const parts = local.split(/[._-]+/).filter((p) => /^[a-z]{2,}$/i.test(p));
  if (parts.length < 2) return null;
  return parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1).toLowerCase()).join(' ');
}
