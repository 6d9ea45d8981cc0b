import { z } from 'zod';
import type { ModelTask } from '../../platform/model/port.js';

/**
 * `mode: auto` (spec): filters with no free text go to the filter lane; meaning-shaped wording
 * (how customers feel, what they say about, why they hesitate) goes to the semantic lane; everything
 * else (lookups: names, dates, kinds, quoted phrases, counts) to the fuzzy lane. A model task, so a
 * configured model can judge; the local implementation reads cue words.
 */
const MEANING_CUES =
  /\b(why|feel(s|ing)?|felt|think|thought|say(s|ing)? about|said about|talk(ed|ing)? about|complain\w*|worr(y|ied|ies)|concern(s|ed)?|frustrat\w*|pain( points?)?|struggl\w*|hesitat\w*|objection\w*|push ?back|love[sd]?|hate[sd]?|like about|dislike\w*|sentiment|percei\w+|perception|experience with|opinions?|react(ion|ed)?s?|fear\w*|afraid|excite\w*|happy|unhappy|disappoint\w*|confus\w*|trust|risk(s|y)?|blocker\w*|need(s|ed)? from|wish(es|ed)?|expect\w*)\b/i;
const HOW_QUESTION =
  /^\s*(how|what|which)\b.*\b(customers?|buyers?|prospects?|clients?|users?|they|people|champions?)\b/i;
const LOOKUP_CUES =
  /("[^"]+")|\b(how many|count|number of|list|show me|find (the )?(call|email|meeting|post)s?|last (week|month|quarter|year)|this (week|month|quarter|year)|yesterday|today|since|between|before|after|q[1-4]|(19|20)\d{2}|jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(tember)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;

export function classifyQueryShape(query: string): 'meaning' | 'lookup' {
  const meaning = MEANING_CUES.test(query) || HOW_QUESTION.test(query);
  if (!meaning) return 'lookup';
  return LOOKUP_CUES.test(query) ? 'lookup' : 'meaning';
}

export const routeTask: ModelTask<{ query: string }, { shape: 'meaning' | 'lookup' }> = {
  name: 'search.route',
  instructions:
    'Classify a search query over sales calls, meetings, emails and public social posts. Answer {"shape":"meaning"} when it asks what customers think, feel, want, fear or say about something (best answered by meaning-based matching of what they said); answer {"shape":"lookup"} when it looks for specific records (names, dates, kinds, counts, exact phrases).',
  input: z.object({ query: z.string() }),
  output: z.object({ shape: z.enum(['meaning', 'lookup']) }),
  local: ({ query }) => ({ shape: classifyQueryShape(query) }),
};
