import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { newId } from '../../platform/ids.js';
import { checkWebhookUrlSyntax } from '../../platform/net/webhook-url.js';
import { ApiError } from '../../platform/errors.js';
import { webhookDeliveries, webhooks } from '../../schema/webhooks.js';
import { DeliveryRunInputSchema, WEBHOOK_DELIVERY_KIND, type DeliveryRunInput } from './events.js';
import { attemptsSoFar } from './repository.js';
import { webhookHeaders } from './signing.js';
import { urlPolicyFor } from './url-policy.js';
import type { Services } from '../services.js';
import { definePipeline, type StageResult, type TypedStageContext } from '../../queues/pipeline.js';

/** Each attempt waits this long for a 2xx. */
export const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * Delays before the 2nd, 3rd, ... attempt (the Standard Webhooks schedule): 8 attempts spread over
 * about 27.6 hours — 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;

/**
 * One event to one webhook. Each attempt is one stage execution: it re-checks the URL (DNS can
 * change), signs with a fresh timestamp, POSTs with a 15 s timeout, and commits the recorded
 * attempt with the run's next step. 2xx succeeds; 410 Gone disables the webhook; anything else is
 * retried on the schedule. Delivery is at-least-once: a crash after the POST and before the commit
 * sends again, with the same `webhook-id`, which receivers use to deduplicate.
 */
type DeliveryState = { tries: number };
type DeliveryContext = TypedStageContext<Services, DeliveryRunInput, DeliveryState>;

async function deliver(ctx: DeliveryContext): Promise<StageResult<DeliveryState>> {
  const { services, run, input } = ctx;
  const [hook] = await services.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, run.workspaceId), eq(webhooks.id, input.webhook_id)));
  if (!hook) return { complete: true, output: { outcome: 'skipped', reason: 'webhook_deleted' } };
  if (!hook.active) return { complete: true, output: { outcome: 'skipped', reason: 'webhook_inactive' } };

  const tries = ctx.state.tries + 1;
  const policy = urlPolicyFor(services.config);
  const body = JSON.stringify(input.envelope);
  let statusCode: number | null = null;
  let error: string | null = null;
  let durationMs: number | null = null;
  try {
    checkWebhookUrlSyntax(hook.url, policy);
    const secret = await services.secretBox.open(hook.secretSealed);
    const timestamp = Math.floor(services.clock.now().getTime() / 1000);
    const result = await services.outbound.send({
      method: 'POST',
      url: hook.url,
      headers: await webhookHeaders(secret, input.envelope.id, timestamp, body),
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      allowLoopback: policy.allowLoopback,
      // The status is the answer; a receiver's body is not read beyond a little.
      maxResponseBytes: 4_096,
    });
    durationMs = result.durationMs;
    if (result.ok) {
      statusCode = result.status;
      if (result.status < 200 || result.status >= 300) error = `HTTP ${result.status}`;
    } else {
      error = `${result.error}: ${result.detail}`;
    }
  } catch (e) {
    error = e instanceof ApiError ? `blocked: ${e.message}` : 'internal: could not prepare the delivery';
  }
  await ctx.checkpoint();

  const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const gone = statusCode === 410;
  const previous = await attemptsSoFar(services.db, hook.id, input.envelope.id);
  const now = services.clock.now();
  const effects = async ({ tx }: { tx: Parameters<NonNullable<StageResult['effects']>>[0]['tx'] }) => {
    await tx.insert(webhookDeliveries).values({
      id: newId(),
      workspaceId: run.workspaceId,
      webhookId: hook.id,
      eventId: input.envelope.id,
      event: input.envelope.type,
      payload: input.envelope as unknown as Record<string, unknown>,
      statusCode,
      attempt: previous + 1,
      error,
      runId: run.id,
      durationMs,
      createdAt: now,
    });
    if (gone) {
      await tx
        .update(webhooks)
        .set({ active: false, disabledReason: 'gone', updatedAt: now })
        .where(eq(webhooks.id, hook.id));
    }
  };
  const output = { outcome: succeeded ? 'delivered' : gone ? 'gone' : 'failed', status_code: statusCode, error, tries };
  const events = [{ type: 'webhook.attempt', data: { tries, status_code: statusCode, error } }];
  if (succeeded) return { complete: true, output, effects, events, state: { tries } };
  if (gone) return { complete: true, output, effects, events, state: { tries } };
  const delay = RETRY_SCHEDULE_SECONDS[tries - 1];
  if (delay === undefined) {
    return {
      fail: {
        code: 'delivery_exhausted',
        message: `No 2xx after ${tries} attempts; last error: ${error ?? 'unknown'}.`,
      },
      effects,
      events,
      state: { tries },
    };
  }
  return { next: 'deliver', delaySeconds: delay, output, effects, events, state: { tries } };
}

export const webhookDeliveryPipeline = definePipeline<Services, DeliveryRunInput, DeliveryState>({
  kind: WEBHOOK_DELIVERY_KIND,
  input: DeliveryRunInputSchema,
  state: z.object({ tries: z.number().int().min(0).default(0) }),
  stages: { deliver },
  deadlineMs: DELIVERY_TIMEOUT_MS + 10_000,
  retry: { maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 60_000 },
});
