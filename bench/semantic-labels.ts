/**
 * A labelled query set for the semantic store, taken from the demo corpus itself: every buyer-side
 * line of the generator belongs to a theme (functions/embedded/demo/corpus/topics.ts), so an utterance's theme
 * is known by matching it against those templates (slots like {competitor} match any text). A query
 * names the themes whose utterances answer it; top-10 precision is the share of the ten nearest
 * utterances whose theme is one of those. Used by bench/embedder-quality.ts, bench/search-semantic.ts
 * and test/search/semantic-lane.test.ts.
 */
import { NON_BUYER_TOPICS, TOPICS } from '../functions/embedded/demo/corpus/topics.js';

export interface LabelledQuery {
  topic: 'pricing' | 'security' | 'integrations' | 'champion' | 'competitors' | 'churn';
  query: string;
  /** Theme keys (topics.ts) whose utterances answer the query. */
  relevant: readonly string[];
}

export const LABELLED_QUERIES: readonly LabelledQuery[] = [
  { topic: 'pricing', query: 'the price is too high for our budget', relevant: ['pricing_too_high', 'discount_ask'] },
  {
    topic: 'pricing',
    query: 'can you give us a discount on the price',
    relevant: ['discount_ask', 'pricing_too_high'],
  },
  {
    topic: 'pricing',
    query: 'why do customers object to our per-seat pricing',
    relevant: ['pricing_too_high', 'discount_ask'],
  },
  {
    topic: 'pricing',
    query: 'competitors are cheaper than you',
    relevant: ['pricing_too_high', 'competitor_comparison'],
  },
  { topic: 'security', query: 'security review and the SOC 2 report', relevant: ['soc2_report'] },
  { topic: 'security', query: 'we need single sign-on with Okta and SAML', relevant: ['sso_saml'] },
  {
    topic: 'security',
    query: 'how is our data encrypted and kept secure',
    relevant: ['soc2_report', 'data_residency', 'permissions_roles'],
  },
  { topic: 'security', query: 'our data must stay in the EU', relevant: ['data_residency'] },
  {
    topic: 'integrations',
    query: 'does it sync with our CRM like Salesforce or HubSpot',
    relevant: ['salesforce_sync', 'hubspot_sync'],
  },
  { topic: 'integrations', query: 'export the data into Snowflake or BigQuery', relevant: ['warehouse_export'] },
  { topic: 'integrations', query: 'alerts and summaries posted to Slack', relevant: ['slack_alerts'] },
  {
    topic: 'integrations',
    query: 'duplicate records created by the Salesforce integration',
    relevant: ['salesforce_sync'],
  },
  { topic: 'champion', query: 'our champion is leaving', relevant: ['champion_departure'] },
  { topic: 'champion', query: 'the person who owned the tool left the company', relevant: ['champion_departure'] },
  {
    topic: 'champion',
    query: 'nobody owns the project since our sponsor left',
    relevant: ['champion_departure', 'executive_alignment'],
  },
  {
    topic: 'competitors',
    query: 'how are you different from the competitors we are evaluating',
    relevant: ['competitor_comparison', 'competitor_switch'],
  },
  { topic: 'competitors', query: 'we want to switch away from our current tool', relevant: ['competitor_switch'] },
  { topic: 'competitors', query: 'a bake-off against another vendor', relevant: ['competitor_comparison'] },
  { topic: 'churn', query: 'we are considering cancelling', relevant: ['churn_risk', 'renewal_risk'] },
  {
    topic: 'churn',
    query: 'reps stopped logging in and adoption is low',
    relevant: ['churn_risk', 'adoption_training'],
  },
  { topic: 'churn', query: 'the renewal is at risk', relevant: ['renewal_risk', 'churn_risk'] },
  { topic: 'churn', query: 'renewing with fewer seats next year', relevant: ['renewal_risk'] },
  // Asked the way a seller asks, with the words a question is made of ("often", "come up", "customers",
  // "say about", "account"): an embedder that lets those match returns talk about how often a sync runs.
  {
    topic: 'pricing',
    query: 'what do customers say about our pricing',
    relevant: ['pricing_too_high', 'discount_ask'],
  },
  {
    topic: 'security',
    query: 'how often does security come up in calls',
    relevant: ['soc2_report', 'sso_saml', 'data_residency', 'permissions_roles', 'dpa_legal'],
  },
  {
    topic: 'integrations',
    query: 'what does the account say about the Salesforce integration',
    relevant: ['salesforce_sync'],
  },
  { topic: 'champion', query: 'which accounts mention their champion leaving', relevant: ['champion_departure'] },
  {
    topic: 'competitors',
    query: 'which competitors come up most often',
    relevant: ['competitor_comparison', 'competitor_switch'],
  },
  { topic: 'churn', query: 'what do customers say about renewal risk', relevant: ['renewal_risk', 'churn_risk'] },
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text → the theme key of the generator line it was made from, or null (greetings, context, acknowledgements). */
export function themeLabeller(): (text: string) => string | null {
  const patterns: { key: string; re: RegExp }[] = [];
  for (const topic of [...TOPICS, ...Object.values(NON_BUYER_TOPICS)]) {
    for (const [key, lines] of Object.entries(topic.buyer)) {
      for (const line of lines)
        patterns.push({
          key,
          re: new RegExp(
            line
              .split(/\{\w+\}/)
              .map(escapeRegExp)
              .join('.+?'),
            'i',
          ),
        });
    }
  }
  return (text) => patterns.find((p) => p.re.test(text))?.key ?? null;
}

/** Share of `texts` (the top 10) whose theme is relevant to the query. */
export function precisionAt10(
  query: LabelledQuery,
  texts: readonly string[],
  label: (text: string) => string | null,
): number {
  const top = texts.slice(0, 10);
  return (
    top.filter((t) => {
      const key = label(t);
      return key !== null && query.relevant.includes(key);
    }).length / 10
  );
}
