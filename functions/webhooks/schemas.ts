import { z } from '@hono/zod-openapi';
import { isoTimestamp, pagingQuery } from '../schemas.js';
import { WEBHOOK_EVENTS } from './events.js';

export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS).openapi({ description: 'An event the webhook receives.' });

const eventsField = z
  .array(WebhookEventSchema)
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .refine((events) => new Set(events).size === events.length, 'events must not repeat');

export const WebhookSchema = z
  .object({
    id: z.uuid(),
    business_id: z.uuid(),
    user_id: z.uuid().openapi({ description: 'Who registered it.' }),
    url: z.url(),
    events: z.array(WebhookEventSchema),
    active: z.boolean(),
    disabled_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the service turned it off (e.g. "gone": the endpoint answered 410).' }),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('Webhook');

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().openapi({ description: 'The signing secret (whsec_...). Returned only here, once.' }),
}).openapi('CreatedWebhook');

export const WebhookDeliverySchema = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    event_id: z.string().openapi({ description: 'The event id, sent as webhook-id; the same on every attempt.' }),
    event: z.string(),
    payload: z.record(z.string(), z.unknown()),
    status_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The endpoint's HTTP status; null when no response arrived." }),
    attempt: z.number().int().min(1),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    created_at: isoTimestamp(),
  })
  .openapi('WebhookDelivery');

export const webhookIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }).strict();

export const CreateWebhookBody = z
  .object({
    url: z.string().min(1).openapi({
      description: 'https URL (http only to loopback when ALLOW_LOOPBACK_WEBHOOKS=1).',
      example: 'https://hooks.example.com/cip',
    }),
    events: eventsField,
  })
  .strict();

export const UpdateWebhookBody = z
  .object({ url: z.string().min(1).optional(), events: eventsField.optional(), active: z.boolean().optional() })
  .strict()
  .refine(
    (b) => b.url !== undefined || b.events !== undefined || b.active !== undefined,
    'send at least one of url, events, active',
  );

export const pagingParams = z.object(pagingQuery).strict();

export const QueuedDeliverySchema = z
  .object({
    webhook_id: z.uuid(),
    event_id: z.string(),
    event: z.string(),
    run_id: z
      .uuid()
      .openapi({ description: 'The delivery run; its attempts appear under GET /webhooks/{id}/deliveries.' }),
    status: z.literal('queued'),
  })
  .openapi('QueuedWebhookDelivery');
