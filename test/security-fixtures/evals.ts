import { randomBase62 } from '../../platform/ids.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { readOnce } from './read-once.js';

/**
 * Evals: workspace evals and eval runs are tenant data; the built-in eval is everyone's. Eval-run
 * reads answer another tenant's id with `data: null` (spec), feedback on one with 404.
 */
const MESSAGE = 'Subject: Onboarding\n\nHi Dana, would a 15-minute call next week about onboarding be useful?';

async function workspaceEval(h: Harness, ws: SeededWorkspace): Promise<string> {
  const slug = `suite-${randomBase62(8).toLowerCase()}`;
  const { key } = await ws.keyFor(ws.admin, 'full_admin');
  const res = await h.request('POST', '/evals', {
    key,
    body: {
      slug,
      name: 'Suite eval',
      input_schema: { fields: [{ name: 'note', type: 'text', required: true }] },
      graders: [{ id: 'g', kind: 'rule', target: 'note', checks: ['no_hype'] }],
    },
  });
  if (res.status !== 201) throw new Error(`could not create a workspace eval: ${res.text}`);
  return slug;
}

async function evalRun(h: Harness, ws: SeededWorkspace): Promise<string> {
  const res = await h.request('POST', '/evals/run', {
    key: ws.editor.key,
    body: { inputs: { message: MESSAGE }, reuse: 'force' },
  });
  if (res.status !== 202) throw new Error(`could not start an eval run: ${res.text}`);
  return res.body.data.run_id as string;
}

/** Two complete runs of the built-in eval in `ws` (compare reads only complete runs). */
async function completePair(h: Harness, ws: SeededWorkspace): Promise<OperationRequest> {
  const a = await evalRun(h, ws);
  const b = await evalRun(h, ws);
  await (h.services.queue as LocalTransport).drain();
  return { body: { a, b } };
}

const byEval = (extra: Partial<OperationRequest> = {}): SecurityFixture => ({
  request: async ({ h, ws }) => ({ params: { slug: await workspaceEval(h, ws) }, ...extra }),
  tenancy: {
    kind: 'by_id',
    foreign: async ({ h, ws }) => ({ params: { slug: await workspaceEval(h, ws) }, ...extra }),
  },
});

/** The workspace's eval run that the eval-run reads share (read-once.ts). */
const aRunToRead = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await readOnce(ws, 'eval run', () => evalRun(h, ws)) },
});

const byRunNull: SecurityFixture = { request: aRunToRead, tenancy: { kind: 'by_id_null', foreign: aRunToRead } };

const aCompletePair = ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> =>
  readOnce(ws, 'complete pair of eval runs', () => completePair(h, ws));

export const evalFixtures: Record<string, SecurityFixture> = {
  'evals.list': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'evals.export_csv': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'evals.export_jsonl': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'evals.validate': {
    request: () => ({
      body: {
        input_schema: { fields: [{ name: 'note', type: 'text' }] },
        graders: [{ id: 'g', kind: 'rule', target: 'note', checks: ['no_hype'] }],
      },
    }),
    tenancy: { kind: 'workspace' },
  },
  'evals.run': { request: () => ({ body: { inputs: { message: MESSAGE } } }), tenancy: { kind: 'workspace' } },
  'evals.create': {
    request: () => ({
      body: {
        slug: `suite-${randomBase62(8).toLowerCase()}`,
        name: 'Suite eval',
        input_schema: { fields: [{ name: 'note', type: 'text' }] },
        graders: [{ id: 'g', kind: 'rule', target: 'note', checks: ['no_hype'] }],
      },
    }),
    tenancy: { kind: 'workspace' },
  },
  'evals.get': byEval(),
  'evals.update': byEval({ body: { name: 'Renamed by the suite' } }),
  'evals.delete': byEval(),
  'evals.adoption': byEval(),
  'evals.kpi': byEval(),
  'eval_runs.get': byRunNull,
  'eval_runs.gate': byRunNull,
  'eval_runs.drafts': byRunNull,
  'eval_runs.improvement': byRunNull,
  'eval_runs.evidence': byRunNull,
  'eval_runs.feedback': {
    request: async ({ h, ws }) => ({
      params: { id: await evalRun(h, ws) },
      body: { evidence: { kind: 'did_it_myself' } },
    }),
    tenancy: {
      kind: 'by_id',
      foreign: async ({ h, ws }) => ({
        params: { id: await evalRun(h, ws) },
        body: { evidence: { kind: 'did_it_myself' } },
      }),
    },
  },
  'eval_runs.compare': { request: aCompletePair, tenancy: { kind: 'by_id', foreign: aCompletePair } },
  'eval_runs.feedback_status': { request: aRunToRead, tenancy: { kind: 'by_id', foreign: aRunToRead } },
};
