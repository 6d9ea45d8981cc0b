import { sharedStems, stemsOf } from './text.js';

/**
 * Whether a quote backs the message or cuts against it (local reading): a quote cuts against it
 * when it rejects or plays down something the message is about (a refusal marker in a quote that
 * shares a topic word with the message). Everything else retrieved for the message supports it.
 */
const REJECTIONS = [
  'not a priority',
  "don't need",
  'do not need',
  "doesn't need",
  'no budget',
  'too expensive',
  'not worth',
  'happy with',
  'already have',
  'already use',
  "won't",
  'not interested',
  "isn't a problem",
  'is not a problem',
  'not an issue',
  'works fine',
  'no plans',
  'not planning',
  'not a fit',
  'overkill',
  'no need',
];

export function stanceOf(quote: string, message: string): 'supports' | 'contradicts' {
  const lower = quote.toLowerCase();
  const rejects = REJECTIONS.some((r) => lower.includes(r));
  if (!rejects) return 'supports';
  return sharedStems(stemsOf(quote), stemsOf(message)).length > 0 ? 'contradicts' : 'supports';
}
