import type { ArtifactType } from '../evals/definition.js';
import { splitSubject, wordsOf } from '../evals/index.js';

export const CHANNELS = ['email', 'linkedin', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * The channel of a draft when the caller does not say: a subject line or a greeting-and-sign-off
 * letter is an email; a short note without a sign-off a WhatsApp message; anything else of
 * LinkedIn length a LinkedIn message; longer text an email.
 */
export function inferChannel(message: string): Channel {
  const { subject, body } = splitSubject(message);
  if (subject) return 'email';
  const greeting = /^(hi|hello|hey|dear)\b/i.test(body.trim());
  const signoff = /\n\s*(thanks|thank you|best|regards|cheers|sincerely)\b[^\n]*\s*(\n[^\n]{1,40})?\s*$/i.test(body);
  if (greeting && signoff) return 'email';
  const words = wordsOf(body).length;
  if (!signoff && words <= 50) return 'whatsapp';
  return words <= 200 ? 'linkedin' : 'email';
}

/** The eval rubric's artifact type for a channel (WhatsApp has no rubric of its own: `other`). */
export const artifactTypeOf = (channel: Channel): ArtifactType => (channel === 'whatsapp' ? 'other' : channel);
