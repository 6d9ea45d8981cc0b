import { beforeAll, describe, expect, it } from 'vitest';
import { loadRequestTagger, requestObjectOf } from '../../functions/agents/understanding/request-language.js';

/**
 * What a customer's sentence asks for: the thing asked for, never a fragment of a word the request
 * language ended inside, a person or team, a rival, a date or an event.
 */
beforeAll(loadRequestTagger);

const keyOf = (sentence: string) => requestObjectOf(sentence)?.key ?? null;

describe('requestObjectOf', () => {
  it('reads request language to a word end: "can admins", "need at least" are not "can a" and "need a"', () => {
    expect(keyOf('Honestly, can admins export the transcripts to a shared drive?')).toBe('transcript');
    expect(keyOf('We would need at least a 15 percent discount to get this over the line.')).toBeNull();
  });

  it('reads the thing that must do or be something as what is asked for', () => {
    expect(
      keyOf(
        'Just so you know, the dashboards need to filter by segment, or the managers will keep using spreadsheets.',
      ),
    ).toBe('dashboard');
    expect(keyOf('The Slack alerts need to be quiet enough that people do not mute the channel.')).toBe('slack');
    // A name after the requirement is still what it is about.
    expect(keyOf('Our integration needs to read transcripts through the API within minutes of the call.')).toBe('api');
  });

  it('never reads who asks, or when, as what', () => {
    expect(keyOf('Honestly, we want to roll this out to the customer success team as well.')).toBeNull();
    expect(keyOf('We need to be live before sales kickoff in November; is that realistic?')).toBeNull();
    expect(keyOf('Regional managers should see their region, and only the VP sees everything.')).toBe('region');
  });

  it('reads an ask a count of seats or licences explains as the deal growing, not a feature', () => {
    expect(keyOf('The other thing is, the EMEA team asked for access, so we may need another 38 seats.')).toBeNull();
    expect(keyOf('We want onboarding for the new hires; that is twenty more licences in January.')).toBeNull();
    expect(keyOf('Can we get 5 extra logins for the contractors?')).toBeNull();
    // A product named as the ask is still asked for, and a count of something else is no purchase.
    expect(keyOf('We need SSO before we add 40 seats.')).toBe('sso');
    expect(keyOf('It would be great to get access to the call recordings from the last 3 years.')).not.toBeNull();
  });

  it('reads a noun after "can a" as the thing, and the word after it as its verb', () => {
    expect(keyOf('Quick one: can a report show which deals have not had a call in the last two weeks?')).toBe('report');
  });
});
