import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../functions/identity/members.js';
import type { PgliteHandle } from '../platform/db/pglite.js';
import { queryRows } from '../platform/db/port.js';
import { LocalHashEmbedder } from '../platform/model/local.js';
import { ACCOUNT_TYPES, accounts, demoCorpusLoads } from '../schema/index.js';
import { corpusTimeline, generateCorpus, THEMES, type Corpus } from '../functions/embedded/demo/corpus-generator.js';
import { CorpusLoadError, loadDemoCorpus, type LoadCorpusResult } from '../functions/embedded/demo/load-corpus.js';
import { seedDemoWorkspace } from '../functions/embedded/demo-seed.js';
import { openTestDatabase } from './support/harness.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const DAY = 86_400_000;
const embedder = new LocalHashEmbedder();

const fingerprint = (corpus: Corpus): string => createHash('sha256').update(JSON.stringify(corpus)).digest('hex');

const WAREHOUSE_TABLES = [
  'accounts',
  'contacts',
  'deals',
  'deal_qualification',
  'interactions',
  'participants',
  'transcript_turns',
  'utterances',
  'themes',
  'excluded_interactions',
  'source_freshness',
] as const;

describe('demo corpus generator (in memory)', () => {
  let corpus: Corpus;
  let workspaceId: string;

  beforeAll(() => {
    workspaceId = '0193a1b2-0000-7000-8000-00000000c0de';
    corpus = generateCorpus({ workspaceId, now: NOW });
  });

  it('is deterministic: the same seed gives identical rows, another seed different ones', () => {
    expect(fingerprint(generateCorpus({ workspaceId, now: NOW }))).toBe(fingerprint(corpus));
    const other = generateCorpus({ workspaceId, now: NOW, seed: 7 });
    expect(fingerprint(other)).not.toBe(fingerprint(corpus));
    expect(other.utterances.map((u) => u.text).join('\n')).not.toBe(corpus.utterances.map((u) => u.text).join('\n'));
  });

  it('has the volumes of a small B2B sales team at scale 1', () => {
    const calls = corpus.interactions.filter((i) => i.kind !== 'email');
    const emails = corpus.interactions.filter((i) => i.kind === 'email');
    expect(corpus.accounts).toHaveLength(60);
    expect(corpus.contacts.length).toBeGreaterThan(180);
    expect(corpus.contacts.length).toBeLessThan(400);
    expect(corpus.deals.length).toBeGreaterThanOrEqual(120);
    expect(corpus.deals.length).toBeLessThanOrEqual(190);
    expect(calls.length).toBeGreaterThanOrEqual(550);
    expect(calls.length).toBeLessThanOrEqual(650);
    expect(emails.length).toBeGreaterThanOrEqual(350);
    expect(emails.length).toBeLessThanOrEqual(450);
    expect(corpus.themes.length).toBeGreaterThanOrEqual(20);
    expect(corpus.themes.length).toBeLessThanOrEqual(40);
    expect(new Set(corpus.deals.map((d) => d.stage))).toEqual(
      new Set(['prospecting', 'discovery', 'evaluation', 'proposal', 'negotiation', 'closed_won', 'closed_lost']),
    );
    expect(corpus.qualification.length).toBeGreaterThan(corpus.deals.length * 4);
    // Multi-speaker transcripts: several turns per call, both sides speaking.
    const turnsPerCall = corpus.turns.length / calls.length;
    expect(turnsPerCall).toBeGreaterThan(6);
    const sides = new Set(corpus.turns.map((t) => t.side));
    expect(sides).toEqual(new Set(['external', 'internal']));
  });

  it('scales accounts and interactions proportionally', () => {
    const small = generateCorpus({ workspaceId, now: NOW, scale: 0.5 });
    expect(small.accounts).toHaveLength(30);
    expect(small.interactions.length).toBeGreaterThan(450);
    expect(small.interactions.length).toBeLessThan(550);
  });

  it('derives every theme from a known topic, with member counts that add up', () => {
    const labels = new Set(THEMES.map((t) => t.label));
    for (const theme of corpus.themes) {
      expect(labels.has(theme.label)).toBe(true);
      expect(theme.memberCount).toBeGreaterThan(0);
      expect(theme.interactionCount).toBeLessThanOrEqual(theme.memberCount);
      expect(theme.examples?.length).toBeGreaterThan(0);
    }
    const external = corpus.utterances.filter((u) => u.side === 'external').length;
    expect(corpus.themes.reduce((s, t) => s + t.memberCount, 0)).toBeLessThanOrEqual(external);
  });
});

describe('demo corpus loaded into PGlite', () => {
  let handle: PgliteHandle;
  let a: string;
  let b: string;
  let corpusA: Corpus;
  let loadA: LoadCorpusResult;
  const timeline = corpusTimeline(NOW);

  const rows = async <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) =>
    queryRows<T>(handle.db, query);
  const one = async <T extends Record<string, unknown>>(query: ReturnType<typeof sql>): Promise<T> => {
    const [row] = await rows<T>(query);
    if (!row) throw new Error('expected a row');
    return row;
  };

  beforeAll(async () => {
    handle = await openTestDatabase();
    a = (await createWorkspace(handle.db, { name: 'Corpus A' })).workspaceId;
    b = (await createWorkspace(handle.db, { name: 'Corpus B' })).workspaceId;
    corpusA = generateCorpus({ workspaceId: a, now: NOW });
    loadA = await loadDemoCorpus(handle.db, a, { now: NOW, embedder });
    // Same seed on purpose: two workspaces from one seed must still not share a single id.
    await loadDemoCorpus(handle.db, b, { now: NOW, embedder });
  });

  afterAll(async () => {
    await handle?.close();
  });

  it('writes exactly the generated rows, each carrying its workspace id', async () => {
    expect(loadA.status).toBe('loaded');
    const expected: Record<string, number> = {
      accounts: corpusA.accounts.length,
      contacts: corpusA.contacts.length,
      deals: corpusA.deals.length,
      deal_qualification: corpusA.qualification.length,
      interactions: corpusA.interactions.length,
      participants: corpusA.participants.length,
      transcript_turns: corpusA.turns.length,
      utterances: corpusA.utterances.length,
      themes: corpusA.themes.length,
      excluded_interactions: corpusA.excluded.length,
      source_freshness: corpusA.freshness.length,
    };
    for (const table of WAREHOUSE_TABLES) {
      const counts = await one<{ in_a: number; in_b: number; no_workspace: number }>(
        sql`select count(*) filter (where workspace_id = ${a})::int as in_a, count(*) filter (where workspace_id = ${b})::int as in_b,
                   count(*) filter (where not exists (select 1 from workspaces w where w.id = t.workspace_id))::int as no_workspace
            from ${sql.identifier(table)} t`,
      );
      expect({ table, ...counts }).toEqual({ table, in_a: expected[table], in_b: expected[table], no_workspace: 0 });
    }
  });

  it('keeps children in their parent workspace (no row points across tenants)', async () => {
    const crossings = await one<{ n: number }>(sql`
      select (
        (select count(*) from utterances u join interactions i on i.id = u.interaction_id where u.workspace_id <> i.workspace_id) +
        (select count(*) from transcript_turns t join interactions i on i.id = t.interaction_id where t.workspace_id <> i.workspace_id) +
        (select count(*) from participants p join interactions i on i.id = p.interaction_id where p.workspace_id <> i.workspace_id) +
        (select count(*) from participants p join contacts c on c.id = p.contact_id where p.workspace_id <> c.workspace_id) +
        (select count(*) from interactions i join accounts ac on ac.id = i.account_id where i.workspace_id <> ac.workspace_id) +
        (select count(*) from interactions i join deals d on d.id = i.deal_id where i.workspace_id <> d.workspace_id) +
        (select count(*) from deal_qualification q join deals d on d.id = q.deal_id where q.workspace_id <> d.workspace_id) +
        (select count(*) from contacts c join accounts ac on ac.id = c.account_id where c.workspace_id <> ac.workspace_id)
      )::int as n`);
    expect(crossings.n).toBe(0);
    const orphanTurns = await one<{ n: number }>(
      sql`select count(*)::int as n from utterances where workspace_id = ${a} and turn_id is null`,
    );
    expect(orphanTurns.n).toBe(0);
  });

  it('spreads interactions over 18 months, dense except one quiet stretch with none at all', async () => {
    const span = await one<{ first: string; last: string }>(
      sql`select min(occurred_at)::text as first, max(occurred_at)::text as last from interactions where workspace_id = ${a}`,
    );
    expect(new Date(span.first).getTime() - timeline.start.getTime()).toBeLessThan(7 * DAY);
    expect(NOW.getTime() - new Date(span.last).getTime()).toBeLessThan(2 * DAY);

    for (const table of ['interactions', 'transcript_turns', 'utterances'] as const) {
      const quiet = await one<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(table)} where workspace_id = ${a} and occurred_at >= ${timeline.quietStart.toISOString()} and occurred_at < ${timeline.quietEnd.toISOString()}`,
      );
      expect({ table, n: quiet.n }).toEqual({ table, n: 0 });
    }

    // Outside the quiet stretch no two consecutive interactions are more than 3 days apart.
    const gaps = await rows<{ gap_hours: number; before_ts: string }>(sql`
      select extract(epoch from occurred_at - lag(occurred_at) over (order by occurred_at)) / 3600 as gap_hours,
             (lag(occurred_at) over (order by occurred_at))::text as before_ts
      from interactions where workspace_id = ${a}`);
    const long = gaps.filter((g) => g.gap_hours !== null && Number(g.gap_hours) > 72);
    expect(long).toHaveLength(1);
    expect(Number(long[0]?.gap_hours)).toBeGreaterThanOrEqual(21 * 24);
    expect(Math.abs(new Date(long[0]?.before_ts ?? 0).getTime() - timeline.quietStart.getTime())).toBeLessThan(4 * DAY);
  });

  it('embeds each distinct external text once (384 dims, embedder recorded) and leaves internal ones without vectors', async () => {
    const u = await one<{
      external: number;
      external_ok: number;
      internal: number;
      internal_with_vector: number;
      distinct_texts: number;
    }>(sql`
      select count(*) filter (where side = 'external')::int as external,
             count(*) filter (where side = 'external' and embedder = ${embedder.id}
                                and exists (select 1 from utterance_vectors v where v.workspace_id = u.workspace_id and v.embedder = u.embedder
                                              and v.text_hash = u.text_hash and vector_dims(v.embedding) = 384))::int as external_ok,
             count(*) filter (where side = 'internal')::int as internal,
             count(*) filter (where side = 'internal' and embedder is not null)::int as internal_with_vector,
             count(distinct text) filter (where side = 'external')::int as distinct_texts
      from utterances u where workspace_id = ${a}`);
    expect(u.external).toBeGreaterThan(3000);
    expect(u.external_ok).toBe(u.external);
    expect(u.internal).toBeGreaterThan(3000);
    expect(u.internal_with_vector).toBe(0);
    // One vector per distinct text, none without an utterance: the corpus repeats a third of its sentences.
    const v = await one<{ n: number; orphans: number }>(sql`
      select count(*)::int as n,
             count(*) filter (where not exists (select 1 from utterances u where u.workspace_id = v.workspace_id and u.side = 'external' and u.text_hash = v.text_hash))::int as orphans
      from utterance_vectors v where workspace_id = ${a} and embedder = ${embedder.id}`);
    expect(v.n).toBe(u.distinct_texts);
    expect(v.orphans).toBe(0);
    expect(v.n).toBeLessThan(u.external * 0.8);
    expect(loadA.counts.utterance_vectors).toBe(v.n);
    // A stored vector is the embedder's vector of the text it is keyed by.
    const [sample] = await queryRows<{ text: string; embedding: string }>(
      handle.db,
      sql`select u.text, v.embedding::text as embedding from utterances u
          join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${a} and u.side = 'external' order by u.id limit 1`,
    );
    const expected = (await embedder.embed([sample!.text]))[0] as number[];
    const stored = JSON.parse(sample!.embedding) as number[];
    expect(stored.map((x) => x.toFixed(5))).toEqual(expected.map((x) => x.toFixed(5)));
    const t = await one<{ n: number; ok: number }>(
      sql`select count(*)::int as n, count(*) filter (where embedder = ${embedder.id} and vector_dims(embedding) = 384)::int as ok from themes where workspace_id = ${a}`,
    );
    expect(t.ok).toBe(t.n);
  });

  it('refuses nothing and changes nothing on a second load of the same workspace', async () => {
    const before = await one<{ n: number }>(sql`select count(*)::int as n from utterances where workspace_id = ${a}`);
    const again = await loadDemoCorpus(handle.db, a, { now: NOW, embedder });
    expect(again.status).toBe('already_loaded');
    expect(again.counts.utterances).toBe(before.n);
    const after = await one<{ n: number }>(sql`select count(*)::int as n from utterances where workspace_id = ${a}`);
    expect(after.n).toBe(before.n);
  });

  it('refuses a workspace that already holds other warehouse data, and a half-finished load unless told to restart', async () => {
    const { workspaceId: c } = await createWorkspace(handle.db, { name: 'Has data' });
    await handle.db
      .insert(accounts)
      .values({ id: '0193a1b2-0000-7000-8000-0000000000aa', workspaceId: c, name: 'Real Customer Inc' });
    await expect(loadDemoCorpus(handle.db, c, { now: NOW, scale: 0.05 })).rejects.toMatchObject({
      reason: 'workspace_has_data',
    });

    const { workspaceId: d } = await createWorkspace(handle.db, { name: 'Interrupted' });
    await handle.db
      .insert(demoCorpusLoads)
      .values({ workspaceId: d, seed: 1, scale: 1, status: 'loading', embedder: embedder.id, startedAt: NOW });
    await expect(loadDemoCorpus(handle.db, d, { now: NOW, scale: 0.05 })).rejects.toBeInstanceOf(CorpusLoadError);
    const restarted = await loadDemoCorpus(handle.db, d, { now: NOW, scale: 0.05, ifInterrupted: 'restart' });
    expect(restarted.status).toBe('loaded');
    expect(restarted.counts.accounts).toBe(3);
  });

  it('keeps two workspaces loaded from one seed apart', async () => {
    const shared = await one<{ n: number }>(
      sql`select count(*)::int as n from interactions x join interactions y on x.id = y.id and x.workspace_id <> y.workspace_id`,
    );
    expect(shared.n).toBe(0);
    const sameText = await one<{ a: number; b: number }>(
      sql`select count(*) filter (where workspace_id = ${a})::int as a, count(*) filter (where workspace_id = ${b})::int as b from utterances where text like '%SOC 2%'`,
    );
    // Same seed, so the same words, but each workspace only ever sees its own rows.
    expect(sameText.a).toBeGreaterThan(0);
    expect(sameText.a).toBe(sameText.b);
  });

  it('has every account type, untyped accounts, and buyers to rescue on excluded types', async () => {
    const types = await rows<{ type: string | null; n: number }>(
      sql`select type, count(*)::int as n from accounts where workspace_id = ${a} group by type`,
    );
    const present = new Set(types.map((t) => t.type));
    for (const type of ACCOUNT_TYPES) expect(present.has(type)).toBe(true);
    expect(present.has(null)).toBe(true);

    const interactionsByAudience = await one<{ dropped: number; rescued: number }>(sql`
      select count(distinct i.id) filter (where ac.type not in ('customer', 'sales_target'))::int as dropped,
             count(distinct i.id) filter (where ac.type not in ('customer', 'sales_target') and c.is_buyer)::int as rescued
      from interactions i join accounts ac on ac.id = i.account_id
      left join participants p on p.interaction_id = i.id and p.side = 'external'
      left join contacts c on c.id = p.contact_id
      where i.workspace_id = ${a}`);
    expect(interactionsByAudience.dropped).toBeGreaterThan(30);
    expect(interactionsByAudience.rescued).toBeGreaterThan(0);
    expect(interactionsByAudience.rescued).toBeLessThan(interactionsByAudience.dropped);
  });

  it('marks some interactions excluded, including calls whose external speech is in the semantic store', async () => {
    const excluded = await one<{ n: number; calls_with_vectors: number }>(sql`
      select count(distinct e.interaction_id)::int as n,
             count(distinct e.interaction_id) filter (where u.embedder is not null)::int as calls_with_vectors
      from excluded_interactions e left join utterances u on u.interaction_id = e.interaction_id
      where e.workspace_id = ${a}`);
    expect(excluded.n).toBeGreaterThanOrEqual(5);
    expect(excluded.calls_with_vectors).toBeGreaterThan(0);
  });

  it('finds a seeded topic with websearch_to_tsquery over interactions and transcript turns', async () => {
    const hits = await rows<{ title: string }>(sql`
      select title from interactions
      where workspace_id = ${a} and search_tsv @@ websearch_to_tsquery('english', 'security questionnaire')
      order by ts_rank(search_tsv, websearch_to_tsquery('english', 'security questionnaire')) desc limit 20`);
    expect(hits.length).toBeGreaterThan(3);
    const turns = await one<{ n: number }>(
      sql`select count(*)::int as n from transcript_turns where workspace_id = ${a} and search_tsv @@ websearch_to_tsquery('english', '"SOC 2" report -pricing')`,
    );
    expect(turns.n).toBeGreaterThan(5);
  });

  it('matches misspelled titles by trigram similarity', async () => {
    // word_similarity: the phrase against the best-matching stretch of a longer title.
    const best = await rows<{ title: string; score: number }>(sql`
      select title, word_similarity('quartrly business review', title) as score from interactions
      where workspace_id = ${a} and 'quartrly business review' <% title
      order by score desc, title limit 5`);
    expect(best.length).toBeGreaterThan(0);
    for (const row of best) expect(row.title).toMatch(/Quarterly business review/);
    // A company name with a letter dropped finds that company's calls.
    const busiest = await one<{ name: string }>(sql`
      select ac.name from accounts ac join interactions i on i.account_id = ac.id and i.kind <> 'email'
      where ac.workspace_id = ${a} group by ac.name order by count(*) desc, ac.name limit 1`);
    const typo = busiest.name.slice(0, -3) + busiest.name.slice(-2);
    const [company] = await rows<{ title: string }>(sql`
      select title from interactions where workspace_id = ${a} and ${typo} <% title
      order by word_similarity(${typo}, title) desc, title limit 1`);
    expect(company?.title ?? '').toContain(busiest.name);
  });

  it('returns pricing objections as the cosine top-10 for a pricing-objection query', async () => {
    const [query] = await embedder.embed([
      'this is too expensive for our budget, we need a better price or a discount',
    ]);
    const top = await rows<{ text: string; side: string; distance: number }>(sql`
      select (select u.text from utterances u where u.workspace_id = v.workspace_id and u.embedder = v.embedder and u.text_hash = v.text_hash limit 1) as text,
             (select u.side from utterances u where u.workspace_id = v.workspace_id and u.embedder = v.embedder and u.text_hash = v.text_hash limit 1) as side,
             v.embedding <=> ${JSON.stringify(query)}::vector as distance
      from utterance_vectors v
      where v.workspace_id = ${a} and v.embedder = ${embedder.id}
      order by v.embedding <=> ${JSON.stringify(query)}::vector limit 10`);
    expect(top).toHaveLength(10);
    expect(top.every((r) => r.side === 'external')).toBe(true);
    const onTopic = top.filter((r) => /price|pricing|discount|budget|expensive|cost/i.test(r.text));
    expect(onTopic.length).toBeGreaterThanOrEqual(8);
  });

  it('stores text exactly as generated (COPY escaping of newlines, quotes, backslashes)', async () => {
    const emails = corpusA.interactions.filter((i) => i.kind === 'email').slice(0, 25);
    const stored = await rows<{ id: string; body: string; title: string }>(
      sql`select id, body, title from interactions where workspace_id = ${a} and id in (${sql.join(
        emails.map((e) => sql`${e.id}`),
        sql`, `,
      )})`,
    );
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const e of emails) expect(byId.get(e.id as string)).toEqual({ id: e.id, body: e.body, title: e.title });
    const theme = corpusA.themes[0];
    const [storedTheme] = await rows<{ examples: unknown }>(
      sql`select examples from themes where workspace_id = ${a} and label = ${theme?.label ?? ''}`,
    );
    expect(storedTheme?.examples).toEqual(theme?.examples);
  });

  it('writes the same rows through multi-row INSERTs (the Neon path) as through COPY', async () => {
    const { workspaceId: viaCopy } = await createWorkspace(handle.db, { name: 'Via COPY' });
    const { workspaceId: viaInsert } = await createWorkspace(handle.db, { name: 'Via INSERT' });
    const copied = await loadDemoCorpus(handle.db, viaCopy, { now: NOW, scale: 0.1, embedder });
    const inserted = await loadDemoCorpus(handle.db, viaInsert, {
      now: NOW,
      scale: 0.1,
      embedder,
      method: 'insert',
      batchRows: 100,
    });
    expect(copied.method).toBe('copy');
    expect(inserted.method).toBe('insert');
    expect(inserted.counts).toEqual(copied.counts);
    const digest = async (ws: string) =>
      one<{ interactions: string; utterances: string; vectors: string; deals: string }>(sql`
        select (select md5(string_agg(concat_ws('|', kind, title, occurred_at, duration_seconds, direction, source, summary, body, participant_count), '#' order by occurred_at, title)) from interactions where workspace_id = ${ws}) as interactions,
               (select md5(string_agg(concat_ws('|', side, speaker_name, text, text_hash, embedder, occurred_at), '#' order by occurred_at, text, utterance_index)) from utterances where workspace_id = ${ws}) as utterances,
               (select md5(string_agg(concat_ws('|', embedder, text_hash, embedding::text), '#' order by embedder, text_hash)) from utterance_vectors where workspace_id = ${ws}) as vectors,
               (select md5(string_agg(concat_ws('|', name, stage, amount, currency, close_date, probability, is_won, occurred_at), '#' order by name, occurred_at)) from deals where workspace_id = ${ws}) as deals`);
    expect(await digest(viaInsert)).toEqual(await digest(viaCopy));
  });

  it('loads the corpus when the demo workspace is seeded, once', async () => {
    const first = await seedDemoWorkspace(handle.db, { scale: 0.05 });
    expect(first.created).toBe(true);
    expect(first.corpus?.status).toBe('loaded');
    expect(first.corpus?.counts.accounts).toBe(3);
    const second = await seedDemoWorkspace(handle.db, { scale: 0.05 });
    expect(second).toMatchObject({
      workspaceId: first.workspaceId,
      created: false,
      corpus: { status: 'already_loaded' },
    });
  });

  it('records per-source freshness that agrees with the rows', async () => {
    const mismatches = await rows<{ source: string }>(sql`
      select f.source from source_freshness f
      join (select source, max(occurred_at) as latest, max(ingested_at) as ingested from interactions where workspace_id = ${a} group by source) i on i.source = f.source
      where f.workspace_id = ${a} and f.surface = 'interactions'
        and (f.latest_event_at <> i.latest or f.latest_ingest_at <> i.ingested or f.last_sync_at < f.latest_ingest_at)`);
    expect(mismatches).toEqual([]);
    const surfaces = await rows<{ surface: string }>(
      sql`select distinct surface from source_freshness where workspace_id = ${a} order by surface`,
    );
    expect(surfaces.map((s) => s.surface)).toEqual(['deal_qualification', 'deals', 'interactions']);
  });
});
