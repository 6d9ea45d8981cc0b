import { z } from '@hono/zod-openapi';
import { withRetiredKeys } from '../../platform/validation.js';

/**
 * What a connection lets into the warehouse, applied at ingest (spec: Connections, call filters,
 * CRM recency window, comms filter). Stored in `connections.config`; every shape is parsed with
 * these schemas on the way in (HTTP body) and on the way out of the row.
 */

const email = z.string().trim().toLowerCase().email();
/** A bare domain: `acme.com`, `eu.acme.com` (no scheme, no @, no path). */
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'must be a bare domain such as acme.com',
  );

export const CallFiltersSchema = z
  .object({
    /** `false` opts out of filtering: every call whose roster resolves is kept. */
    enabled: z.boolean(),
    /** Keep only calls with at least one participant from outside the workspace's company. */
    external_only: z.boolean().default(true),
    /** Keep only calls one of these reps (internal participants, by email) took part in; empty keeps all. */
    reps: z.array(email).max(500).default([]),
    /** Drop any call one of these people took part in (checked before the include rules). */
    exclude_participants: z.array(email).max(1000).default([]),
    /** Drop any call with a participant at one of these domains or their subdomains. */
    exclude_domains: z.array(domain).max(500).default([]),
  })
  .strict()
  .openapi('CallFilters');
export type CallFilters = z.infer<typeof CallFiltersSchema>;

/**
 * CRM mapping keys the service no longer takes (spec, Versioning 5): refused on save with
 * `400 invalid_argument` naming the key (`retired_field`), never silently dropped.
 */
export const RETIRED_CRM_CONFIG_KEYS: Readonly<Record<string, string>> = Object.fromEntries(
  ['deal_amount_tiers', 'segment_rules', 'default_segment', 'use_crm_segment'].map((key) => [
    key,
    'CRM mapping config is no longer accepted (see CHANGELOG.md, Removed); the CRM config takes `window` only',
  ]),
);

export const CrmRecencySchema = withRetiredKeys(
  z
    .object({
      /** Months of activity history to sync (records modified within the window), or `all`. */
      window: z.union([z.literal('all'), z.number().int().min(1).max(120)]),
    })
    .strict()
    .openapi('CrmRecency'),
  RETIRED_CRM_CONFIG_KEYS,
);
export type CrmRecency = z.infer<typeof CrmRecencySchema>;
export const DEFAULT_CRM_RECENCY: CrmRecency = { window: 12 };

export const CommsFilterSchema = z
  .object({
    /** Keep only messages with at least one correspondent outside the company. */
    external_only: z.boolean().default(true),
    exclude_participants: z.array(email).max(1000).default([]),
    exclude_domains: z.array(domain).max(500).default([]),
  })
  .strict()
  .openapi('CommsFilter');
export type CommsFilter = z.infer<typeof CommsFilterSchema>;
/** Without a saved comms filter only meetings and emails with someone from outside are kept (calendars and pushed emails alike). */
export const DEFAULT_COMMS_FILTER: CommsFilter = { external_only: true, exclude_participants: [], exclude_domains: [] };

/** `connections.config` as stored: each key present only once decided. */
export const ConnectionConfigSchema = z.object({
  call_filters: CallFiltersSchema.optional(),
  crm_recency: CrmRecencySchema.optional(),
  comms_filter: CommsFilterSchema.optional(),
});
export type ConnectionConfig = z.infer<typeof ConnectionConfigSchema>;

export function configOf(raw: unknown): ConnectionConfig {
  const parsed = ConnectionConfigSchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : {};
}

/** `acme.com` matches `acme.com` and `eu.acme.com`, never `notacme.com`. */
export function domainMatches(host: string, rule: string): boolean {
  const h = host.toLowerCase();
  return h === rule || h.endsWith(`.${rule}`);
}

export const domainOf = (address: string): string | null => {
  const at = address.lastIndexOf('@');
  return at > 0 && at < address.length - 1 ? address.slice(at + 1).toLowerCase() : null;
};

export interface RosterEntry {
  email: string | null;
  side: 'internal' | 'external';
}

export type CallVerdict =
  | { keep: true }
  | {
      keep: false;
      reason:
        | 'roster_unresolved'
        | 'excluded_participant'
        | 'excluded_domain'
        | 'no_external_participant'
        | 'no_listed_rep';
    };

/**
 * Whether a call enters the warehouse. A roster that cannot be resolved (nobody on it, or nobody
 * with an email address) is dropped whatever the filters say: without it no rule can be applied
 * and no one can tell a customer call from an internal one. Exclusions come before includes.
 */
export function judgeCall(roster: readonly RosterEntry[], filters: CallFilters): CallVerdict {
  const emails = roster.map((p) => p.email?.toLowerCase() ?? null);
  if (roster.length === 0 || emails.every((e) => e === null)) return { keep: false, reason: 'roster_unresolved' };
  if (!filters.enabled) return { keep: true };
  if (emails.some((e) => e !== null && filters.exclude_participants.includes(e)))
    return { keep: false, reason: 'excluded_participant' };
  const domains = emails.map((e) => (e ? domainOf(e) : null)).filter((d): d is string => d !== null);
  if (domains.some((d) => filters.exclude_domains.some((rule) => domainMatches(d, rule))))
    return { keep: false, reason: 'excluded_domain' };
  if (filters.external_only && !roster.some((p) => p.side === 'external'))
    return { keep: false, reason: 'no_external_participant' };
  if (
    filters.reps.length > 0 &&
    !roster.some((p) => p.side === 'internal' && p.email !== null && filters.reps.includes(p.email.toLowerCase()))
  ) {
    return { keep: false, reason: 'no_listed_rep' };
  }
  return { keep: true };
}

/** The oldest modification a CRM sync reads, or null for all history. */
export function crmCutoff(recency: CrmRecency | undefined, now: Date): Date | null {
  const window = (recency ?? DEFAULT_CRM_RECENCY).window;
  if (window === 'all') return null;
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - window);
  return cutoff;
}
