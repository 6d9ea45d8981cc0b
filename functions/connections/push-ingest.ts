import { Hono } from 'hono';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { timingSafeEqual } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { assertStorableText } from '../../platform/storable-text.js';
import { parseOrThrow } from '../../platform/validation.js';
import { connections } from '../../schema/index.js';
import { API_PREFIX, type AppEnv } from '../http/env.js';
import { readBodyBytes } from '../http/json-body.js';
import type { Services } from '../services.js';
import { signWebhook } from '../webhooks/signing.js';
import { DEFAULT_COMMS_FILTER } from './calendar-ingest.js';
import { configOf, judgeCall, type CallVerdict } from './filters.js';
import { updateConnection } from './repository.js';
import { linkRosters, writeInteractions, type InteractionDraft, type RosterMember } from './interaction-ingest.js';
import { pausedReason, SealedCredentials } from './sync-sources.js';
import { touchFreshness } from './sync.js';
import {
  embedTranscripts,
  sentencesOf,
  withTranscripts,
  writeTranscripts,
  type EmbeddedTranscript,
} from './transcript-ingest.js';

/**
 * The webhook source: a workspace's own systems push calls (with transcripts) and emails to the
 * connection's ingest URL, signed with the connection's secret the Standard Webhooks way
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`; the secret is
 * shown once, at connect or reconnect). The signature is the credential: no API key is needed,
 * and anything unverifiable is refused before the body is read as data. Items are upserted on their
 * `id` (a redelivered push changes nothing), filtered like synced ones (call filters for calls,
 * the comms filter for emails), written in one transaction with their transcripts embedded, and
 * counted in the answer. A paused source (no call filter decision yet) refuses pushes with 409.
 */
/** Each webhook connection is its own source: two pushing systems may well use the same ids. */
export const webhookSource = (connectionId: string) => `webhook:${connectionId}`;
export const INGEST_PATH = `${API_PREFIX}/connections/:id/ingest`;
export const ingestUrl = (services: Services, id: string) =>
  `${services.config.publicUrl}${API_PREFIX}/connections/${id}/ingest`;
/** Pushes older or newer than this (replays, skewed clocks) are refused. */
const TOLERANCE_SECONDS = 5 * 60;
const MAX_ITEMS = 100;

const Participant = z
  .object({
    email: z.string().trim().toLowerCase().email().optional(),
    name: z.string().trim().max(200).optional(),
    side: z.enum(['internal', 'external']),
  })
  .strict();
const Turn = z
  .object({
    speaker_email: z.string().trim().toLowerCase().email().optional(),
    speaker_name: z.string().trim().max(200).optional(),
    side: z.enum(['internal', 'external']),
    start_seconds: z.number().min(0).optional(),
    end_seconds: z.number().min(0).optional(),
    text: z.string().trim().min(1).max(20_000),
  })
  .strict();
const CallItem = z
  .object({
    type: z.literal('call'),
    id: z.string().trim().min(1).max(200),
    title: z.string().trim().min(1).max(500),
    started_at: z.iso.datetime({ offset: true }),
    duration_seconds: z.number().int().min(0).max(86_400).optional(),
    summary: z.string().trim().max(5_000).optional(),
    participants: z.array(Participant).max(200),
    transcript: z.array(Turn).max(5_000).optional(),
  })
  .strict();
const EmailItem = z
  .object({
    type: z.literal('email'),
    id: z.string().trim().min(1).max(200),
    subject: z.string().trim().max(998),
    sent_at: z.iso.datetime({ offset: true }),
    direction: z.enum(['inbound', 'outbound']),
    thread_id: z.string().trim().max(200).optional(),
    body: z.string().max(200_000),
    participants: z.array(Participant).max(200),
  })
  .strict();
export const PushBody = z
  .object({
    items: z
      .array(z.discriminatedUnion('type', [CallItem, EmailItem]))
      .min(1)
      .max(MAX_ITEMS),
  })
  .strict();
export type PushItem = z.infer<typeof PushBody>['items'][number];

async function verify(
  services: Services,
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: string,
): Promise<void> {
  if (!headers.id || !headers.timestamp || !headers.signature) {
    throw new ApiError(
      'unauthenticated',
      'A push must be signed: webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).',
      { required_headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature'] },
    );
  }
  const timestamp = Number(headers.timestamp);
  const now = Math.floor(services.clock.now().getTime() / 1000);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > TOLERANCE_SECONDS) {
    throw new ApiError('invalid_token', `webhook-timestamp is more than ${TOLERANCE_SECONDS} s away from now.`, {
      reason: 'timestamp',
    });
  }
  const expected = await signWebhook(secret, headers.id, timestamp, body);
  const offered = headers.signature.split(' ').filter((s) => s.startsWith('v1,'));
  if (!offered.some((s) => timingSafeEqual(s, expected)))
    throw new ApiError('invalid_token', 'webhook-signature does not match this connection\u2019s secret.', {
      reason: 'signature',
    });
}

export interface PushOutcome {
  accepted: number;
  written: number;
  dropped: Partial<Record<Exclude<CallVerdict, { keep: true }>['reason'], number>>;
}

export async function ingestPush(
  services: Services,
  connection: typeof connections.$inferSelect,
  items: readonly PushItem[],
): Promise<PushOutcome> {
  const SOURCE = webhookSource(connection.id);
  const config = configOf(connection.config);
  const callRules = config.call_filters;
  const emailRules = { enabled: true, reps: [], ...(config.comms_filter ?? DEFAULT_COMMS_FILTER) };
  const dropped: PushOutcome['dropped'] = {};
  const kept: { item: PushItem; draft: InteractionDraft }[] = [];
  for (const item of items) {
    const roster: RosterMember[] = item.participants.map((p) => ({
      name: p.name ?? null,
      email: p.email ?? null,
      side: p.side,
    }));
    const verdict = judgeCall(
      roster,
      item.type === 'call'
        ? (callRules ?? {
            enabled: false,
            external_only: false,
            reps: [],
            exclude_participants: [],
            exclude_domains: [],
          })
        : emailRules,
    );
    if (!verdict.keep) {
      dropped[verdict.reason] = (dropped[verdict.reason] ?? 0) + 1;
      continue;
    }
    kept.push({
      item,
      draft:
        item.type === 'call'
          ? {
              externalId: item.id,
              kind: 'call',
              title: item.title,
              occurredAt: new Date(item.started_at),
              durationSeconds: item.duration_seconds ?? null,
              summary: item.summary ?? null,
              participants: roster,
            }
          : {
              externalId: item.id,
              kind: 'email',
              title: item.subject || '(no subject)',
              occurredAt: new Date(item.sent_at),
              durationSeconds: null,
              summary: null,
              participants: roster,
              direction: item.direction,
              threadId: item.thread_id ?? null,
              body: item.body,
            },
    });
  }
  const calls = kept.filter((k) => k.item.type === 'call' && k.item.transcript && k.item.transcript.length > 0);
  const [stored, links] = await Promise.all([
    withTranscripts(
      services.db,
      connection.workspaceId,
      SOURCE,
      calls.map((k) => k.item.id),
    ),
    linkRosters(
      services.db,
      connection.workspaceId,
      kept.map((k) => k.draft.participants),
    ),
  ]);
  const toEmbed = calls.filter((k) => !stored.has(k.item.id));
  const embedded = await embedTranscripts(
    services.embedder,
    { db: services.db, workspaceId: connection.workspaceId },
    toEmbed.map((k) =>
      (k.item.type === 'call' ? (k.item.transcript ?? []) : []).map((t) => ({
        speaker: t.speaker_name ?? null,
        email: t.speaker_email ?? null,
        side: t.side,
        startedAt: t.start_seconds ?? null,
        endedAt: t.end_seconds ?? null,
        sentences: sentencesOf(t.text),
      })),
    ),
  );
  const transcriptOf = new Map<string, EmbeddedTranscript>(
    toEmbed.map((k, i) => [k.item.id, embedded[i] as EmbeddedTranscript]),
  );
  const now = services.clock.now();
  const latest = kept.reduce<Date | null>((a, k) => (!a || k.draft.occurredAt > a ? k.draft.occurredAt : a), null);
  await services.db.transaction(async (tx) => {
    const idOf = await writeInteractions(
      tx,
      connection.workspaceId,
      SOURCE,
      kept.map((k) => k.draft),
      links,
    );
    await writeTranscripts(
      tx,
      connection.workspaceId,
      services.embedder.id,
      kept.flatMap((k) => {
        const transcript = transcriptOf.get(k.item.id);
        const interactionId = idOf.get(k.item.id);
        return transcript && interactionId ? [{ interactionId, occurredAt: k.draft.occurredAt, transcript }] : [];
      }),
    );
    await updateConnection(tx, connection, { lastSyncedAt: now, updatedAt: now });
    if (kept.length > 0)
      await touchFreshness(tx, connection.workspaceId, SOURCE, 'interactions', {
        latestEventAt: latest,
        ingestAt: now,
        syncAt: now,
      });
  });
  return { accepted: items.length, written: kept.length, dropped };
}

/** `POST /connections/{id}/ingest`: outside the API's credential check (the signature is the credential). */
export function connectionIngestRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(INGEST_PATH, async (c) => {
    const services = c.get('services');
    const id = c.req.param('id');
    // One answer for an unknown id, another workspace's, a disconnected one, or a source that is not pushed.
    const notFound = new ApiError('not_found', 'No webhook connection at this URL.', { id });
    const [connection] = isUuid(id) ? await services.db.select().from(connections).where(eq(connections.id, id)) : [];
    if (
      connection?.connectorType !== 'call_webhook' ||
      connection.status !== 'connected' ||
      !connection.credentialsSealed
    )
      throw notFound;
    const secret = SealedCredentials.parse(
      JSON.parse(await services.secretBox.open(connection.credentialsSealed)),
    ).signing_secret;
    if (!secret) throw notFound;
    const body = new TextDecoder().decode(await readBodyBytes(c));
    await verify(
      services,
      secret,
      {
        id: c.req.header('webhook-id'),
        timestamp: c.req.header('webhook-timestamp'),
        signature: c.req.header('webhook-signature'),
      },
      body,
    );
    if (pausedReason(connection))
      throw new ApiError(
        'conflict',
        'This source is paused until a workspace admin saves a call filter decision (PUT /connections/{id}/call-filters); push again after.',
        { paused_reason: pausedReason(connection) },
      );
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new ApiError('invalid_argument', 'The push body is not JSON.', { body: 'malformed_json' });
    }
    // After the signature (an unsigned push learns nothing), before anything is written: text the
    // database cannot store is a 400 naming the field, not a failed insert.
    assertStorableText(json);
    const push = parseOrThrow(PushBody, json);
    return c.json({ data: await ingestPush(services, connection, push.items) }, 200);
  });
  return app;
}
