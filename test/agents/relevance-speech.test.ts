import { describe, expect, it } from 'vitest';
import { isOnTopic, relevanceScore, spokenContent, topicOf } from '../../functions/agents/relevance.js';

/**
 * The relevance check on spoken turns (functions/agents/relevance.ts): turns as meeting transcripts
 * write them (the QMSum meetings of test-data/qmsum), with their transcription marks, hesitations and
 * names spelled letter by letter.
 */

const topic = (question: string) => {
  const t = topicOf(question);
  if (!t) throw new Error(`no topic in "${question}"`);
  return t;
};

describe('a spoken turn on the topic', () => {
  it('is kept when it names the topic letter by letter, as transcripts spell it', () => {
    const asked = topic('Why did the group decide not to go for an LCD?');
    const turn =
      "'cause the L_C_D_ tends to be an output as uh as opposed to an input so um does the remote control need to talk back to the user ?";
    expect(isOnTopic(asked, turn)).toBe(true);
    expect(
      isOnTopic(topic('How will you connect the TV to the internet?'), 'Like what ? Like T_V_ on the {disfmarker}'),
    ).toBe(true);
  });

  it('is kept when it says the topic word in another part of speech', () => {
    expect(
      isOnTopic(
        topic('What did the group think of the importance of technology?'),
        'Or whatever would be technologically reasonable .',
      ),
    ).toBe(true);
    expect(
      isOnTopic(
        topic('What are the advantages of voice recognition?'),
        "Um {vocalsound} it'd be good if it recognised who's speaking {disfmarker} you know .",
      ),
    ).toBe(true);
  });

  it('does not match words that only begin alike', () => {
    expect(isOnTopic(topic('What did they say about the contract?'), 'The contrast on the screen is poor .')).toBe(
      false,
    );
  });
});

describe('a filler', () => {
  it('is dropped: a short reply is not on a topic by a chance likeness of its letters', () => {
    expect(relevanceScore(topic('Summarize the discussion about the education situation.'), 'Thank you.')).toBeLessThan(
      0.15,
    );
    expect(
      relevanceScore(
        topic('What was the conclusion on the target group and its corresponding functionalities?'),
        'Of course yeah .',
      ),
    ).toBeLessThan(0.15);
  });

  it('is dropped when it is only sounds and transcription marks', () => {
    expect(
      relevanceScore(topic('What are the advantages and disadvantages of voice recognition?'), 'Um {disfmarker}'),
    ).toBe(0);
    expect(spokenContent('Mm-hmm . {vocalsound} Uh , yeah .').replace(/[\s.,-]/g, '')).toBe('yeah');
  });
});
