import { describe, expect, it } from 'vitest';
import { phrasesSpelling, topicTerms } from '../../functions/search/topic-terms.js';

/**
 * The one topic matcher: a topic's stems, and its acronyms both ways, read from the texts matched.
 * The pairs are none of the demo corpus's, so nothing here passes by a table of its words.
 */

const about = (topic: string, texts: readonly string[]) => {
  const terms = topicTerms(topic, { texts });
  return texts.filter((t) => terms.matches(t));
};

describe('an acronym topic matches the phrase whose initials spell it', () => {
  it.each([
    ['MFA', 'Every admin account needs multi-factor authentication before go-live.'],
    ['RBAC', 'We need role-based access control so contractors only see their own region.'],
    ['ERP', 'Can it push invoices into our enterprise resource planning system?'],
    ['CRM', 'Our customer relationship management tool is the system of record.'],
    ['DOD', 'The Department of Defense contract needs it.'],
    ['BOM', 'Export the bill of materials every night.'],
  ])('%s in %j', (topic, text) => {
    expect(about(topic, [text, 'Nothing about that here.'])).toEqual([text]);
  });

  it('a lower-case topic word the texts never write as a word is an acronym too, matched in any case', () => {
    const texts = ['We need multi-factor authentication for admins.', 'MFA is a must.', 'Pricing is fine.'];
    expect(about('mfa', texts)).toEqual(texts.slice(0, 2));
    // The same word written as an ordinary word in the texts is that word: "team" spells nothing.
    const team = ['The team is ready.', 'Tom eats apples merrily.'];
    expect(about('team', team)).toEqual(['The team is ready.']);
  });

  it('reports the phrases it found, and says when it found none', () => {
    const terms = topicTerms('MFA', { texts: ['Multi-factor authentication, please.', 'Pricing.'] });
    expect(terms.lookedFor()).toBe(
      'the words of "MFA" in any form and a phrase whose initials spell MFA (found: "multi-factor authentication")',
    );
    expect(topicTerms('RBAC', { texts: ['Pricing.'] }).lookedFor()).toContain('spell RBAC (none found)');
  });
});

describe('a multi-word topic matches its acronym written in capitals', () => {
  it.each([
    ['multi-factor authentication', 'Is MFA enforced for every user?'],
    ['role-based access control', 'RBAC is table stakes for us.'],
    ['enterprise resource planning', 'We sync orders to our ERP nightly.'],
    ['customer relationship management', 'Which CRMs do you integrate with?'],
  ])('%s in %j', (topic, text) => {
    expect(about(topic, [text, 'Nothing about that here.'])).toEqual([text]);
  });

  it('not in lower case, and not inside another word', () => {
    expect(about('enterprise resource planning', ['the erp thing', 'INTERPRETER notes', 'ERPNext is ours'])).toEqual(
      [],
    );
  });
});

describe('what is not the acronym', () => {
  it('letters starting words across a sentence boundary or around a stopword spell nothing', () => {
    expect(phrasesSpelling('We asked for more. Factor analysis later.', 'MFA')).toEqual([]);
    expect(phrasesSpelling('Reps book a call with us.', 'RBAC')).toEqual([]);
    expect(phrasesSpelling('Managers, finance, auditors all agree.', 'MFA')).toEqual([]);
    expect(about('RBAC', ['Reps book a call.', 'Rachel, Bob, Anna: call me.'])).toEqual([]);
  });

  it('"IT" is not the pronoun "it", and two initials met by chance once are not IT', () => {
    const texts = ['It works, and it is fast.', 'IT signs off on Friday.', 'Our integration timeline slipped.'];
    expect(about('IT', texts)).toEqual(['IT signs off on Friday.']);
    const twice = [...texts, 'The information technology team agrees.', 'Information technology owns it.'];
    expect(about('IT', twice)).toEqual([twice[1], twice[3], twice[4]]);
  });

  it('in prose only capitals tell an acronym: a greeting is no "HI" for "hearing internally"', () => {
    const heard = ['What I am hearing internally is that pricing is fine.', 'Hearing internally, the CFO is in.'];
    expect(about('Hi Dana, teams told us onboarding took weeks', heard)).toEqual([]);
    expect(about('hi', heard)).toEqual(heard);
  });

  it('a word in capitals is an acronym itself, never a word of a phrase', () => {
    expect(phrasesSpelling('We need SAML single sign-on.', 'SSSO')).toEqual([]);
  });
});

describe('stems as before', () => {
  it('a text sharing a stem with the topic matches, whatever else', () => {
    expect(about('Slack alerts', ['Can alerting go to Slack?', 'An alert per deal.', 'Teams only.'])).toEqual([
      'Can alerting go to Slack?',
      'An alert per deal.',
    ]);
  });

  it('counts each acronym held once per time it is said, beside the stems', () => {
    const terms = topicTerms('SSO', { texts: ['single sign-on and, later, single sign-on again'] });
    expect(terms.acronymsIn('single sign-on and, later, single sign-on again').map((a) => a.letters)).toEqual([
      'SSO',
      'SSO',
    ]);
  });
});
