import type { BuyerParticipantRole } from '../../warehouse-interactions.js';

/**
 * Word lists for the demo corpus: the seller, people, companies, and the named things buyers talk
 * about. Every company, product and person here is fictional.
 */

/** The workspace's own company: a B2B SaaS vendor of a revenue-analytics product. */
export const SELLER = {
  company: 'Brightwave',
  product: 'Brightwave',
  domain: 'brightwave.io',
} as const;

export const FIRST_NAMES = [
  'Ava', 'Liam', 'Maya', 'Noah', 'Priya', 'Ethan', 'Sofia', 'Lucas', 'Chloe', 'Mateo', 'Hannah', 'Omar', 'Grace', 'Daniel', 'Aisha',
  'Ben', 'Elena', 'Kenji', 'Laura', 'Marcus', 'Nina', 'Oscar', 'Rachel', 'Samuel', 'Tara', 'Victor', 'Wen', 'Yara', 'Zoe', 'Andre',
  'Beatriz', 'Carlos', 'Diana', 'Felix', 'Gabriel', 'Ingrid', 'Jonah', 'Kavya', 'Leon', 'Mei', 'Nadia', 'Owen', 'Paula', 'Quinn',
  'Rosa', 'Sanjay', 'Tomas', 'Uma', 'Vera', 'Will', 'Ximena', 'Yusuf', 'Aaron', 'Bianca', 'Caleb', 'Dina', 'Emil', 'Farah', 'Hugo',
  'Imani', 'Jakob', 'Keira', 'Luca', 'Mira', 'Nico', 'Olga', 'Pedro', 'Rhea', 'Stefan', 'Talia', 'Uri', 'Valentina', 'Wyatt',
] as const;

export const LAST_NAMES = [
  'Anderson', 'Bauer', 'Chen', 'Dubois', 'Edwards', 'Fischer', 'Garcia', 'Hansen', 'Ibrahim', 'Jensen', 'Kowalski', 'Lindqvist',
  'Martin', 'Nakamura', 'Okafor', 'Patel', 'Quinn', 'Rossi', 'Schmidt', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Xu', 'Yilmaz', 'Zhang',
  'Alvarez', 'Brooks', 'Costa', 'Dimitrov', 'Eriksen', 'Flores', 'Gupta', 'Horvat', 'Ivanova', 'Jones', 'Kim', 'Lopez', 'Murphy',
  'Nguyen', 'Olsen', 'Park', 'Reyes', 'Silva', 'Thompson', 'Underwood', 'Vogel', 'Walsh', 'Young', 'Zimmer', 'Novak', 'Mehta',
  'Sato', 'Moreau', 'Keller', 'Haddad', 'Byrne', 'Castillo', 'Sorensen', 'Adeyemi',
] as const;

const NAME_HEADS = [
  'Acme', 'Northwind', 'Bluefin', 'Cobalt', 'Evergreen', 'Granite', 'Harbor', 'Ironwood', 'Juniper', 'Keystone', 'Lakeshore', 'Meridian',
  'Nimbus', 'Orchard', 'Pinnacle', 'Quartz', 'Redwood', 'Summit', 'Tidewater', 'Upland', 'Vantage', 'Willow', 'Yellowtail', 'Zephyr',
  'Alder', 'Beacon', 'Cascade', 'Driftwood', 'Ember', 'Foxglove', 'Glacier', 'Helix', 'Indigo', 'Jasper', 'Kestrel', 'Lumen', 'Mosaic',
  'Northstar', 'Onyx', 'Prism', 'Ridgeline', 'Sable', 'Terra', 'Umbra', 'Verdant', 'Wavecrest', 'Axiom', 'Bramble', 'Cinder', 'Delta',
] as const;
const NAME_TAILS = [
  'Logistics', 'Health', 'Labs', 'Systems', 'Financial', 'Retail', 'Robotics', 'Energy', 'Analytics', 'Software', 'Foods', 'Bank',
  'Insurance', 'Networks', 'Biotech', 'Media', 'Freight', 'Capital', 'Learning', 'Security', 'Cloud', 'Manufacturing', 'Travel', 'Telecom',
] as const;

/** A name and a domain for the i-th account of a corpus; unique for any i < heads x tails x rounds. */
export function companyName(i: number): { name: string; domain: string } {
  const head = NAME_HEADS[i % NAME_HEADS.length] as string;
  const tail = NAME_TAILS[Math.floor(i / NAME_HEADS.length) % NAME_TAILS.length] as string;
  const round = Math.floor(i / (NAME_HEADS.length * NAME_TAILS.length));
  const name = round === 0 ? `${head} ${tail}` : `${head} ${tail} ${roman(round + 1)}`;
  const domain = `${head}${tail}${round === 0 ? '' : round + 1}`.toLowerCase() + (i % 7 === 3 ? '.co' : '.com');
  return { name, domain };
}

function roman(n: number): string {
  const table: [number, string][] = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
  let out = '';
  let rest = n;
  for (const [v, s] of table) while (rest >= v) { out += s; rest -= v; }
  return out;
}

export const INDUSTRIES = [
  'Logistics', 'Healthcare', 'Financial Services', 'Retail', 'Manufacturing', 'Software', 'Telecommunications', 'Insurance', 'Education',
  'Energy', 'Media', 'Travel & Hospitality', 'Biotech', 'Professional Services',
] as const;
export const REGIONS = ['North America', 'North America', 'North America', 'EMEA', 'EMEA', 'APAC', 'LATAM'] as const;

/** Fictional competitors buyers compare us with. */
export const COMPETITORS = ['Quotient Labs', 'Stackwise', 'Pipewell', 'Clarion AI', 'Tallyhawk'] as const;
/** Tools buyers ask us to integrate with. */
export const INTEGRATIONS = ['Salesforce', 'HubSpot', 'Slack', 'Snowflake', 'Microsoft Teams', 'Zendesk', 'Okta', 'BigQuery'] as const;

/** Titles per buyer persona; a persona is written as the participant role, so the keys are exactly those roles. */
export const BUYER_TITLES = {
  economic_buyer: ['VP of Sales', 'Chief Revenue Officer', 'CFO', 'SVP Revenue', 'VP of Customer Success'],
  champion: ['RevOps Manager', 'Director of Sales Operations', 'Head of Revenue Operations', 'Sales Enablement Lead', 'Director of CS Operations'],
  technical_evaluator: ['IT Security Lead', 'Solutions Architect', 'Head of Data', 'Director of IT', 'Security Engineer'],
  end_user: ['Account Executive', 'SDR Manager', 'Customer Success Manager', 'Sales Manager', 'Regional Sales Director'],
  procurement: ['Procurement Manager', 'Strategic Sourcing Lead'],
  legal: ['Corporate Counsel', 'Privacy Counsel'],
} as const satisfies Record<BuyerParticipantRole, readonly string[]>;
export type BuyerPersona = keyof typeof BUYER_TITLES;

/** Titles for people on accounts that are not buyers: who we meet at an investor, a newsroom... */
export const NON_BUYER_TITLES: Record<string, readonly string[]> = {
  investor: ['General Partner', 'Principal', 'Partner'],
  advisor: ['Advisor', 'Board Advisor'],
  media: ['Senior Reporter', 'Editor', 'Podcast Host'],
  competitor: ['Head of Partnerships', 'VP Business Development'],
  vendor: ['Account Executive', 'Enterprise Sales Manager', 'Solutions Consultant'],
  partner: ['Partner Manager', 'Alliances Director', 'Solutions Architect'],
  reseller: ['Channel Manager', 'Reseller Account Manager'],
  other: ['Program Manager', 'Coordinator'],
};

export const INTERNAL_ROLES = ['ae', 'ae', 'ae', 'ae', 'ae', 'ae', 'se', 'se', 'csm', 'csm', 'csm', 'sales_manager', 'executive'] as const;
export type InternalRole = (typeof INTERNAL_ROLES)[number];
