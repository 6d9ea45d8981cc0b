import { externalSearchFromConfig } from '../../platform/external-search/from-config.js';
import type { Services } from '../services.js';
import { composeBrief } from './brief.js';
import { readEvidence } from './evidence.js';
import type { Brief } from './schemas.js';
import type { Subject } from './subject.js';

/** Market results a full brief cites at most. */
const EXTERNAL_RESULTS = 5;

/** What the market search is asked: the name beside its anchor, so a common name finds the right one. */
export function externalQuery(subject: Subject): string {
  switch (subject.kind) {
    case 'company':
      return [subject.name, subject.domain].filter(Boolean).join(' ');
    case 'person':
      return [subject.name, subject.linkedinUrl ?? subject.email?.split('@')[1]].filter(Boolean).join(' ');
    case 'topic':
      return subject.topic!;
  }
}

/** The full brief: first-party evidence, the external search, composed and verified (brief.ts). */
export async function buildFullBrief(
  services: Services,
  workspaceId: string,
  subject: Subject,
  limit: number,
  signal: AbortSignal,
): Promise<Brief> {
  const evidence = await readEvidence(services, workspaceId, subject, limit);
  const search = externalSearchFromConfig(services.config, services.outbound);
  const external = await search.search(externalQuery(subject), { limit: EXTERNAL_RESULTS, signal });
  return composeBrief(services, workspaceId, subject, evidence, external, services.clock.now());
}
