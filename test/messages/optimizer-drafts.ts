/**
 * Drafts the optimizer must never damage: long cold emails, follow-ups,
 * two-line notes, drafts with numbers and names, drafts with an ask of their own, drafts already
 * good. Each lists, by hand, the facts the writer gave (they must survive any rewrite) and the
 * writer's own ask when it has one that is not vague (it must survive too).
 */
export interface OptimizerDraft {
  id: string;
  message: string;
  /** Numbers, names, dates and product terms the writer gave, as written. */
  facts: string[];
  /** The writer's own concrete ask, verbatim, when the draft has one. */
  ownAsk?: string;
  /** A note that asks for nothing on purpose (a thank-you, a recap): it must come back without an ask. */
  noAsk?: true;
  channel?: 'email' | 'linkedin' | 'whatsapp';
}

export const OPTIMIZER_DRAFTS: OptimizerDraft[] = [
  {
    id: 'hype-predicate',
    message:
      'Hi Jo,\n\nOur AI is revolutionary. I would love to show you how Acme cut review time by 40% in Q3.\n\nBest,\nMia',
    facts: ['Jo', 'Acme', '40%', 'Q3', 'Mia'],
    ownAsk: 'I would love to show you how Acme cut review time by 40% in Q3.',
  },
  {
    id: 'hour-long-demo',
    message:
      "Subject: Northwind and SSO\n\nHi Raj,\n\nWe closed $1.2M in pipeline with Northwind last quarter after they rolled out SSO in 3 weeks. I'd love to walk you through an hour-long demo of the SSO and HIPAA controls.\n\nBest,\nLee",
    facts: ['Raj', '$1.2M', 'Northwind', 'SSO', '3', 'HIPAA', 'Lee'],
    ownAsk: "I'd love to walk you through an hour-long demo of the SSO and HIPAA controls.",
  },
  {
    id: 'hour-long-demo-question',
    message:
      'Subject: Your renewal in March\n\nHi Carla,\n\nYour 120-seat contract renews on March 14. Would you have an hour next week for a full product demo of the new reporting?\n\nThanks,\nOwen',
    facts: ['Carla', '120-seat', 'March', '14', 'Owen'],
    ownAsk: 'Would you have an hour next week for a full product demo of the new reporting?',
  },
  {
    id: 'whatsapp-renewal-numbers',
    message: 'hey, quick one - can you send the renewal numbers by friday?',
    facts: [],
    ownAsk: 'hey, quick one - can you send the renewal numbers by friday?',
    channel: 'whatsapp',
  },
  {
    id: 'whatsapp-thanks',
    message: 'Thanks for the time today, Priya. I will send the pricing for 40 seats by Thursday.',
    facts: ['Priya', '40', 'Thursday'],
    channel: 'whatsapp',
  },
  {
    id: 'two-line-heads-up',
    message: 'Heads up: the Globex pilot moves to Monday 9am. Same room as last time.',
    facts: ['Globex', 'Monday', '9am'],
  },
  {
    id: 'two-line-ask',
    message: 'Hi Ana, could you share the Q4 forecast before our sync on the 12th?',
    facts: ['Ana', 'Q4', '12th'],
    ownAsk: 'Hi Ana, could you share the Q4 forecast before our sync on the 12th?',
  },
  {
    id: 'my-name-is',
    message:
      'Subject: Introduction\n\nHi Paul,\n\nMy name is Kevin and I am an account executive at DataSpark. We are a data platform and we have many great features that I think you would find very useful. Our platform is trusted by companies all over the world.\n\nLet me know when you have time to chat.\n\nKevin',
    facts: ['Paul', 'Kevin', 'DataSpark'],
  },
  {
    id: 'hope-finds-you-well',
    message:
      'Subject: Touching base\n\nHi Sarah,\n\nI hope this email finds you well. I just wanted to touch base and circle back on our solution, which I think could be a great fit for your company.\n\nBest,\nGreg',
    facts: ['Sarah', 'Greg'],
  },
  {
    id: 'follow-up-two-asks',
    message:
      'Subject: Re: following up\n\nHi Tom,\n\nJust following up on my last email. Did you get a chance to look at it? Let me know.\n\nThanks,\nAlex',
    facts: ['Tom', 'Alex'],
    ownAsk: 'Did you get a chance to look at it?',
  },
  {
    id: 'follow-up-with-date',
    message:
      'Subject: The proposal from March 3\n\nHi Dev,\n\nJust checking in on the proposal I sent on March 3 for the 75-seat rollout at Initech. The pricing holds until April 30.\n\nThanks,\nNora',
    facts: ['Dev', 'March', '3', '75-seat', 'Initech', 'April', '30', 'Nora'],
  },
  {
    id: 'already-good',
    message:
      'Subject: Your 3-week onboarding target\n\nHi Dana,\n\nYou mentioned on the webinar that your team wants new reps selling in 3 weeks instead of 8. Acme Logistics got there in 4 weeks with our guided ramp plans, mostly by cutting shadowing time in half.\n\nWould a 15-minute call on Tuesday be useful to see if the same plan fits your team?\n\nBest,\nSam',
    facts: ['Dana', '3', '8', 'Acme', 'Logistics', '4', 'Tuesday', 'Sam'],
    ownAsk: 'Would a 15-minute call on Tuesday be useful to see if the same plan fits your team?',
  },
  {
    id: 'already-good-linkedin',
    message:
      'Hi Marcus, saw your post about cutting churn at Brightline by 12% this year. We helped Umbrella Health get a similar drop by flagging renewals 90 days out. Open to comparing notes for 15 minutes next week?',
    facts: ['Marcus', 'Brightline', '12%', 'Umbrella', 'Health', '90', '15'],
    ownAsk: 'Open to comparing notes for 15 minutes next week?',
    channel: 'linkedin',
  },
  {
    id: 'shouting',
    message:
      'Subject: HUGE news for Contoso!!!\n\nHi Lina,\n\nOur new Salesforce sync is LIVE!!! It moves 10,000 records an hour and keeps your GDPR settings. Would a 20-minute walkthrough on Wednesday help?\n\nCheers,\nBen',
    facts: ['Contoso', 'Lina', 'Salesforce', '10,000', 'GDPR', '20-minute', 'Wednesday', 'Ben'],
    ownAsk: 'Would a 20-minute walkthrough on Wednesday help?',
  },
  {
    id: 'guarantee-verb',
    message:
      'Subject: Faster close\n\nHi Ivan,\n\nWe guarantee results. Teams at Hooli closed quarters 6 days faster after switching their approvals to us.\n\nBest,\nRita',
    facts: ['Ivan', 'Hooli', '6', 'Rita'],
  },
  {
    id: 'amazing-article',
    message:
      'Subject: A tool for your RevOps team\n\nHi Omar,\n\nWe built an amazing tool for RevOps teams that cuts forecast prep from 5 hours to 1. Stark Industries uses it every Monday.\n\nWould a 15-minute call next week be useful?\n\nThanks,\nJune',
    facts: ['RevOps', 'Omar', '5', '1', 'Stark', 'Industries', 'Monday', 'June'],
    ownAsk: 'Would a 15-minute call next week be useful?',
  },
  {
    id: 'long-cold-email',
    message:
      "Subject: Partnership opportunity with CloudNova Solutions\n\nDear Sir or Madam,\n\nFounded over a decade ago, our company has grown to serve hundreds of clients across dozens of industries, including finance, healthcare, retail, manufacturing and the public sector. Our comprehensive suite of products covers everything from data integration and analytics to workflow automation, customer engagement, security and compliance, all delivered through a unified platform that leverages the latest advances in artificial intelligence and machine learning. Our team of dedicated professionals works closely with each customer to understand their unique challenges and design tailored solutions that drive efficiency, reduce costs and unlock new revenue opportunities. In addition, we offer a wide range of professional services, including consulting, implementation, training and ongoing support, ensuring that our clients get the most value from their investment. We would welcome the opportunity to discuss how CloudNova Solutions can support your organization's strategic goals and help you stay ahead of the competition in today's rapidly evolving business landscape. Please do not hesitate to contact me at your earliest convenience to schedule a meeting with our team.\n\nYours faithfully, Margaret",
    facts: ['CloudNova', 'Solutions', 'Margaret'],
  },
  {
    id: 'long-cold-email-numbers',
    message:
      'Subject: Cutting month-end close at Vandelay\n\nHi Elaine,\n\nI read that Vandelay Industries opened 4 new warehouses in 2025 and that finance now reconciles 3 ERP instances by hand. That is a lot of spreadsheets at month-end. We work with finance teams who had the same setup. At Pendant Publishing, the close went from 9 days to 5 after we connected their NetSuite and SAP ledgers. Their controller, Jerry Seinfeld, said the biggest win was not speed but fewer late-night corrections. We also handle intercompany eliminations, which tends to be the slowest step when entities multiply. Our team sets it up in about 6 weeks, and your analysts keep working in Excel during the move. Pricing is per entity, so a pilot on two entities costs less than one month of contractor time. If it would help, I can share the checklist Pendant used to prepare. It covers data owners, mapping decisions and the first two closes. Would a 20-minute call on Thursday work to see if the same approach fits Vandelay?\n\nBest regards,\nGeorge',
    facts: [
      'Vandelay',
      'Elaine',
      '4',
      '2025',
      '3',
      'ERP',
      'Pendant',
      'Publishing',
      '9',
      '5',
      'NetSuite',
      'SAP',
      'Jerry',
      'Seinfeld',
      '6',
      'Excel',
      '20-minute',
      'Thursday',
      'George',
    ],
    ownAsk: 'Would a 20-minute call on Thursday work to see if the same approach fits Vandelay?',
  },
  {
    id: 'no-ask-email',
    message:
      'Subject: Gong notes from Tuesday\n\nHi Wes,\n\nHere are the notes from Tuesday with Dunder Mifflin. They want SCIM provisioning before the 200-seat expansion, and Pam owns the security review.\n\nThanks,\nKaren',
    facts: ['Gong', 'Tuesday', 'Wes', 'Dunder', 'Mifflin', 'SCIM', '200-seat', 'Pam', 'Karen'],
  },
  {
    id: 'vague-ask',
    message:
      'Subject: Support backlog at Acme\n\nHi Zoe,\n\nAcme cut its support backlog by 35% in 8 weeks after routing tickets by product area. Your team at Wayne Enterprises has a similar mix of products.\n\nThoughts?\n\nBest,\nLuis',
    facts: ['Acme', 'Zoe', '35%', '8', 'Wayne', 'Enterprises', 'Luis'],
  },
  {
    id: 'let-me-know-if',
    message:
      'Subject: Pricing for Soylent\n\nHi Hank,\n\nAttached is pricing for 3 options for Soylent, from 50 to 250 seats. Let me know if you want me to walk your CFO through it.\n\nBest,\nPeggy',
    facts: ['Soylent', 'Hank', '3', '50', '250', 'CFO', 'Peggy'],
    ownAsk: 'Let me know if you want me to walk your CFO through it.',
  },
  {
    id: 'three-questions',
    message:
      'Subject: Some questions\n\nHi Oscar,\n\nAre you the right person for data tooling at Massive Dynamic? Do you use Snowflake today? Would you like to see a demo?\n\nThanks,\nLiam',
    facts: ['Oscar', 'Massive', 'Dynamic', 'Snowflake', 'Liam'],
  },
  {
    id: 'linkedin-hype',
    message: 'Hi Grace, our game-changing platform helps SDR teams book 30% more meetings. Happy to chat if useful.',
    facts: ['Grace', 'SDR', '30%'],
    channel: 'linkedin',
  },
  {
    id: 'linkedin-congrats',
    message: 'Congrats on the Series B, Nikhil! Saw Tyrell raised $40M to expand in EMEA.',
    facts: ['Series', 'Nikhil', 'Tyrell', '$40M', 'EMEA'],
    channel: 'linkedin',
  },
  {
    id: 'whatsapp-running-late',
    message: 'Running 10 min late to the Cyberdyne call, start without me.',
    facts: ['10', 'Cyberdyne'],
    channel: 'whatsapp',
  },
  {
    id: 'whatsapp-question',
    message: 'Did Hiro sign the order form for the 30 extra seats?',
    facts: ['Hiro', '30'],
    ownAsk: 'Did Hiro sign the order form for the 30 extra seats?',
    channel: 'whatsapp',
  },
  {
    id: 'decimals-and-urls',
    message:
      'Subject: Uptime report for Q2\n\nHi Petra,\n\nUptime for Q2 was 99.95% across 3.2M API calls, e.g. the EU region had no incidents. The full report is at status.example.com/q2 if your team wants it.\n\nIs a 15-minute review on Friday useful?\n\nBest,\nKai',
    facts: ['Q2', 'Petra', '99.95%', '3.2M', 'API', 'EU', 'Friday', 'Kai'],
    ownAsk: 'Is a 15-minute review on Friday useful?',
  },
  {
    id: 'cutting-edge-predicate',
    message:
      'Subject: Security review\n\nHi Dmitri,\n\nOur encryption is cutting-edge. We passed SOC 2 Type II in June with zero exceptions, and Globex used that report to skip 4 weeks of vendor review.\n\nRegards,\nHelen',
    facts: ['Dmitri', 'SOC', '2', 'June', 'Globex', '4', 'Helen'],
  },
  {
    id: 'per-my-last-email',
    message:
      'Subject: Contract for Initrode\n\nHi Bob,\n\nPer my last email, the Initrode contract needs a signature by May 2 to keep the 15% discount. Can you get it to legal this week?\n\nThanks,\nPeter',
    facts: ['Initrode', 'Bob', 'May', '2', '15%', 'Peter'],
    ownAsk: 'Can you get it to legal this week?',
  },
  {
    id: 'incredible-results',
    message:
      'Subject: Results at Oscorp\n\nHi Felicia,\n\nThe results were incredible! Oscorp onboarded 1,400 users in 11 days with our HubSpot import.\n\nWould a 15-minute call next Tuesday help you plan yours?\n\nBest,\nEddie',
    facts: ['Oscorp', 'Felicia', '1,400', '11', 'HubSpot', 'Tuesday', 'Eddie'],
    ownAsk: 'Would a 15-minute call next Tuesday help you plan yours?',
  },
  {
    id: 'thank-you-note',
    message:
      'Hi Rosa,\n\nThank you for hosting us at the Gringotts office on Wednesday. The whiteboard session on the 2026 roadmap was the most useful hour of our trip.\n\nBest,\nArthur',
    facts: ['Rosa', 'Gringotts', 'Wednesday', '2026', 'Arthur'],
    noAsk: true,
  },
  {
    id: 'thank-you-email',
    message:
      'Subject: Thank you\n\nHi Maya,\n\nThank you for the time today and for bringing Luis from finance. It was great to hear how the Umbrella team plans the 2027 rollout across 3 regions.\n\nBest,\nTheo',
    facts: ['Maya', 'Luis', 'Umbrella', '2027', '3', 'Theo'],
    noAsk: true,
  },
  {
    id: 'meeting-recap',
    message:
      'Subject: Recap of our call\n\nHi Sam,\n\nA quick recap of our call on Tuesday. Your team wants Salesforce sync before the 50-seat pilot, and Dana owns the security review. We will send the DPA by June 4.\n\nThanks,\nIris',
    facts: ['Sam', 'Tuesday', 'Salesforce', '50-seat', 'Dana', 'DPA', 'June', 'Iris'],
    noAsk: true,
  },
  {
    id: 'linkedin-new-role',
    message: 'Congratulations on the new role at Hooli, Gavin. Your talk on pipeline hygiene at SaaStr was great.',
    facts: ['Hooli', 'Gavin', 'SaaStr'],
    noAsk: true,
    channel: 'linkedin',
  },
  {
    id: 'disrupt-synergy',
    message:
      'Subject: Synergy between our teams\n\nHi Quinn,\n\nWe want to disrupt how Pied Piper compresses logs and unlock synergy with your platform team. Our pilot at Raviga cut storage by 28% in 5 weeks.\n\nWould a 15-minute call on Monday be useful?\n\nBest,\nErlich',
    facts: ['Quinn', 'Pied', 'Piper', 'Raviga', '28%', '5', 'Monday', 'Erlich'],
    ownAsk: 'Would a 15-minute call on Monday be useful?',
  },
];
