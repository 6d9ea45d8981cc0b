import { when } from './connections.js';
import { Layout, type HeaderSession } from '../../web/layout.js';

export interface UsageView {
  rate_limits: {
    applies_to: string;
    scope: 'address' | 'user' | 'workspace';
    limit: number;
    window_seconds: number | null;
  }[];
  quotas: { family: string; limit: number | null; used: number; resets_at: string }[];
  recent_refusals: { at: string; operation: string; code: string; family: string | null; limit: number | null }[];
}

const PER: Record<UsageView['rate_limits'][number]['scope'], string> = {
  address: 'per client address',
  user: 'per user',
  workspace: 'per workspace',
};

const windowWords = (seconds: number | null) =>
  seconds === null ? 'at once' : seconds === 60 ? 'per minute' : `per ${seconds} s`;

/** `/console/usage`: the limits that apply, this month's quotas, and the recent 429s. */
export function UsagePage(props: { nonce: string; session: HeaderSession; usage: UsageView }) {
  const { usage } = props;
  return (
    <Layout title="Usage" nonce={props.nonce} session={props.session} active="usage">
      <h1>Usage and limits</h1>
      <section class="card" aria-labelledby="quotas-heading">
        <h2 id="quotas-heading">Monthly quotas</h2>
        <p class="hint">
          Counted per workspace after validation (an invalid or refused call costs nothing); over a quota, calls get{' '}
          <code>429 quota_exceeded</code>.
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col">Family</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
              <th scope="col">Resets</th>
            </tr>
          </thead>
          <tbody>
            {usage.quotas.map((q) => (
              <tr>
                <td>{q.family}</td>
                <td>{q.used}</td>
                <td>{q.limit === null ? 'unmetered' : q.limit}</td>
                <td>{when(q.resets_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="limits-heading">
        <h2 id="limits-heading">Rate limits</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Applies to</th>
              <th scope="col">Limit</th>
            </tr>
          </thead>
          <tbody>
            {usage.rate_limits.map((r) => (
              <tr>
                <td>{r.applies_to.includes('.') ? <code>{r.applies_to}</code> : r.applies_to}</td>
                <td>
                  {r.limit} {windowWords(r.window_seconds)} {PER[r.scope]}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="refusals-heading">
        <h2 id="refusals-heading">Recent 429s</h2>
        {usage.recent_refusals.length === 0 ? (
          <p>No call of this workspace was refused for a limit recently.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Operation</th>
                <th scope="col">Code</th>
                <th scope="col">Limit</th>
              </tr>
            </thead>
            <tbody>
              {usage.recent_refusals.map((r) => (
                <tr>
                  <td>{when(r.at)}</td>
                  <td>
                    <code>{r.operation}</code>
                  </td>
                  <td>
                    <code>{r.code}</code>
                    {r.family ? ` (${r.family})` : ''}
                  </td>
                  <td>{r.limit ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="hint">
          The newest 100 are kept. The per-address limit answers before a workspace is known and is not listed here.
        </p>
      </section>
    </Layout>
  );
}
