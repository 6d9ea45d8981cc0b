import { z } from 'zod';
import { parseOrThrow } from '../../../../platform/validation.js';
import type { ConnectorServices, PushOutcome } from '../../connector.js';
import { configOf, DEFAULT_COMMS_FILTER, judgeCall } from '../../filters.js';
import { linkRosters, writeInteractions, type InteractionDraft, type RosterMember } from '../../interaction-ingest.js';
import { updateConnection, type ConnectionRow } from '../../repository.js';
import { touchFreshness } from '../../sync.js';
import {
  embedTranscripts,
  sentencesOf,
  withTranscripts,
  writeTranscripts,
  type EmbeddedTranscript,
} from '../../transcript-ingest.js';

/**
 * The webhook source's pushes (verified by push-route.ts): calls (with transcripts) and emails the
 * workspace's own systems send. Items are upserted on their
 * `id` (a redelivered push changes nothing), filtered like synced ones (call filters for calls,
 * the comms filter for emails), written in one transaction with their transcripts embedded, and
 * counted in the answer.
 */
/** Each webhook connection is its own source: two pushing systems may well use the same ids. */
export const webhookSource = (connectionId: string) => `webhook:${connectionId}`;
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

export async function ingestPush(
  services: ConnectorServices,
  connection: ConnectionRow,
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

/** A verified push's body: parsed (a bad item is 400 naming it, and nothing is written), then ingested. */
export function receiveCallsAndEmails(
  services: ConnectorServices,
  connection: ConnectionRow,
  body: unknown,
): Promise<PushOutcome> {
  return ingestPush(services, connection, parseOrThrow(PushBody, body).items);
}
