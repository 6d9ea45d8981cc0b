import type { z } from 'zod';
import type { ConnectionSummarySchema, SyncRunSchema } from '../../connections/schemas.js';
import {
  type CatalogEntry,
  type ConnectionView,
  connectionName,
  CredentialFields,
  HealthBadge,
  when,
} from './connections.js';
import { DangerLink, Flash, Layout, type HeaderSession } from '../../web/layout.js';

export type SyncRun = z.infer<typeof SyncRunSchema>;
export type ConnectionSummary = z.infer<typeof ConnectionSummarySchema>;

export interface ConnectionPageProps {
  nonce: string;
  session: HeaderSession;
  connection: ConnectionView;
  entry: CatalogEntry;
  runs: SyncRun[];
  runsTotal: number;
  summary: ConnectionSummary;
  canEdit: boolean;
  canDisconnect: boolean;
  isAdmin: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

const list = (values: string[] | undefined) => (values ?? []).join('\n');

/** `/console/connections/:id`: one connection's health, runs and summary, and what an editor or admin may change. */
export function ConnectionPage(props: ConnectionPageProps) {
  const c = props.connection;
  const base = `/console/connections/${c.id}`;
  const emailsToo = props.entry.dataStreams.includes('emails');
  return (
    <Layout title={connectionName(c)} nonce={props.nonce} session={props.session} active="connections">
      <p>
        <a href="/console/connections">← All connections</a>
      </p>
      <h1>
        <span class="monogram" aria-hidden="true">
          {c.connector.logo.monogram}
        </span>
        {connectionName(c)}
      </h1>
      <Flash error={props.error} notice={props.notice} />
      <section class="card" aria-labelledby="state-heading">
        <h2 id="state-heading">State</h2>
        <dl class="facts">
          <dt>Health</dt>
          <dd>
            <HealthBadge health={c.health} />
          </dd>
          <dt>Status</dt>
          <dd>{c.status}</dd>
          {c.paused_reason ? (
            <>
              <dt>Paused</dt>
              <dd>Until a call filter decision is saved (below).</dd>
            </>
          ) : null}
          <dt>Category</dt>
          <dd>{c.connector.category}</dd>
          {Object.entries(c.fields).map(([key, value]) => (
            <>
              <dt>{props.entry.connect.fields.find((f) => f.key === key)?.label ?? key}</dt>
              <dd>
                <code>{value}</code>
              </dd>
            </>
          ))}
          <dt>Last synced</dt>
          <dd>{when(c.last_synced_at)}</dd>
          <dt>Next sync</dt>
          <dd>{when(c.next_sync_at, 'not scheduled')}</dd>
          {c.rate_limited_until ? (
            <>
              <dt>Rate limited until</dt>
              <dd>{when(c.rate_limited_until)}</dd>
            </>
          ) : null}
          <dt>Connected since</dt>
          <dd>{when(c.created_at)}</dd>
        </dl>
      </section>
      <SummaryCard summary={props.summary} />
      <section class="card" aria-labelledby="runs-heading">
        <h2 id="runs-heading">Sync runs</h2>
        {props.runs.length === 0 ? (
          <p>No sync has run yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col">Records</th>
                <th scope="col">Streams failed</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {props.runs.map((r) => (
                <tr>
                  <td>{when(r.started_at, 'queued')}</td>
                  <td>{r.trigger}</td>
                  <td>
                    {r.status}
                    {r.error_reason ? ` (${r.error_reason})` : ''}
                  </td>
                  <td>{r.records_written}</td>
                  <td>
                    {r.streams_failed} of {r.streams_total}
                  </td>
                  <td>{when(r.finished_at, '–')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {props.runsTotal > props.runs.length ? (
          <p class="hint">
            The latest {props.runs.length} of {props.runsTotal}.
          </p>
        ) : null}
      </section>
      {props.canEdit && c.health !== 'healthy' && props.entry.connectable ? (
        <section class="card" aria-labelledby="reconnect-heading">
          <h2 id="reconnect-heading">Reconnect</h2>
          <p>Repairs this connection in place (same row, cursors kept) and starts a sync.</p>
          <form method="post" action={`${base}/reconnect`}>
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <CredentialFields entry={props.entry} prefix="reconnect" only="reconnect" />
            <div class="actions">
              <button type="submit">
                {props.entry.authMethod === 'oauth' ? `Continue to ${props.entry.name}` : 'Reconnect'}
              </button>
            </div>
          </form>
        </section>
      ) : null}
      {props.isAdmin && c.connector.category === 'calls' ? (
        <CallFiltersForm c={c} base={base} csrf={props.session.csrf} />
      ) : null}
      {props.canEdit && c.connector.category === 'crm' ? (
        <CrmRecencyForm c={c} base={base} csrf={props.session.csrf} />
      ) : null}
      {props.canEdit && (c.connector.category === 'comms' || emailsToo) ? (
        <CommsFilterForm c={c} base={base} csrf={props.session.csrf} />
      ) : null}
      {props.canDisconnect && c.status !== 'disconnected' ? (
        <section class="card" aria-labelledby="disconnect-heading">
          <h2 id="disconnect-heading">Disconnect</h2>
          <p>Syncs stop and the credentials are dropped; what was synced stays. A reconnect restores it.</p>
          <DangerLink href={`${base}/disconnect`} label={`Disconnect ${connectionName(c)}`} text="Disconnect…" />
        </section>
      ) : null}
    </Layout>
  );
}

function SummaryCard(props: { summary: ConnectionSummary }) {
  const s = props.summary;
  const stats = s.crm ?? s.calls ?? s.comms ?? s.social;
  return (
    <section class="card" aria-labelledby="summary-heading">
      <h2 id="summary-heading">What it brought in</h2>
      {!s.synced || !stats ? (
        <p>Nothing yet: the figures appear after the first completed sync.</p>
      ) : (
        <dl class="facts">
          {Object.entries(stats).map(([key, value]) => (
            <>
              <dt>{key.replace(/_/g, ' ')}</dt>
              <dd>{value === null ? '–' : key.endsWith('_at') ? when(String(value)) : String(value)}</dd>
            </>
          ))}
        </dl>
      )}
    </section>
  );
}

function CallFiltersForm(props: { c: ConnectionView; base: string; csrf: string }) {
  const f = props.c.config.call_filters;
  return (
    <section class="card" aria-labelledby="call-filters-heading">
      <h2 id="call-filters-heading">Call filters (admins)</h2>
      <p class="hint">
        Exclusions first (a participant or a domain, subdomains included), then the include rules. Applies to calls
        synced from now on. {f ? '' : 'No decision yet: the source is paused until one is saved.'}
      </p>
      <form method="post" action={`${props.base}/call-filters`}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label class="check">
          <input type="checkbox" name="enabled" value="yes" checked={f ? f.enabled : true} /> Filter calls (untick to
          keep every call)
        </label>
        <label class="check">
          <input type="checkbox" name="external_only" value="yes" checked={f ? f.external_only : true} /> Only calls
          with someone from outside
        </label>
        <label for="cf-reps">Only calls one of these reps took part in (emails, one a line; empty: any)</label>
        <textarea id="cf-reps" name="reps" rows={2}>
          {list(f?.reps)}
        </textarea>
        <label for="cf-participants">Drop calls with these participants (emails, one a line)</label>
        <textarea id="cf-participants" name="exclude_participants" rows={2}>
          {list(f?.exclude_participants)}
        </textarea>
        <label for="cf-domains">Drop calls with anyone at these domains (one a line)</label>
        <textarea id="cf-domains" name="exclude_domains" rows={2}>
          {list(f?.exclude_domains)}
        </textarea>
        <div class="actions">
          <button type="submit">Save call filters</button>
        </div>
      </form>
    </section>
  );
}

function CrmRecencyForm(props: { c: ConnectionView; base: string; csrf: string }) {
  const current = props.c.config.crm_recency?.window ?? 12;
  const choices: (number | 'all')[] = [3, 6, 12, 24, 36, 'all'];
  return (
    <section class="card" aria-labelledby="crm-recency-heading">
      <h2 id="crm-recency-heading">CRM history</h2>
      <form method="post" action={`${props.base}/crm-recency`}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label for="crm-window">Sync records active in the last</label>
        <select id="crm-window" name="window">
          {(choices.includes(current) ? choices : [...choices, current]).map((w) => (
            <option value={String(w)} selected={w === current}>
              {w === 'all' ? 'all history' : `${w} months`}
            </option>
          ))}
        </select>
        <p class="hint">Widening the window re-reads the CRM from the new start at the next sync.</p>
        <div class="actions">
          <button type="submit">Save CRM history</button>
        </div>
      </form>
    </section>
  );
}

function CommsFilterForm(props: { c: ConnectionView; base: string; csrf: string }) {
  const f = props.c.config.comms_filter;
  return (
    <section class="card" aria-labelledby="comms-filter-heading">
      <h2 id="comms-filter-heading">Meetings and emails filter</h2>
      <form method="post" action={`${props.base}/comms-filter`}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label class="check">
          <input type="checkbox" name="external_only" value="yes" checked={f ? f.external_only : true} /> Only meetings
          and emails with someone from outside
        </label>
        <label for="comms-participants">Drop those with these participants (emails, one a line)</label>
        <textarea id="comms-participants" name="exclude_participants" rows={2}>
          {list(f?.exclude_participants)}
        </textarea>
        <label for="comms-domains">Drop those with anyone at these domains (one a line)</label>
        <textarea id="comms-domains" name="exclude_domains" rows={2}>
          {list(f?.exclude_domains)}
        </textarea>
        <div class="actions">
          <button type="submit">Save the filter</button>
        </div>
      </form>
    </section>
  );
}
