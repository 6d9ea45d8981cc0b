/**
 * Sales emails with a reader's judgement of how likely a busy buyer replies (5 very likely, 1 very
 * unlikely), written and labelled before the reply model's weights were set. The model's ranking
 * is tested against these labels (test/messages/reply-model.test.ts); the labels are not tuned.
 */
export interface LabelledEmail {
  id: string;
  label: 1 | 2 | 3 | 4 | 5;
  why: string;
  message: string;
}

export const REPLY_LABELLED_SET: LabelledEmail[] = [
  {
    id: 'specific-short-ask',
    label: 5,
    why: 'Short, about the reader, a concrete fact, one easy ask.',
    message: `Subject: Your 3-week onboarding target

Hi Dana,

You mentioned on the webinar that your team wants new reps selling in 3 weeks instead of 8. Acme Logistics got there in 4 weeks with our guided ramp plans, mostly by cutting shadowing time in half.

Would a 15-minute call on Tuesday be useful to see if the same plan fits your team?

Best,
Sam`,
  },
  {
    id: 'referral-warm',
    label: 5,
    why: 'Warm referral, specific reason, one clear question.',
    message: `Subject: Intro via Priya Shah

Hi Marco,

Priya Shah suggested I reach out: she said your support team is handling 40% more tickets since the March launch. We helped her team at Northwind cut first-response time from 9 hours to 2.

Are you the right person to talk to about this, or is someone else on your team closer to it?

Thanks,
Jo`,
  },
  {
    id: 'followup-value',
    label: 4,
    why: 'A follow-up that adds something new, short, one ask.',
    message: `Subject: The churn report you asked about

Hi Lena,

Following our call, here is the one number you asked for: customers who finished setup in the first week renewed at 92%, against 71% for the rest.

Want me to run the same cut on your accounts before your Q3 review?

Cheers,
Tom`,
  },
  {
    id: 'question-about-them',
    label: 4,
    why: 'About their situation, one open question, no pitch wall.',
    message: `Subject: Renewals after the price change

Hi Priya,

Saw that your pricing page moved to per-seat plans last month. Teams that made that switch often see a wave of downgrade requests at renewal.

How are your account managers handling those conversations so far?

Best,
Ana`,
  },
  {
    id: 'case-study-relevant',
    label: 4,
    why: 'Relevant proof with numbers and a low-friction ask.',
    message: `Subject: How Fabrikam cut quote time to 2 days

Hi Omar,

Your job post for a deal desk analyst mentions quotes taking two weeks. Fabrikam had the same problem; after moving approvals into one workflow their quotes go out in 2 days.

Should I send the 1-page summary of what they changed?

Regards,
Mia`,
  },
  {
    id: 'plain-decent',
    label: 3,
    why: 'Fine but generic; the ask is there but weak.',
    message: `Subject: Sales coaching

Hi Chris,

We help sales teams improve their coaching with call insights. Many managers use us to find the moments that matter in calls without listening to every recording.

Would you be open to a short conversation sometime?

Thanks,
Dave`,
  },
  {
    id: 'decent-but-long',
    label: 3,
    why: 'Relevant but too long for a first email.',
    message: `Subject: Forecast accuracy

Hi Rachel,

I noticed your team is growing quickly and I wanted to share a few thoughts on forecast accuracy, which tends to get harder as teams scale past thirty reps. In our experience the biggest issue is that managers rely on rep-reported stages that drift from what buyers actually said on calls. We built a way to compare the stage in the CRM with the buyer's own words and flag deals where they disagree, which our customers use in their weekly pipeline reviews. Over time this means the forecast call spends less time arguing about individual deals and more time on the handful that matter. Several teams your size have told us that the first month is mostly about cleaning up stages, and that after that the numbers settle down. There is also a reporting side, where leaders can see by segment which deals were forecast wrong last quarter and why, which helps with hiring plans and territory changes.

Would a 20-minute call next week make sense to walk through it?

Best,
Neil`,
  },
  {
    id: 'two-questions',
    label: 3,
    why: 'Good context, but splits the ask in two.',
    message: `Subject: Call recordings

Hi Ivy,

Your team records sales calls in Zoom today. Most teams we talk to only review 2% of them.

Do you have a process for reviewing calls? And who owns coaching on your team?

Thanks,
Ben`,
  },
  {
    id: 'soft-ask-specific',
    label: 4,
    why: 'Specific observation and a simple yes/no ask.',
    message: `Subject: 14 open roles in sales

Hi Grace,

Congrats on the Series B. With 14 open sales roles, ramp time will matter a lot this year.

Is ramping new reps on your list for Q2?

Sam`,
  },
  {
    id: 'vague-value',
    label: 2,
    why: 'Vague claims, about the sender, no specific reason to reply.',
    message: `Subject: Quick question

Hi there,

We are a leading platform that helps companies grow revenue and work smarter. Our solution is used by many businesses across industries to improve performance.

Let me know if you are interested.

Thanks,
Mark`,
  },
  {
    id: 'my-name-is',
    label: 2,
    why: 'Cliche opener, all about us, weak ask.',
    message: `Subject: Introduction

Hi Paul,

My name is Kevin and I am an account executive at DataSpark. We are a data platform and we have many great features that I think you would find very useful. Our platform is trusted by companies all over the world.

Let me know when you have time to chat.

Kevin`,
  },
  {
    id: 'hope-finds-you-well',
    label: 2,
    why: 'Cliche opener and filler before anything useful.',
    message: `Subject: Touching base

Hi Sarah,

I hope this email finds you well. I just wanted to touch base and circle back on our solution, which I think could be a great fit for your company.

Let me know your thoughts.

Best,
Greg`,
  },
  {
    id: 'just-following-up',
    label: 2,
    why: 'Empty follow-up with nothing new.',
    message: `Subject: Re: following up

Hi Tom,

Just following up on my last email. Did you get a chance to look at it? Let me know.

Thanks,
Alex`,
  },
  {
    id: 'per-my-last',
    label: 1,
    why: 'Passive-aggressive, fake reply subject, nothing for the reader.',
    message: `Subject: Re: Re: our conversation

Hi Jim,

Per my last email, I have still not heard back from you. Please let me know if you are still interested or not.

Regards,
Steve`,
  },
  {
    id: 'hype-shouting',
    label: 1,
    why: 'Hype, shouting, exclamation marks, no specifics.',
    message: `Subject: AMAZING OPPORTUNITY!!!

Hi!!

Our REVOLUTIONARY, game-changing platform will 10x your revenue GUARANTEED!!! This is a once in a lifetime, limited time offer, act now!!!

Reply today!!!`,
  },
  {
    id: 'link-stuffed',
    label: 1,
    why: 'Five links and an attachment instead of a reason to reply.',
    message: `Subject: Resources for you

Hi Ella,

Please see our website https://example.com, our case studies https://example.com/cases, our pricing https://example.com/pricing, our blog https://example.com/blog and our demo video https://example.com/demo. I have also attached our brochure and a product deck.

Thanks,
Rob`,
  },
  {
    id: 'no-ask-monologue',
    label: 2,
    why: 'Information only, no ask at all.',
    message: `Subject: Our product

Hi Frank,

We provide analytics for customer success teams. Our dashboards show health scores, usage and renewal risk in one place. We integrate with Salesforce and HubSpot and we are SOC 2 certified. Our customers include mid-size software companies.

Best regards,
Helen`,
  },
  {
    id: 'three-questions',
    label: 2,
    why: 'Three questions at once; the reader has to do the work.',
    message: `Subject: Some questions

Hi Oscar,

What tools do you use for forecasting today? How many reps are on your team? What are your goals for this year? Would you like to see a demo?

Thanks,
Liam`,
  },
  {
    id: 'very-long-pitch',
    label: 1,
    why: 'A wall of text about the vendor; nobody reads it.',
    message: `Subject: Partnership opportunity with CloudNova Solutions

Dear Sir or Madam,

I am writing to introduce CloudNova Solutions, a world-class, best-in-class provider of cutting-edge enterprise software solutions that empower organizations to achieve digital transformation at scale. Founded over a decade ago, our company has grown to serve hundreds of clients across dozens of industries, including finance, healthcare, retail, manufacturing and the public sector. Our comprehensive suite of products covers everything from data integration and analytics to workflow automation, customer engagement, security and compliance, all delivered through a unified platform that leverages the latest advances in artificial intelligence and machine learning. We pride ourselves on our synergy-driven approach, which combines deep domain expertise with innovative technology to deliver measurable outcomes for our clients. Our team of dedicated professionals works closely with each customer to understand their unique challenges and design tailored solutions that drive efficiency, reduce costs and unlock new revenue opportunities. In addition, we offer a wide range of professional services, including consulting, implementation, training and ongoing support, ensuring that our clients get the most value from their investment. We would welcome the opportunity to discuss how CloudNova Solutions can support your organization's strategic goals and help you stay ahead of the competition in today's rapidly evolving business landscape. Please do not hesitate to contact me at your earliest convenience to schedule a meeting with our team.

Yours faithfully,
Margaret`,
  },
  {
    id: 'linkedin-style-short',
    label: 3,
    why: 'Short and polite but generic.',
    message: `Subject: Connecting

Hi Nora,

I work with sales leaders in logistics on pipeline reviews. Would you be open to connecting?

Best,
Jake`,
  },
  {
    id: 'specific-but-self-focused',
    label: 3,
    why: 'Has numbers but mostly about the sender.',
    message: `Subject: Our Q3 results

Hi Victor,

We grew 140% this year and our platform now processes 2 million calls a month. We were named a leader in our category and we just opened an office in Austin.

Would you like to hear more about what we do?

Thanks,
Rita`,
  },
  {
    id: 'great-personal',
    label: 5,
    why: 'Personal, specific, helpful, tiny ask.',
    message: `Subject: Your talk on discount discipline

Hi Hannah,

Your RevOps Summit talk on discount discipline was the clearest I have heard. One thing you said stuck: 30% of your discounts went to deals that would have closed anyway.

We built a check that flags those deals before the quote goes out. Worth a 10-minute look on Thursday?

Thanks,
Leo`,
  },
  {
    id: 'trigger-event',
    label: 4,
    why: 'Timely trigger event, relevant, one question.',
    message: `Subject: New VP of Sales

Hi Ethan,

Saw that Carla Diaz joined as VP of Sales last week. New sales leaders usually rebuild the pipeline review in their first 90 days.

Would it help if I sent the review template three other teams use?

Best,
Zoe`,
  },
  {
    id: 'meh-generic-followup',
    label: 2,
    why: 'Generic check-in with a vague ask.',
    message: `Subject: Checking in

Hi Mike,

Just checking in to see if you had any thoughts on my previous note. Happy to chat whenever works for you.

Thanks,
Amy`,
  },
  {
    id: 'clear-but-no-personalization',
    label: 3,
    why: 'Clear and short, but nothing about the reader.',
    message: `Subject: Call scoring

Hi Ruth,

Our call scoring shows managers which calls need coaching, so they spend 2 hours a week instead of 10 reviewing calls.

Open to a 15-minute demo next week?

Best,
Ian`,
  },
  {
    id: 'pushy-deadline',
    label: 1,
    why: 'Pressure tactics and hype.',
    message: `Subject: LAST CHANCE - price goes up Friday!

Hi Sam,

This is your LAST CHANCE to lock in our amazing pricing before it goes up on Friday!!! Act now or miss out on this incredible limited time deal.

Sign up today!

Tim`,
  },
  {
    id: 'good-question-followup',
    label: 4,
    why: 'Follow-up that asks one relevant question.',
    message: `Subject: The onboarding survey

Hi Carlos,

Last week you said new customers get stuck at the data import step. I asked our team: 60% of stalled onboardings we see stall at exactly that step.

Is the import done by your team or by the customer today?

Best,
Nina`,
  },
  {
    id: 'wall-no-cta',
    label: 1,
    why: 'Long, about the vendor, and no ask.',
    message: `Subject: Information about SynergyMax

Hi Bill,

SynergyMax is a revolutionary synergy platform that leverages best-in-class AI to drive game-changing outcomes across the enterprise. Our cutting-edge technology integrates with all major systems and delivers world-class results for organizations of every size. We have a proven track record of success and our clients love our innovative approach. We offer flexible pricing, dedicated support and a comprehensive onboarding program that ensures a seamless transition. Our roadmap includes many exciting features that will further enhance the value we provide to our customers in the years ahead.

Regards,
The SynergyMax Team`,
  },
  {
    id: 'ok-specific-two-links',
    label: 3,
    why: 'Relevant, but two links and a softer ask.',
    message: `Subject: Win rates by segment

Hi Laura,

Teams selling to mid-market often see win rates drop 10 points when deals pass 60 days. Here is the analysis https://example.com/win-rates and the template https://example.com/template we use.

Let me know if it is useful.

Best,
Dan`,
  },
  {
    id: 'concise-peer',
    label: 5,
    why: 'Peer-to-peer, very specific, an easy reply.',
    message: `Subject: 2 reps, 1 territory

Hi Maya,

Your Denver territory has two reps covering the same 40 accounts, judging by the job posts. Splitting by industry fixed that for Contoso without a reorg.

Happy to send how they split it. Want it?

Sam`,
  },
  {
    id: 'attachment-heavy',
    label: 2,
    why: 'Relies on attachments instead of a reason.',
    message: `Subject: Deck attached

Hi George,

Please find attached our company deck, our product brochure and two case studies. I think they explain everything better than I could in an email.

Let me know.

Thanks,
Pam`,
  },
  {
    id: 'polite-specific-medium',
    label: 4,
    why: 'Specific pain in their words, reasonable length, one ask.',
    message: `Subject: "Too many manual steps"

Hi Julia,

In your G2 review you wrote that renewals take "too many manual steps". Most of those steps are copying usage data into the renewal quote, which we automate for teams on Salesforce.

Would a 15-minute call next Wednesday be worth it to see how it would work with your setup?

Thanks,
Owen`,
  },
];
