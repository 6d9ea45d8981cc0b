import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { goldTurns, isChair, loadQmsum } from '../../bench/qmsum-data.js';

/** The committed real-meeting data the retrieval bench reads: both domains, both halves, spans inside their meetings. */

const scratch = mkdtempSync(join(tmpdir(), 'qmsum-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('test-data/qmsum', () => {
  const data = loadQmsum();

  it('holds train and validation meetings of both domains, with queries', () => {
    const kinds = new Set(data.meetings.map((m) => `${m.domain}/${m.split}`));
    expect([...kinds].sort()).toEqual(['committee/train', 'committee/val', 'product/train', 'product/val']);
    for (const m of data.meetings) expect(m.queries.length, m.id).toBeGreaterThan(0);
    expect(data.meetings.reduce((n, m) => n + m.queries.length, 0)).toBeGreaterThan(200);
  });

  it('gold spans name turns of their own meeting', () => {
    for (const m of data.meetings)
      for (const q of m.queries) for (const i of goldTurns(q)) expect(m.turns[i], `${m.id}: ${q.query}`).toBeDefined();
  });

  it('finds a chair in every meeting, and not everyone is the chair', () => {
    for (const m of data.meetings) {
      const chairs = m.turns.filter((t) => isChair(m, t.speaker)).length;
      expect(chairs, m.id).toBeGreaterThan(0);
      expect(chairs, m.id).toBeLessThan(m.turns.length / 2);
    }
  });

  it('refuses a file whose span points past its meeting', () => {
    const file = join(scratch, 'bad.json.gz');
    const bad = {
      ...data,
      meetings: [{ ...data.meetings[0]!, queries: [{ query: 'q', spans: [[0, data.meetings[0]!.turns.length]] }] }],
    };
    writeFileSync(file, gzipSync(JSON.stringify(bad)));
    expect(() => loadQmsum(file)).toThrow(/outside the meeting/);
  });
});
