import { z } from '@hono/zod-openapi';

/**
 * The source kinds a subscription can watch, each with the schema of its `config`. The kinds
 * catalog (GET /subscriptions/kinds) is derived from these schemas, so a field documented there is
 * exactly a field the write accepts.
 */

/** Longest lead time a calendar subscription takes: a week before the event. */
export const MAX_LEAD_MINUTES = 7 * 24 * 60;

export const CalendarEventUpcomingConfigSchema = z
  .object({
    connection_id: z.uuid().describe('The google_calendar connection to watch; it must belong to this workspace.'),
    calendar_id: z
      .string()
      .trim()
      .min(1)
      .max(320)
      .default('primary')
      .describe('The Google calendar id to read (default `primary`, the connected member’s own calendar).'),
    lead_minutes: z
      .number()
      .int()
      .min(0)
      .max(MAX_LEAD_MINUTES)
      .describe(
        `Minutes before the event start to fire (360 = 6 hours; at most ${MAX_LEAD_MINUTES}). One subscription, one lead time.`,
      ),
    summary_contains: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Only events whose title contains this text (case-insensitive).'),
    require_attendees: z
      .boolean()
      .default(false)
      .describe('Only events with at least one attendee besides the calendar’s owner (rooms do not count).'),
  })
  .strict();
export type CalendarEventUpcomingConfig = z.infer<typeof CalendarEventUpcomingConfigSchema>;

export const SOURCE_KINDS = ['calendar.event_upcoming'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

interface KindDefinition {
  name: string;
  description: string;
  config: z.ZodObject;
  /** What the kind's fires follow, in words (timing, dedupe, caps). */
  timing: string;
}

export const KINDS: Record<SourceKind, KindDefinition> = {
  'calendar.event_upcoming': {
    name: 'Upcoming calendar event',
    description:
      'Fires a configurable lead time before each event on a connected Google Calendar; the fired turn carries the event (title, start, organizer, attendees) and the account its attendees’ email domains match.',
    config: CalendarEventUpcomingConfigSchema,
    timing:
      'Due at max(now, start − lead): an event found inside its lead window fires at once; one whose start has passed never fires. ' +
      'One fire per (event, start, lead). A rescheduled event cancels its pending fire and plans one for the new start; a cancelled event cancels it. ' +
      'The calendar is read every 5 minutes, up to 24 hours past the lead window.',
  },
};

export const isSourceKind = (kind: string): kind is SourceKind => kind in KINDS;

/** One config field of a kind, as the catalog describes it. */
export interface KindField {
  key: string;
  type: string;
  required: boolean;
  description: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

/** The catalog entry of a kind: its config fields read off its schema (JSON Schema, input side). */
export function describeKind(kind: SourceKind) {
  const definition = KINDS[kind];
  const json = z.toJSONSchema(definition.config, { io: 'input' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  const fields: KindField[] = Object.entries(json.properties ?? {}).map(([key, p]) => ({
    key,
    type: typeof p.format === 'string' ? `${String(p.type)} (${p.format})` : String(p.type),
    required: required.has(key),
    description: typeof p.description === 'string' ? p.description : '',
    ...('default' in p ? { default: p.default } : {}),
    ...(typeof p.minimum === 'number' ? { minimum: p.minimum } : {}),
    ...(typeof p.maximum === 'number' ? { maximum: p.maximum } : {}),
  }));
  return { kind, name: definition.name, description: definition.description, timing: definition.timing, fields };
}
