/** Words customers use for the topics sales teams ask about most, so a search finds them in any wording. */
const SYNONYMS: [RegExp, string][] = [
  [/\b(pric\w*|budget|cost\w*)\b/i, 'pricing price cost budget discount expensive'],
  [/\bsecurity\b/i, 'security SOC audit compliance'],
  [/\b(onboarding|training)\b/i, 'onboarding training implementation rollout'],
  [/\brenewals?\b/i, 'renewal renew renewing'],
  [/\bprivacy\b/i, 'privacy GDPR DPA residency'],
];

/** The ask with the topic's other words added, in the same facet (the fuzzy lane's recall variant matches any). */
export function withSynonyms(question: string): string {
  const hit = SYNONYMS.find(([pattern]) => pattern.test(question));
  return hit
    ? question.replace(hit[0], (m) => `${m} ${hit[1].replace(new RegExp(`\\b${m}\\b`, 'i'), '')}`.replace(/\s+/g, ' '))
    : question;
}

/** The other words customers use for the topic's subject (none when it is not one of the common topics). */
export function synonymsOf(topic: string): string[] {
  const hit = SYNONYMS.find(([pattern]) => pattern.test(topic));
  return hit ? hit[1].split(' ') : [];
}
