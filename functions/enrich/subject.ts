import type { EnrichSubjectKind } from '../../schema/enrichment.js';
import { bareDomain } from '../lookalike/index.js';

/** What an enrichment is about, normalized: the cache key and what the reads need. */
export interface Subject {
  kind: EnrichSubjectKind;
  /** The cache key: a bare domain, a canonical LinkedIn URL or `mailto:` address, a lower-cased term. */
  key: string;
  /** How a brief names it. */
  label: string;
  domain?: string;
  name?: string;
  email?: string;
  linkedinUrl?: string;
  topic?: string;
}

export const companySubject = (input: { domain: string; name?: string | undefined }): Subject => {
  const domain = bareDomain(input.domain);
  return {
    kind: 'company',
    key: domain,
    label: input.name ?? domain,
    domain,
    ...(input.name ? { name: input.name } : {}),
  };
};

/** https://www.linkedin.com/in/<handle> (no query, no trailing slash, lower case). */
export const canonicalLinkedIn = (url: string): string => {
  const handle = /linkedin\.com\/in\/([^/?#\s]+)/i.exec(url)?.[1] ?? url;
  return `https://www.linkedin.com/in/${decodeURIComponent(handle).toLowerCase()}`;
};

export const personSubject = (input: {
  linkedin_url?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
}): Subject => {
  const linkedinUrl = input.linkedin_url ? canonicalLinkedIn(input.linkedin_url) : undefined;
  const email = input.email?.toLowerCase();
  return {
    kind: 'person',
    key: linkedinUrl ?? `mailto:${email}`,
    label: input.name ?? email ?? linkedinUrl ?? 'person',
    ...(linkedinUrl ? { linkedinUrl } : {}),
    ...(email ? { email } : {}),
    ...(input.name ? { name: input.name } : {}),
  };
};

export const topicSubject = (input: { topic: string }): Subject => {
  const topic = input.topic.replace(/\s+/g, ' ').trim();
  return { kind: 'topic', key: topic.toLowerCase(), label: topic, topic };
};
