/**
 * What the demo team's conversations are about. Each topic has the buyer's lines (grouped by the
 * theme they express), the rep's prompts and answers, and phrases for summaries and email subjects.
 * Lines carry `{slots}` filled per conversation, so the same concern comes out in many wordings.
 * Buyer-side lines carry the objections and needs: that is where the semantic lane looks.
 */

export interface ThemeSpec {
  key: string;
  label: string;
  summary: string;
  /** True for customer-voice themes; false for talk with investors, press, vendors and the like. */
  customerVoice: boolean;
}

export interface Topic {
  key: string;
  /** Buyer-side lines, per theme key. */
  buyer: Record<string, readonly string[]>;
  /** How the rep raises the topic. */
  prompts: readonly string[];
  /** How the rep answers, per theme of the buyer's concern. */
  answers: Record<string, readonly string[]>;
  /** Phrase for a call summary: "discussed {summary}". */
  summary: readonly string[];
  /** Email subject lines. */
  subjects: readonly string[];
  /** Whether a solutions engineer rather than the AE usually answers. */
  technical?: boolean;
}

export const THEMES: readonly ThemeSpec[] = [
  {
    key: 'pricing_too_high',
    label: 'Per-seat price above budget',
    summary:
      'Buyers say the per-seat price is higher than what they budgeted or what alternatives cost, and push for a lower price before signing.',
    customerVoice: true,
  },
  {
    key: 'discount_ask',
    label: 'Discount asks and multi-year terms',
    summary:
      'Buyers ask for discounts, end-of-quarter concessions, or a lower rate in exchange for a multi-year commitment.',
    customerVoice: true,
  },
  {
    key: 'budget_freeze',
    label: 'Budget freezes and delayed spend',
    summary: 'Purchases slip because of hiring and budget freezes, CFO spend reviews, or reallocated budget.',
    customerVoice: true,
  },
  {
    key: 'soc2_report',
    label: 'SOC 2 report and security questionnaires',
    summary:
      'Security teams ask for the SOC 2 Type II report, pen test results and answers to long security questionnaires before approval.',
    customerVoice: true,
  },
  {
    key: 'sso_saml',
    label: 'SSO, SAML and SCIM provisioning',
    summary:
      'IT requires single sign-on through Okta or Azure AD with SAML, plus SCIM user provisioning, often as a hard requirement.',
    customerVoice: true,
  },
  {
    key: 'data_residency',
    label: 'EU data residency',
    summary:
      'European buyers need their data stored and processed in the EU and ask where recordings and transcripts live.',
    customerVoice: true,
  },
  {
    key: 'dpa_legal',
    label: 'DPA and legal redlines',
    summary:
      'Legal teams send redlines on the data processing agreement, liability caps and sub-processor lists, slowing signature.',
    customerVoice: true,
  },
  {
    key: 'salesforce_sync',
    label: 'Salesforce integration and sync',
    summary:
      'Buyers need activity and fields to sync with Salesforce reliably, including custom objects, and worry about duplicate records.',
    customerVoice: true,
  },
  {
    key: 'hubspot_sync',
    label: 'HubSpot integration',
    summary: 'HubSpot shops ask whether deals, contacts and call notes sync both ways and how mapping works.',
    customerVoice: true,
  },
  {
    key: 'slack_alerts',
    label: 'Slack notifications and workflows',
    summary: 'Teams want deal alerts, call summaries and risk notifications pushed into Slack channels.',
    customerVoice: true,
  },
  {
    key: 'warehouse_export',
    label: 'Snowflake and warehouse export',
    summary: 'Data teams want raw data exported to Snowflake or BigQuery on a schedule to join with their own models.',
    customerVoice: true,
  },
  {
    key: 'competitor_comparison',
    label: 'Comparison with competitors',
    summary:
      'Buyers are evaluating named competitors side by side and ask how we differ on price, features and accuracy.',
    customerVoice: true,
  },
  {
    key: 'competitor_switch',
    label: 'Switching from an incumbent tool',
    summary: 'Buyers are unhappy with their current tool and want to know the effort and risk of switching.',
    customerVoice: true,
  },
  {
    key: 'renewal_risk',
    label: 'Renewal negotiation and risk',
    summary:
      'At renewal, customers question the value received, ask for price holds or fewer seats, and threaten not to renew.',
    customerVoice: true,
  },
  {
    key: 'churn_risk',
    label: 'Low adoption and churn signals',
    summary: 'Customers report low usage, reps not logging in, and say they are considering cancelling.',
    customerVoice: true,
  },
  {
    key: 'champion_departure',
    label: 'Champion leaving the account',
    summary: 'The internal champion is leaving or has left, and the remaining team is unsure who owns the tool.',
    customerVoice: true,
  },
  {
    key: 'implementation_timeline',
    label: 'Implementation timeline and go-live',
    summary:
      'Buyers ask how long implementation takes, who does the work, and whether go-live can happen before a deadline.',
    customerVoice: true,
  },
  {
    key: 'adoption_training',
    label: 'User training and adoption',
    summary: 'Customers want training for reps and managers and help driving day-to-day adoption.',
    customerVoice: true,
  },
  {
    key: 'procurement_process',
    label: 'Procurement and vendor onboarding',
    summary:
      'Procurement adds steps: vendor onboarding forms, insurance certificates, purchase orders and signature routing.',
    customerVoice: true,
  },
  {
    key: 'roi_business_case',
    label: 'ROI and business case',
    summary:
      'Buyers need numbers for a business case: time saved, win-rate lift and payback period to take to leadership.',
    customerVoice: true,
  },
  {
    key: 'reporting_dashboards',
    label: 'Reporting and dashboards',
    summary: 'Managers ask for custom dashboards, pipeline reports and exports for their weekly forecast meetings.',
    customerVoice: true,
  },
  {
    key: 'api_limits',
    label: 'API access and rate limits',
    summary: 'Engineering teams ask about API coverage, rate limits and webhooks for building their own workflows.',
    customerVoice: true,
  },
  {
    key: 'reliability_outage',
    label: 'Reliability and outages',
    summary: 'Customers raise outages, missing recordings or slow sync, and ask about uptime commitments.',
    customerVoice: true,
  },
  {
    key: 'seat_expansion',
    label: 'Seat expansion to new teams',
    summary: 'Customers want to roll out to more teams or regions and ask how pricing works for added seats.',
    customerVoice: true,
  },
  {
    key: 'executive_alignment',
    label: 'Executive sponsor and sign-off',
    summary: 'Deals wait on an executive sponsor or economic buyer who has not yet seen the proposal.',
    customerVoice: true,
  },
  {
    key: 'data_migration',
    label: 'Migrating historical data',
    summary: 'Buyers ask whether historical calls and notes can be migrated from their previous system.',
    customerVoice: true,
  },
  {
    key: 'ai_accuracy',
    label: 'Transcription and AI accuracy',
    summary: 'Buyers question transcription accuracy for accents and jargon and whether AI summaries can be trusted.',
    customerVoice: true,
  },
  {
    key: 'permissions_roles',
    label: 'Permissions and role-based access',
    summary: 'Admins need role-based access so managers see their team only and sensitive calls stay private.',
    customerVoice: true,
  },
  {
    key: 'support_responsiveness',
    label: 'Support responsiveness',
    summary: 'Customers complain about slow support tickets and ask for a named contact or faster SLAs.',
    customerVoice: true,
  },
  {
    key: 'investor_metrics',
    label: 'Investor questions on growth metrics',
    summary: 'Investors ask about net revenue retention, burn, pipeline coverage and the next fundraise.',
    customerVoice: false,
  },
  {
    key: 'press_interview',
    label: 'Press and podcast interviews',
    summary: 'Reporters and hosts ask about market trends and the company story for articles and episodes.',
    customerVoice: false,
  },
  {
    key: 'vendor_pitch',
    label: 'Vendors pitching their tools',
    summary: 'Vendors pitch their own products to the team, with their pricing and discount offers.',
    customerVoice: false,
  },
  {
    key: 'partnership_talks',
    label: 'Partnership and co-selling talks',
    summary: 'Partners, resellers and competitors discuss co-selling, referrals, deal registration and integrations.',
    customerVoice: false,
  },
  {
    key: 'advisor_feedback',
    label: 'Advisor feedback',
    summary: 'Advisors share feedback on positioning, hiring and go-to-market plans.',
    customerVoice: false,
  },
];

export const TOPICS: readonly Topic[] = [
  {
    key: 'pricing',
    buyer: {
      pricing_too_high: [
        'the per-seat price is a lot higher than what we budgeted for this year',
        'at {price} per seat we just cannot make the numbers work for {seats} reps',
        '{competitor} quoted us almost a third less for roughly the same seats',
        'our CFO looked at the proposal and said the price is too expensive for a pilot',
        'the cost per user is hard to justify when half the team only uses it once a week',
        'I like the product, but the pricing is the main objection I keep hearing internally',
        'we expected the platform fee to be included, so the total came in well over budget',
        'if the price stays where it is, I do not think this gets approved this quarter',
      ],
      discount_ask: [
        'is there any flexibility on price if we sign before the end of {quarter}?',
        'we would need at least a {pct} percent discount to get this over the line',
        'if we commit to a three-year term, what kind of discount can you do?',
        'can you hold the first-year price for us and ramp the seats over time?',
        'procurement will ask for a better number, so give me your best discount now',
        'could you waive the implementation fee if we go with the annual plan?',
        'other vendors are offering a free first quarter; can you match something like that?',
      ],
    },
    prompts: [
      'I wanted to walk through the proposal and see how the pricing landed with your team.',
      'How did the numbers in the quote look on your side?',
      'Before we go further, any concerns on the commercial side?',
    ],
    answers: {
      pricing_too_high: [
        'I hear you on price. Our pricing includes onboarding and support, which the cheaper options charge for separately.',
        'We can phase the seats so you only pay for the reps who are live in the first quarter.',
        'Let me put together two options, one annual and one multi-year, so you can compare.',
      ],
      discount_ask: [
        'I can take a {pct} percent discount to my manager if we can agree on timing.',
        'On a three-year term we can hold the per-seat price and waive the implementation fee.',
        'If we sign before the end of {quarter}, I have some flexibility on the first-year price.',
      ],
    },
    summary: ['pricing and discount terms', 'pushback on per-seat price', 'commercial terms of the proposal'],
    subjects: [
      'Updated pricing proposal',
      'Re: pricing for {seats} seats',
      'Discount request for {company}',
      'Commercial terms before end of {quarter}',
    ],
  },
  {
    key: 'budget',
    buyer: {
      budget_freeze: [
        'we have a budget freeze on all new software until at least {month}',
        'finance just paused every new purchase above fifty thousand dollars',
        'our budget got reallocated to hiring, so this project is on hold for now',
        'the CFO wants a spend review of every tool before we add anything new',
        'there is a hiring freeze, which means fewer seats than we talked about',
        'we might be able to revisit this next fiscal year when budgets reset',
      ],
    },
    prompts: [
      'Where are things with budget for this project?',
      'Has anything changed on the budget side since we last spoke?',
    ],
    answers: {
      budget_freeze: [
        'Understood. Would a smaller starting footprint fit inside what is already approved?',
        "We could push the start date and lock in today's pricing for you.",
        'Let me send a one-page business case your CFO can use in the spend review.',
      ],
    },
    summary: ['the budget freeze', 'delayed budget approval', 'spend review by finance'],
    subjects: ['Budget update', 'Re: timing and budget', 'Project on hold until {month}'],
  },
  {
    key: 'security',
    technical: true,
    buyer: {
      soc2_report: [
        'our security team needs your SOC 2 Type II report before anything else moves',
        'can you send the latest pen test summary along with the SOC 2 report?',
        'we have a security questionnaire with about two hundred questions for you to fill in',
        'infosec flagged that call recordings count as sensitive data, so the review will be thorough',
        'is the SOC 2 report current, and does it cover the recording infrastructure?',
        'we need to know how you encrypt data at rest and in transit',
      ],
      sso_saml: [
        'SSO through Okta is a hard requirement for any tool we roll out',
        'we need SAML single sign-on and SCIM provisioning so IT can manage users centrally',
        'is SSO included in this plan or is it an add-on?',
        'we are on Azure AD, so the SAML setup has to work with that',
        'without SCIM, offboarding reps becomes a manual process and IT will say no',
      ],
    },
    prompts: [
      'Where are we with the security review?',
      'What does your security team need from us to sign off?',
      'Can we go through the IT requirements?',
    ],
    answers: {
      soc2_report: [
        'I will send our SOC 2 Type II report under NDA today, along with the pen test letter.',
        'Our security team can take the questionnaire; we usually turn it around in a week.',
        'Data is encrypted at rest with AES-256 and in transit with TLS 1.2 or higher.',
      ],
      sso_saml: [
        'SSO with SAML and SCIM is supported for Okta and Azure AD on the enterprise plan.',
        'SCIM provisioning means offboarding happens automatically when IT removes someone.',
        'We can set up SSO in a thirty-minute session with your IT admin.',
      ],
    },
    summary: ['the security review and SOC 2 report', 'SSO and SAML requirements', 'the security questionnaire'],
    subjects: [
      'SOC 2 report and security questionnaire',
      'Re: SSO / SAML setup',
      'Security review for {company}',
      'Pen test summary request',
    ],
  },
  {
    key: 'privacy',
    technical: true,
    buyer: {
      data_residency: [
        'our data has to stay in the EU, so we need to know where recordings are stored',
        'do you offer EU data residency, or does everything go to US data centers?',
        'our works council will ask where transcripts are processed and who can access them',
        'we have customers in Germany, so data residency is non-negotiable for us',
        'can you guarantee that backups also stay in the EU region?',
      ],
      dpa_legal: [
        'legal sent back redlines on the DPA, mostly around the liability cap',
        'we need your sub-processor list before legal will approve the DPA',
        'our counsel wants a mutual NDA and our own data processing agreement, not yours',
        'the DPA review is the long pole; legal is backed up for a few weeks',
        'we need the right to audit written into the data processing agreement',
      ],
    },
    prompts: ['How is the legal review going?', 'Any open questions on data handling and privacy?'],
    answers: {
      data_residency: [
        'We host EU customers in Frankfurt, and backups stay in the EU as well.',
        'Recordings and transcripts for EU workspaces never leave the EU region.',
        'Happy to join a call with your works council to walk through data handling.',
      ],
      dpa_legal: [
        'I will send the sub-processor list and our standard DPA so legal can compare.',
        'We can accept your DPA template; our counsel will review the liability language.',
        'Audit rights are fine; we can add that clause to the DPA.',
      ],
    },
    summary: ['EU data residency', 'DPA redlines from legal', 'data processing and privacy terms'],
    subjects: [
      'DPA redlines',
      'Re: data residency question',
      'Sub-processor list for legal review',
      'Privacy review for {company}',
    ],
  },
  {
    key: 'crm_integration',
    technical: true,
    buyer: {
      salesforce_sync: [
        'everything has to sync back to Salesforce or the managers will not use it',
        'we have a lot of custom objects in Salesforce; can you map to those?',
        'our last tool created duplicate contacts in Salesforce and it was a mess to clean up',
        'does the Salesforce sync write activities against the opportunity or just the account?',
        'how often does the Salesforce sync run, is it real time or batched?',
      ],
      hubspot_sync: [
        'we run everything out of HubSpot, so the integration needs to be solid',
        'does the HubSpot integration sync both ways, deals and contacts?',
        'can call notes land on the HubSpot deal timeline automatically?',
        'we are moving from HubSpot to Salesforce next year, so we need both to work',
        'our HubSpot properties are heavily customised; will your fields map onto them?',
        'the last HubSpot integration we tried logged every email twice on the contact',
      ],
    },
    prompts: ['How does your CRM setup look today?', 'Let us talk about the CRM integration.'],
    answers: {
      salesforce_sync: [
        'The Salesforce integration writes activities to the opportunity and supports custom objects.',
        'We de-duplicate on email and domain before creating anything in Salesforce.',
        'Sync runs every five minutes, and you can trigger it on demand.',
      ],
      hubspot_sync: [
        'The HubSpot sync is bidirectional for deals, contacts and notes.',
        'Call notes land on the HubSpot deal timeline automatically.',
        'Teams moving from HubSpot to Salesforce can run both connectors during the switch.',
      ],
    },
    summary: ['the Salesforce integration', 'HubSpot sync', 'CRM field mapping'],
    subjects: ['Salesforce integration questions', 'Re: HubSpot sync', 'CRM field mapping for {company}'],
  },
  {
    key: 'data_integrations',
    technical: true,
    buyer: {
      slack_alerts: [
        'it would be great to get deal risk alerts in a Slack channel',
        'our managers live in Slack, so call summaries need to show up there',
        'can we route notifications to different Slack channels per region?',
        'we use Microsoft Teams in some regions; is there a Teams integration as well as Slack?',
        'the Slack alerts need to be quiet enough that people do not mute the channel',
        'could a Slack message go to the account owner when a deal changes stage?',
      ],
      warehouse_export: [
        'our data team wants a nightly export to Snowflake',
        'we would join your data with product usage in Snowflake, so raw access matters',
        'is there a BigQuery connector, or do we build the pipeline ourselves?',
        'the analytics team asked whether the export includes transcripts or only metadata',
        'our warehouse is Redshift, not Snowflake; can the export land there too?',
        'a weekly CSV dump is not enough; the data team wants an incremental export',
      ],
    },
    prompts: ['What other tools should this connect to?', 'Tell me about your data stack.'],
    answers: {
      slack_alerts: [
        'Slack alerts can be routed per channel and per team.',
        'Call summaries post to Slack a few minutes after the call ends.',
        'Microsoft Teams is supported as well as Slack.',
      ],
      warehouse_export: [
        'We ship a native Snowflake share, updated every hour, and a BigQuery export.',
        'The export includes transcripts, participants and deal context.',
        'Your data team gets raw tables, so joining with product usage is straightforward.',
      ],
    },
    summary: ['Slack notifications', 'the Snowflake export', 'data warehouse integration'],
    subjects: ['Snowflake export setup', 'Re: Slack alerts', 'Data export questions'],
  },
  {
    key: 'competition',
    buyer: {
      competitor_comparison: [
        'we are also looking at {competitor}, and honestly their demo was strong',
        'how are you different from {competitor}? On paper you look very similar',
        '{competitor} says their transcription is more accurate; is that true?',
        'we have a bake-off between you and {competitor} next month',
        'the team liked {competitor} for the coaching features, so you will need to beat that',
      ],
      competitor_switch: [
        'we have used {competitor} for two years and the reps have stopped trusting it',
        'our contract with {competitor} ends in {month}, so timing matters',
        'switching away from {competitor} means retraining eighty people, which worries me',
        'we want out of {competitor} because their support has been terrible',
        '{competitor} keeps shipping features nobody asked for, which is why we are looking around',
        'if we switch from {competitor}, can you help us move the recordings over?',
      ],
    },
    prompts: ['Who else are you evaluating?', 'What are you using today, and how is it going?'],
    answers: {
      competitor_comparison: [
        'Where we win against {competitor} is accuracy on real calls and the CRM sync.',
        'We can run a side-by-side pilot on your own calls so you can compare directly.',
        'Happy to share references from teams that chose us over {competitor}.',
      ],
      competitor_switch: [
        'We will handle the migration from {competitor} and train your team on our dime.',
        'We can start before your {competitor} contract ends so there is no gap.',
        'Most teams switching from {competitor} are fully live within a month.',
      ],
    },
    summary: ['the comparison with {competitor}', 'switching from {competitor}', 'the competitive evaluation'],
    subjects: ['Comparison with {competitor}', 'Re: bake-off next steps', 'Migration from {competitor}'],
  },
  {
    key: 'renewal',
    buyer: {
      renewal_risk: [
        'before we renew, I need to show leadership we actually got value this year',
        'we are thinking about renewing with fewer seats, maybe half',
        'the renewal quote went up, and that will not fly with finance',
        'the renewal is at risk unless usage improves this quarter',
        'can you hold the price flat for the renewal if we sign early?',
      ],
      churn_risk: [
        'most of the reps stopped logging in after the first couple of months',
        'we are considering cancelling; the team does not see enough value',
        'adoption has been low, and I cannot get managers to use the dashboards',
        'we are evaluating whether to keep the tool at all next year',
        'honestly only a handful of people open the app in a normal week',
        'finance asked me to list the tools we could cut, and this one is on the list',
      ],
    },
    prompts: ['Let us talk about the renewal coming up in {month}.', 'How is the team using the product these days?'],
    answers: {
      renewal_risk: [
        'Let me pull your usage data so we can see which teams get value and which do not.',
        'If we right-size the seats, we can hold your per-seat price flat.',
        'I can bring a value summary for your leadership before the renewal.',
      ],
      churn_risk: [
        'We can put together an adoption plan with your CSM before the renewal.',
        'Let us find the managers who do use it and build from there.',
        'I will set up a working session to fix the dashboards your managers need.',
      ],
    },
    summary: ['the upcoming renewal', 'churn risk and low adoption', 'renewal pricing'],
    subjects: ['Renewal for {company}', 'Re: renewal quote', 'Usage review ahead of renewal'],
  },
  {
    key: 'champion',
    buyer: {
      champion_departure: [
        'I should tell you that {champion}, our champion for this project, is leaving the company at the end of the month',
        'since our champion {champion} left, nobody really owns the tool on our side',
        'our champion moved to another team, so I am picking this up without much context',
        'with {champion} gone, I am not sure who will champion the renewal internally',
        'the person who championed this internally is leaving, and I am still finding my feet',
      ],
    },
    prompts: ['How are things on your side since the reorg?', 'Who should we be working with now?'],
    answers: {
      champion_departure: [
        'Thanks for the heads up. Could we set up time with whoever inherits the project?',
        'We will do a fresh onboarding for the new owner so nothing is lost.',
        'Would it help if we brought a summary of what the team has achieved so far?',
      ],
    },
    summary: ['the champion leaving', 'a new owner for the account'],
    subjects: ['Transition after {champion} leaves', 'Re: new point of contact'],
  },
  {
    key: 'implementation',
    buyer: {
      implementation_timeline: [
        'how long does implementation usually take for a team our size?',
        'we need to be live before sales kickoff in {month}; is that realistic?',
        'who does the implementation work, us or your team?',
        'our IT team has very little bandwidth this quarter, so setup needs to be light',
        'what does a typical go-live plan look like, week by week?',
      ],
      data_migration: [
        'can we bring over two years of historical calls from our old system?',
        'we have thousands of call notes in spreadsheets; can those be migrated?',
        'losing our call history would be a deal breaker for the managers',
        'our old system only gives us a raw file; can you import that format?',
        'we would want the migrated calls searchable from day one, not weeks later',
        'how long did the historical import take for other customers our size?',
      ],
    },
    prompts: ['Let us map out implementation and timelines.', 'What does your ideal go-live date look like?'],
    answers: {
      implementation_timeline: [
        'Most teams your size go live in about {weeks} weeks.',
        'Our implementation team does the heavy lifting; your IT team needs about two hours.',
        'I will send a week-by-week go-live plan after this call.',
      ],
      data_migration: [
        'We can migrate historical recordings as part of onboarding.',
        'Spreadsheets of call notes can be imported and linked to the right accounts.',
        'Your call history comes over before go-live, so managers lose nothing.',
      ],
    },
    summary: ['the implementation timeline', 'go-live planning', 'migrating historical data'],
    subjects: ['Implementation plan', 'Re: go-live timeline', 'Onboarding kickoff for {company}'],
  },
  {
    key: 'adoption',
    buyer: {
      adoption_training: [
        'the reps need training, ideally short sessions they can fit between calls',
        'can you run a train-the-trainer session for our managers?',
        'new hires join every month, so onboarding material has to be self-serve',
        'adoption is our biggest worry; tools like this die if managers do not use them',
        'a recorded walkthrough for each team would help more than one long workshop',
        'our front-line managers need coaching on how to use it in their one-on-ones',
      ],
      reporting_dashboards: [
        'managers want a dashboard they can use in the weekly forecast meeting',
        'can we build custom reports, or are the dashboards fixed?',
        'leadership asked for a pipeline report by region every Monday',
        'the dashboards need to filter by segment, or the managers will keep using spreadsheets',
        'can a report show which deals have not had a call in the last two weeks?',
        'our RevOps team wants to schedule reports to land in their inbox every Friday',
      ],
    },
    prompts: ['How is rollout going with the team?', 'What do your managers need from the product?'],
    answers: {
      adoption_training: [
        'Your CSM can run role-based training for reps and managers.',
        'We have short video lessons reps can watch between calls.',
        'A train-the-trainer session for managers works well for teams your size.',
      ],
      reporting_dashboards: [
        'Dashboards are fully customizable, and you can schedule reports by email.',
        'We can build the Monday pipeline report by region together.',
        'Managers can save their own views for the weekly forecast meeting.',
      ],
    },
    summary: ['user training and adoption', 'manager dashboards and reporting'],
    subjects: ['Training sessions for your team', 'Re: dashboard request', 'Adoption check-in'],
  },
  {
    key: 'procurement',
    buyer: {
      procurement_process: [
        'procurement needs a vendor onboarding form and a certificate of insurance',
        'we cannot sign without a purchase order, and that takes about three weeks',
        'the contract has to go through our legal and procurement portal',
        'procurement will want to see at least two competitive quotes',
        'our supplier team sends every new supplier a long intake form, so expect that',
        'procurement only signs new suppliers at the start of each month',
      ],
      executive_alignment: [
        'our VP has not seen the proposal yet, and nothing gets signed without her',
        'I need to get this in front of the CRO before the end of the month',
        'the economic buyer is the CFO, and he has not been involved so far',
        'can you join a call with our executive sponsor to walk through the business case?',
        'the person who signs changed after the reorg, so we have to pitch the new VP again',
        'our COO will make the final call, and she wants a one-page summary first',
      ],
    },
    prompts: ['What does the signature process look like on your side?', 'Who else needs to sign off?'],
    answers: {
      procurement_process: [
        'I will send the vendor forms and our insurance certificate today.',
        'Let us build a mutual close plan with the procurement steps and dates.',
        'We can work inside your procurement portal; just send the invite.',
      ],
      executive_alignment: [
        'Happy to join a call with your executive sponsor; I can bring our VP of Sales.',
        'I will prepare a short business case for your CRO.',
        'Would a fifteen-minute briefing for your CFO help move this forward?',
      ],
    },
    summary: ['the procurement process', 'executive sign-off', 'the mutual close plan'],
    subjects: ['Vendor onboarding paperwork', 'Re: purchase order timing', 'Mutual close plan'],
  },
  {
    key: 'value',
    buyer: {
      roi_business_case: [
        'I need numbers for the business case: time saved per rep, win rate, payback',
        'leadership will ask what ROI other customers saw in the first six months',
        'if you can show a payback period under a year, that would help a lot',
        'our goal is to cut ramp time for new reps; can you show impact on that?',
        'the CFO wants to see the payback math before he will look at a contract',
        'a case study from a company our size would make the business case much easier',
      ],
      seat_expansion: [
        'we want to roll this out to the customer success team as well',
        'the EMEA team asked for access, so we may need another {seats} seats',
        'how would pricing work if we expand to the whole sales org?',
        'our partner team in APAC wants to start with twenty seats next quarter',
        'if the pilot team keeps these numbers, we will add the rest of the region',
        'expanding to the account management team would roughly double our seat count',
      ],
    },
    prompts: ['What would success look like six months from now?', 'Are other teams interested in using it?'],
    answers: {
      roi_business_case: [
        'Customers your size typically see a payback period of about seven months.',
        'I will build an ROI model with your numbers for the leadership review.',
        'Ramp time for new reps usually drops by about a third in the first two quarters.',
      ],
      seat_expansion: [
        'Added seats are prorated at your current rate for the rest of the term.',
        'We can add the customer success team on the same contract.',
        'For a full rollout we would move you to volume pricing.',
      ],
    },
    summary: ['the ROI business case', 'expanding seats to new teams'],
    subjects: ['ROI model for {company}', 'Re: expansion to {region}', 'Adding seats for the CS team'],
  },
  {
    key: 'platform',
    technical: true,
    buyer: {
      api_limits: [
        'our engineers want API access to pull call data into our own tools',
        'what are the API rate limits? We would sync a lot of data',
        'do you support webhooks when a call is processed?',
        'is there a sandbox where our developers can test the API before we build anything?',
        'our integration needs to read transcripts through the API within minutes of the call',
        'we hit the API limit of our current tool every afternoon, so throughput matters',
      ],
      reliability_outage: [
        'we had two calls last week that never got recorded',
        'the sync was down for most of a day and nobody told us',
        'what uptime do you commit to in the contract?',
        'the app has been slow for our team in {region}',
        'we need a status page we can point the reps to when something breaks',
        'last month the recordings were delayed by hours, and the managers noticed',
      ],
      permissions_roles: [
        'managers should only see calls from their own team',
        'we need role-based access so HR calls are never visible to sales',
        'can admins mark certain calls as private?',
        'our legal team needs calls with their counsel excluded from recording entirely',
        'regional managers should see their region, and only the VP sees everything',
        'we want to see who opened which recording, in case a customer asks',
      ],
      ai_accuracy: [
        'the transcripts struggle with accents on our APAC team',
        'how accurate are the AI summaries? The reps will not trust them otherwise',
        'it keeps getting our product names and industry jargon wrong',
        'can we teach the transcription our own vocabulary, like product codes and acronyms?',
        'the action items in the AI summary missed the one thing the customer asked for',
        'our calls go back and forth between English and Spanish, and the transcripts fall apart there',
      ],
      support_responsiveness: [
        'support tickets take days to get a response',
        'we need a named support contact, not a generic queue',
        'the last issue took two weeks to resolve, which is not acceptable',
        'when we escalate, we get a different support agent every time and start over',
        'we would pay for a support plan with a one-hour response time on outages',
        'the help center articles are out of date, so the reps open tickets for everything',
      ],
    },
    prompts: ['Any technical questions from your team?', 'How has the product been performing for you?'],
    answers: {
      api_limits: [
        'Our API covers calls, transcripts and deals, with webhooks on processing.',
        'Rate limits are generous, and we can raise them for bulk syncs.',
      ],
      reliability_outage: [
        'I am sorry about the missed recordings; our engineers traced it to a calendar sync issue.',
        'We commit to 99.9 percent uptime, with service credits in the contract.',
        'You will get status notifications from now on when sync is delayed.',
      ],
      permissions_roles: [
        'Role-based permissions let you scope visibility by team and mark calls private.',
        'Admins can make any call private, and HR calls can be excluded entirely.',
      ],
      ai_accuracy: [
        'You can add a custom vocabulary so product names are transcribed correctly.',
        'Accuracy on accented speech improved a lot in the last release; let us test it on your calls.',
      ],
      support_responsiveness: [
        'I will escalate this and get you a named support contact.',
        'Enterprise plans include a four-hour response time, and we can add that for you.',
      ],
    },
    summary: [
      'API access and limits',
      'recent reliability issues',
      'permissions and private calls',
      'transcription accuracy',
      'support response times',
    ],
    subjects: ['API documentation and limits', 'Re: missing recordings', 'Permissions setup', 'Support escalation'],
  },
];

/** Talk on accounts whose people are not buyers: none of it is customer voice. */
export const NON_BUYER_TOPICS: Record<string, Topic> = {
  investor: {
    key: 'investor',
    buyer: {
      investor_metrics: [
        'what does net revenue retention look like for the last two quarters?',
        'how much runway do you have at the current burn?',
        'pipeline coverage for next quarter looks thin; how do you feel about the plan?',
        'when are you thinking about raising the next round?',
      ],
    },
    prompts: ['Thanks for making time for the quarterly update.'],
    answers: {
      investor_metrics: [
        'Net retention is at 118 percent, and we have about two years of runway.',
        'Pipeline coverage is three times for next quarter.',
      ],
    },
    summary: ['the quarterly investor update'],
    subjects: ['Quarterly investor update', 'Re: board deck draft'],
  },
  media: {
    key: 'media',
    buyer: {
      press_interview: [
        'for the article, how do you see AI changing the way sales teams work?',
        'can you share a customer story we could mention in the episode?',
        'what is the biggest trend you see in revenue operations this year?',
      ],
    },
    prompts: ['Thanks for having us on.'],
    answers: {
      press_interview: ['The biggest shift is that teams finally listen to what customers actually say.'],
    },
    summary: ['a press interview'],
    subjects: ['Interview request', 'Re: podcast recording'],
  },
  vendor: {
    key: 'vendor',
    buyer: {
      vendor_pitch: [
        'our enterprise tier is priced per seat, and I can offer a twenty percent discount if you sign this quarter',
        'we help sales teams like yours book more meetings with intent data',
        'most of our customers see results in the first thirty days',
        'I can send over pricing for a pilot with ten seats',
      ],
    },
    prompts: ['Thanks, what did you want to show us?'],
    answers: {
      vendor_pitch: ['We are not looking at new tools right now, but send the deck over.'],
    },
    summary: ['a vendor pitch'],
    subjects: ['Quick intro', 'Re: following up on our demo'],
  },
  partnership: {
    key: 'partnership',
    buyer: {
      partnership_talks: [
        'we could co-sell into accounts where we both have relationships',
        'let us register the deal so there is no channel conflict',
        'our customers keep asking for an integration between our products',
        'what margin do you offer resellers on new business?',
      ],
    },
    prompts: ['Let us review the joint pipeline.'],
    answers: {
      partnership_talks: ['We can share a list of overlapping accounts and set up referral terms.'],
    },
    summary: ['the partnership and joint pipeline'],
    subjects: ['Joint pipeline review', 'Re: deal registration'],
  },
  advisor: {
    key: 'advisor',
    buyer: {
      advisor_feedback: [
        'your positioning against the big platforms still feels fuzzy to me',
        'I would hire a second sales engineer before another account executive',
        'focus the next two quarters on mid-market, where you win most',
      ],
    },
    prompts: ['I wanted your take on our go-to-market plan.'],
    answers: {
      advisor_feedback: ['That is helpful; we will revisit the hiring plan.'],
    },
    summary: ['advisor feedback on go-to-market'],
    subjects: ['Advisor sync', 'Re: GTM plan feedback'],
  },
};

/** Openers that vary how a buyer line starts without changing what it says. */
export const BUYER_OPENERS = [
  '',
  '',
  'Honestly, ',
  'To be frank, ',
  'Look, ',
  'One thing I have to flag: ',
  'So ',
  'The other thing is, ',
  'From our side, ',
  'Just so you know, ',
  'I will be straight with you: ',
  'Right now ',
  'Realistically, ',
  'Candidly, ',
  'What I am hearing internally is that ',
  'For what it is worth, ',
  'Before I forget, ',
  'As I mentioned to {rep}, ',
  'Speaking for the team, ',
  'Quick one: ',
] as const;
/** Endings that add emphasis or context to a concern. */
export const BUYER_TAILS = [
  '',
  '',
  '',
  ' That is a real blocker for us.',
  ' Can you help us there?',
  ' That will come up with our leadership.',
  ' We need an answer before {month}.',
  ' It came up again in our team meeting.',
  ' Our {region} team feels the same.',
  ' I would rather sort it out now than in procurement.',
  ' That is the main thing on my list.',
  ' Let me know what is possible.',
  ' I promised to get back to them by {month}.',
  ' It is not a deal breaker, but it matters.',
  ' Our CFO raised the same point last week.',
  ' We have been burned on this before.',
] as const;
