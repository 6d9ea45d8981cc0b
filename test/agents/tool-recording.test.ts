import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { defineOperation, type Operation, type OperationContext } from '../../functions/registry.js';
import { ApiError } from '../../platform/errors.js';
import { openToolRecorder, RECORD_COMMAND } from '../support/tool-recording.js';

/** The answer sets' recorder on its own: what is recorded, what replays, and what fails loudly. */

const dir = mkdtempSync(join(tmpdir(), 'cip-tool-recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let calls = 0;
const lookup = defineOperation({
  id: 'probe.lookup',
  method: 'post',
  path: '/probe/lookup',
  summary: 'A tool (probe)',
  tags: ['Probe'],
  scopes: [],
  minRole: 'viewer',
  stability: 'stable',
  visibility: 'public',
  body: z.object({ name: z.string() }),
  output: z.object({ name: z.string(), n: z.number() }),
  async handler(_ctx, input) {
    calls += 1;
    if (input.name === 'nobody') throw new ApiError('not_found', 'No such name.', { name: input.name });
    return { name: input.name, n: calls };
  },
});

const ctx = (origin: OperationContext['origin']) => ({ origin }) as OperationContext;
const handlerOf = (ops: Operation[]) => (ops[0] as Operation).handler.bind(ops[0]);

describe('the tool recorder', () => {
  const file = join(dir, 'recording.json');

  it('records a run’s calls, results and refusals under the question, and writes them', async () => {
    const recorder = openToolRecorder(file, 'record');
    const call = handlerOf(recorder.wrap([lookup]));
    await recorder.asking('who is Ada?', async () => {
      expect(await call(ctx('run'), { name: 'Ada' })).toEqual({ name: 'Ada', n: 1 });
      await expect(call(ctx('run'), { name: 'nobody' })).rejects.toMatchObject({ code: 'not_found' });
    });
    recorder.save();
    expect(calls).toBe(2);
  });

  it('replays them without running the tool; the test’s own requests still run', async () => {
    const recorder = openToolRecorder(file, 'replay');
    const call = handlerOf(recorder.wrap([lookup]));
    await recorder.asking('who is Ada?', async () => {
      expect(await call(ctx('run'), { name: 'Ada' })).toEqual({ name: 'Ada', n: 1 });
      await expect(call(ctx('run'), { name: 'nobody' })).rejects.toMatchObject({
        code: 'not_found',
        message: 'No such name.',
        details: { name: 'nobody' },
      });
      expect(await call(ctx('rest'), { name: 'Ada' })).toEqual({ name: 'Ada', n: 3 });
    });
    expect(calls).toBe(3);
    recorder.assertNoMisses();
  });

  it('fails a call that is not recorded, and the test, naming the command that re-records', async () => {
    const recorder = openToolRecorder(file, 'replay');
    const call = handlerOf(recorder.wrap([lookup]));
    await recorder.asking('who is Ada?', async () => {
      await expect(call(ctx('run'), { name: 'Grace' })).rejects.toMatchObject({
        name: 'NonRetryableError',
        message: expect.stringContaining(RECORD_COMMAND),
      });
    });
    // The same call under another question is not a hit either: a question's runs replay only its own calls.
    await recorder.asking('who is someone else?', async () => {
      await expect(call(ctx('run'), { name: 'Ada' })).rejects.toMatchObject({ name: 'NonRetryableError' });
    });
    expect(calls).toBe(3);
    expect(() => recorder.assertNoMisses()).toThrow(RECORD_COMMAND);
  });

  it('runs every call live in live mode, and refuses to replay from a recording that does not exist', async () => {
    const live = openToolRecorder(join(dir, 'absent.json'), 'live');
    expect(live.wrap([lookup])[0]?.handler).toBe(lookup.handler);
    expect(() => openToolRecorder(join(dir, 'absent.json'), 'replay')).toThrow(RECORD_COMMAND);
  });
});
