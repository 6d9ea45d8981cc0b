import { z } from 'zod';
import type { ModelTask } from '../../platform/model/port.js';
import { asksIn, splitSubject } from '../evals/index.js';

/**
 * Receiver facts read from a draft (spec: `extraction`): only what the draft itself says, and a
 * field the draft does not state is absent, never guessed.
 */
export const ExtractionSchema = z
  .object({
    recipient_name: z.string().max(200).optional(),
    recipient_company: z.string().max(200).optional(),
    recipient_role: z.string().max(200).optional(),
    topic: z.string().max(300).optional(),
    ask: z.string().max(500).optional(),
  })
  .strict();
export type Extraction = z.infer<typeof ExtractionSchema>;

const ROLE =
  /\b(CEO|CTO|CFO|COO|CIO|CRO|CMO|VP(?: of)? [A-Z][a-z]+(?: [A-Z][a-z]+)?|Head of [A-Z][a-z]+(?: [A-Z][a-z]+)?|Director of [A-Z][a-z]+(?: [A-Z][a-z]+)?|[A-Z][a-z]+ (?:Manager|Lead|Director))\b/;

export function extractLocally(message: string): Extraction {
  const { subject, body } = splitSubject(message);
  const out: Extraction = {};
  const greeting =
    /^(?:[Hh]i|[Hh]ello|[Hh]ey|[Dd]ear)[ \t]+([A-Z][a-zA-Z'-]+)(?:[ \t]+([A-Z][a-zA-Z'-]+))?[ \t]*[,!]/m.exec(body);
  if (greeting?.[1] && !/^(there|all|team|everyone|folks)$/i.test(greeting[1]) && greeting[2] !== 'Team') {
    out.recipient_name = greeting[2] ? `${greeting[1]} ${greeting[2]}` : greeting[1];
  }
  // The receiver's company only where the draft ties it to them ("Hi Acme team", "your team at Acme"),
  // never "at DataSpark" alone, which is as often the sender's own.
  const company =
    /^(?:[Hh]i|[Hh]ello|[Dd]ear)[ \t]+([A-Z][\w&-]*(?:[ \t]+[A-Z][\w&-]*)*)[ \t]+team\b/m.exec(body)?.[1] ??
    /\byour(?: [a-z]+){0,3} at ([A-Z][\w&-]*(?:[ \t]+[A-Z][\w&-]*){0,3})/.exec(body)?.[1];
  if (company) out.recipient_company = company;
  const role = ROLE.exec(body);
  if (role?.[1]) out.recipient_role = role[1];
  if (subject) out.topic = subject;
  const ask = asksIn(body).at(-1);
  if (ask) out.ask = ask.trim();
  return out;
}

export const extractTask: ModelTask<{ message: string }, Extraction> = {
  name: 'messages.extract',
  instructions:
    'Read the outbound sales message and return what it says about its receiver: recipient_name, recipient_company, recipient_role, topic, ask (the request it ends with). ' +
    'Only what the message states; omit any field it does not state. Never guess.',
  input: z.object({ message: z.string() }),
  output: ExtractionSchema,
  local: (input) => extractLocally(input.message),
};
