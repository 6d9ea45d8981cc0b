/**
 * The research test set: questions an analyst would have to defend in a meeting (pricing objections,
 * security reviews, competitors, churn risk, deals by stage and amount, one account's history, a
 * quiet period). test/research/research-questions.test.ts checks every answer is grounded; the
 * research benchmark times them.
 */
export const RESEARCH_QUESTIONS = [
  'Why do customers push back on pricing?',
  'What are the most common objections to our per-seat price?',
  'What do security teams ask for during reviews?',
  'What are customers saying about SOC 2 reports and security questionnaires?',
  'Which competitors come up in our calls, and what do buyers say about them?',
  'Is anyone worried about switching from their current tool?',
  'Which customers show churn risk or low adoption?',
  'Is anyone worried about our champion leaving?',
  'What do customers say about renewal pricing?',
  'Which deals over $50K are in negotiation?',
  'Which open deals are in the proposal stage?',
  'What is the total amount of deals in negotiation?',
  'How many deals did we win?',
  'How many deals did we lose?',
  'Brief me on Acme Logistics',
  "What's going on with Keystone Health?",
  'Prep me for my call with Tidewater Logistics',
  'What did Acme Health say about pricing?',
  'What did Tidewater Logistics say about security last quarter?',
  'How many calls did we have with Acme Logistics last month?',
  'How many emails did we exchange with Bramble Logistics?',
  'What do customers say about data residency in the EU?',
  'What did customers say about the Salesforce integration?',
  'What do customers want from reporting and dashboards?',
  'How many calls did we have in May?',
];
