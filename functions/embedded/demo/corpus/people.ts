import type { AccountType } from '../../../../schema/warehouse-accounts.js';
import type { AccountRow, ContactRow } from './rows.js';
import type { IdKind, Rng } from './prng.js';
import { addDays, type CorpusTimeline } from './timeline.js';
import {
  BUYER_TITLES,
  companyName,
  COMPETITORS,
  FIRST_NAMES,
  INDUSTRIES,
  INTERNAL_ROLES,
  LAST_NAMES,
  NON_BUYER_TITLES,
  REGIONS,
  SELLER,
  type BuyerPersona,
  type InternalRole,
} from './vocabulary.js';

/** A member of the workspace's own team. */
export interface TeamMember {
  name: string;
  email: string;
  role: InternalRole;
  /** The mail system their mailbox syncs from. */
  mailSource: 'gmail' | 'outlook';
}

/** The account plus what the generator knows about it but the CRM row does not say. */
export interface AccountPlan {
  row: AccountRow & { id: string; name: string; domain: string };
  /** `null` is untyped. */
  type: AccountType | null;
  owner: TeamMember;
  contacts: ContactPlan[];
  /** Customers only: when they became one (may be before the corpus window). */
  customerSince: Date | null;
  /** Customers at risk: their calls lean toward renewal trouble and churn. */
  atRisk: boolean;
  /** Churned customers stop interacting after this date. */
  churnedAt: Date | null;
  /** When the account's champion left the company (customers only; a churn signal). */
  championLeftAt: Date | null;
  competitor: string;
  seats: number;
  /** Per-seat monthly list price quoted to them. */
  price: number;
}

export interface ContactPlan {
  row: ContactRow & { id: string; name: string };
  persona: BuyerPersona | null;
  /** Role written on participant rows: a buyer persona, or what the person is to us. */
  role: string;
  firstName: string;
}

/**
 * Account types of one full chunk of 60 accounts: mostly customers and sales targets, a few of
 * every other type, some untyped. Shuffled per chunk so types are not grouped by position.
 */
const TYPE_MIX: readonly (AccountType | null)[] = [
  ...Array<AccountType>(21).fill('customer'),
  ...Array<AccountType>(20).fill('sales_target'),
  ...Array<null>(6).fill(null),
  'investor',
  'investor',
  'advisor',
  'media',
  'media',
  'competitor',
  'competitor',
  'vendor',
  'vendor',
  'partner',
  'partner',
  'reseller',
  'other',
];
export const ACCOUNTS_PER_CHUNK = TYPE_MIX.length;

/** The workspace's own sales team; grows with the corpus so one rep does not own 6,000 accounts. */
export function buildTeam(rng: Rng, scale: number): TeamMember[] {
  const size = Math.max(INTERNAL_ROLES.length, Math.round(INTERNAL_ROLES.length * Math.sqrt(scale)));
  const used = new Set<string>();
  const team: TeamMember[] = [];
  for (let i = 0; i < size; i++) {
    let first: string;
    let last: string;
    let key: string;
    do {
      first = rng.pick(FIRST_NAMES);
      last = rng.pick(LAST_NAMES);
      key = `${first}.${last}`.toLowerCase();
    } while (used.has(key) && used.size < FIRST_NAMES.length * LAST_NAMES.length);
    used.add(key);
    team.push({
      name: `${first} ${last}`,
      email: `${key}@${SELLER.domain}`,
      role: INTERNAL_ROLES[i % INTERNAL_ROLES.length] as InternalRole,
      mailSource: rng.chance(0.7) ? 'gmail' : 'outlook',
    });
  }
  return team;
}

const PERSONA_PLAN: readonly BuyerPersona[] = ['champion', 'economic_buyer', 'technical_evaluator'];
const EXTRA_PERSONAS: readonly (readonly [BuyerPersona, number])[] = [
  ['end_user', 3],
  ['technical_evaluator', 1],
  ['procurement', 1.2],
  ['legal', 0.8],
];

const NON_BUYER_ROLE: Record<string, string> = {
  investor: 'investor',
  advisor: 'advisor',
  media: 'journalist',
  competitor: 'competitor',
  vendor: 'vendor_rep',
  partner: 'partner',
  reseller: 'reseller',
  other: 'other',
};

/** Types whose accounts talk to us as buyers (untyped accounts are mostly prospects missing a type). */
export const isBuyerType = (type: AccountType | null): boolean =>
  type === 'customer' || type === 'sales_target' || type === null;

export interface AccountsInput {
  rng: Rng;
  chunkIndex: number;
  count: number;
  team: readonly TeamMember[];
  timeline: CorpusTimeline;
  id: (kind: IdKind) => string;
  workspaceId: string;
}

export function planAccounts(input: AccountsInput): AccountPlan[] {
  const { rng, chunkIndex, count, team, timeline, id, workspaceId } = input;
  const types = rng.shuffle(TYPE_MIX).slice(0, count);
  const owners = team.filter((m) => m.role === 'ae');
  const csms = team.filter((m) => m.role === 'csm');
  // Non-buyer accounts where one person is nonetheless evaluating a purchase (the rescue case).
  const rescueTypes = new Set<AccountType>(['partner', 'reseller', 'vendor']);
  const rescued = new Set<AccountType>();
  let customerOrdinal = 0;
  return types.map((type, i) => {
    const ordinal = chunkIndex * ACCOUNTS_PER_CHUNK + i;
    const { name, domain } = companyName(ordinal);
    const employeeCount = Math.round(Math.exp(rng.around(6, 1.8, 3.5, 9.5)) / 10) * 10 + 20;
    const region = rng.pick(REGIONS);
    const accountId = id('account');
    const isCustomer = type === 'customer';
    const customerSince = isCustomer ? addDays(timeline.start, rng.int(-400, 420)) : null;
    const atRisk = isCustomer && rng.chance(0.25);
    // Every fourth customer is churn-prone; a third of those actually churn at a renewal.
    const churnedAt = atRisk && customerOrdinal++ % 3 === 0 ? addDays(timeline.end, -rng.int(30, 200)) : null;
    const owner =
      isCustomer && rng.chance(0.5) && csms.length > 0 ? rng.pick(csms) : rng.pick(owners.length > 0 ? owners : team);
    const createdAt = addDays(customerSince ?? timeline.start, -rng.int(30, 400));
    const seats = Math.max(8, Math.min(400, Math.round(employeeCount * rng.around(0.08, 0.05, 0.02, 0.3))));
    const plan: AccountPlan = {
      row: {
        id: accountId,
        workspaceId,
        name,
        domain,
        type,
        industry: type === 'media' ? 'Media' : type === 'investor' ? 'Venture Capital' : rng.pick(INDUSTRIES),
        employeeCount,
        region,
        ownerEmail: owner.email,
        source: 'salesforce',
        externalId: `001${ordinal.toString(36).padStart(12, '0')}`,
        createdAt,
      },
      type,
      owner,
      contacts: [],
      customerSince,
      atRisk,
      churnedAt,
      championLeftAt: null,
      competitor: rng.pick(COMPETITORS),
      seats,
      price: rng.pick([45, 55, 60, 65, 75, 85, 95]),
    };
    const rescue = type !== null && rescueTypes.has(type) && !rescued.has(type);
    if (rescue && type !== null) rescued.add(type);
    plan.contacts = planContacts(rng, plan, id, workspaceId, rescue);
    if (isCustomer && rng.chance(churnedAt ? 0.6 : 0.25)) {
      const champion = plan.contacts.find((c) => c.row.isChampion);
      const latest = churnedAt ?? timeline.end;
      const leftAt = addDays(latest, -rng.int(45, 240));
      if (champion && customerSince && leftAt > customerSince && leftAt > timeline.start) {
        champion.row.leftAt = leftAt;
        plan.championLeftAt = leftAt;
      }
    }
    return plan;
  });
}

function planContacts(
  rng: Rng,
  account: AccountPlan,
  id: (kind: IdKind) => string,
  workspaceId: string,
  rescue: boolean,
): ContactPlan[] {
  const used = new Set<string>();
  const person = () => {
    let first: string;
    let last: string;
    do {
      first = rng.pick(FIRST_NAMES);
      last = rng.pick(LAST_NAMES);
    } while (used.has(`${first} ${last}`));
    used.add(`${first} ${last}`);
    return { first, last };
  };
  const make = (
    persona: BuyerPersona | null,
    role: string,
    title: string,
    flags: { isBuyer: boolean; isChampion: boolean },
  ): ContactPlan => {
    const { first, last } = person();
    const row = {
      id: id('contact'),
      workspaceId,
      accountId: account.row.id,
      name: `${first} ${last}`,
      email: `${first}.${last}@${account.row.domain}`.toLowerCase(),
      title,
      isChampion: flags.isChampion,
      isBuyer: flags.isBuyer,
      leftAt: null as Date | null,
      createdAt: account.row.createdAt ?? new Date(0),
    } satisfies ContactRow;
    return { row, persona, role, firstName: first };
  };

  if (isBuyerType(account.type)) {
    const personas = [...PERSONA_PLAN];
    const extra = rng.int(0, 4);
    for (let k = 0; k < extra; k++) personas.push(rng.weighted(EXTRA_PERSONAS));
    return personas.map((p) => make(p, p, rng.pick(BUYER_TITLES[p]), { isBuyer: true, isChampion: p === 'champion' }));
  }
  const kind = account.type ?? 'other';
  const titles = NON_BUYER_TITLES[kind] ?? ['Manager'];
  const people = Array.from({ length: rng.int(1, 3) }, () =>
    make(null, NON_BUYER_ROLE[kind] ?? 'other', rng.pick(titles), { isBuyer: false, isChampion: false }),
  );
  if (rescue) {
    // Someone at a partner (or reseller, or vendor) who is evaluating our product for their own team.
    people.push(make('champion', 'champion', rng.pick(BUYER_TITLES.champion), { isBuyer: true, isChampion: false }));
  }
  return people;
}
