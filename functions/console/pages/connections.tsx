import type { z } from 'zod';
import type { CatalogEntrySchema, ConnectionSchema } from '../../connections/schemas.js';
import { Flash, Layout, type HeaderSession } from '../../web/layout.js';

export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;
export type ConnectionView = z.infer<typeof ConnectionSchema>;

export interface IngestSecret {
  connection_id: string;
  name: string;
  url: string;
  secret: string;
}

export interface ConnectionsPageProps {
  nonce: string;
  session: HeaderSession;
  connections: ConnectionView[];
  catalog: CatalogEntry[];
  /** Editors and admins connect; viewers only look. */
  canConnect: boolean;
  ingest?: IngestSecret | null | undefined;
  notice?: string | undefined;
  error?: string | undefined;
  /** The catalog entry whose form the error is about, so it opens there. */
  errorFor?: string | undefined;
}

const HEALTH_TONE: Record<ConnectionView['health'], 'ok' | 'warn' | 'bad'> = {
  healthy: 'ok',
  syncing: 'ok',
  stale: 'warn',
  degraded: 'warn',
  rate_limited: 'warn',
  error: 'bad',
  needs_reauth: 'bad',
  disconnected: 'bad',
};

export function HealthBadge(props: { health: ConnectionView['health'] }) {
  return <span class={`badge ${HEALTH_TONE[props.health]}`}>{props.health.replace('_', ' ')}</span>;
}

export const when = (iso: string | null, none = 'never') => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : none);

export const connectionName = (c: ConnectionView) =>
  c.display_name ? `${c.connector.name}: ${c.display_name}` : c.connector.name;

/** `/console/connections`: the workspace's connections and the catalog to add more from. */
export function ConnectionsPage(props: ConnectionsPageProps) {
  return (
    <Layout title="Connections" nonce={props.nonce} session={props.session} active="connections">
      <h1>Connections</h1>
      <Flash error={props.errorFor ? undefined : props.error} notice={props.notice} />
      {props.ingest ? <IngestSecretCard ingest={props.ingest} /> : null}
      <section class="card" aria-labelledby="connections-heading">
        <h2 id="connections-heading">Your connections</h2>
        {props.connections.length === 0 ? (
          <p>Nothing is connected yet. Pick a source below.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Category</th>
                <th scope="col">Health</th>
                <th scope="col">Last synced</th>
                <th scope="col">Last run</th>
              </tr>
            </thead>
            <tbody>
              {props.connections.map((c) => (
                <tr>
                  <td>
                    <span class="monogram" aria-hidden="true">
                      {c.connector.logo.monogram}
                    </span>
                    <a href={`/console/connections/${c.id}`}>{connectionName(c)}</a>
                    {c.paused_reason === 'call_filters_required' ? (
                      <div class="hint">Paused until a call filter decision is saved.</div>
                    ) : null}
                  </td>
                  <td>{c.connector.category}</td>
                  <td>
                    <HealthBadge health={c.health} />
                  </td>
                  <td>{when(c.last_synced_at)}</td>
                  <td>
                    {c.last_run
                      ? `${c.last_run.status}, ${c.last_run.records_written} records${c.last_run.error_reason ? ` (${c.last_run.error_reason})` : ''}`
                      : 'none yet'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <h2 id="catalog-heading">Add a source</h2>
      {props.canConnect ? null : (
        <p class="hint">Your role does not allow connecting sources (it takes the connections:write permission).</p>
      )}
      <div class="grid">
        {props.catalog.map((entry) => (
          <CatalogCard
            entry={entry}
            csrf={props.session.csrf}
            canConnect={props.canConnect}
            error={props.errorFor === entry.type ? props.error : undefined}
          />
        ))}
      </div>
    </Layout>
  );
}

function IngestSecretCard(props: { ingest: IngestSecret }) {
  return (
    <section class="card" aria-labelledby="ingest-heading">
      <h2 id="ingest-heading">{props.ingest.name}: where to push, and the signing secret</h2>
      <p>
        Copy the secret now: this is the only time it is shown. Sign each push with it (Standard Webhooks); a reconnect
        issues a new one.
      </p>
      <label for="ingest-url">Ingest URL</label>
      <input type="text" id="ingest-url" class="secret" readonly value={props.ingest.url} />
      <label for="ingest-secret">Signing secret</label>
      <input type="text" id="ingest-secret" class="secret" readonly value={props.ingest.secret} />
      <p>
        <a href={`/console/connections/${props.ingest.connection_id}`}>Open the connection</a>
      </p>
    </section>
  );
}

const METHOD_TEXT: Record<CatalogEntry['authMethod'], string> = {
  api_key: 'API key',
  oauth: 'Sign in with the provider (OAuth)',
  handle: 'Public account handle',
  webhook: 'Push to a signed ingest URL',
};

function CatalogCard(props: { entry: CatalogEntry; csrf: string; canConnect: boolean; error?: string | undefined }) {
  const { entry } = props;
  const id = `connect-${entry.type}`;
  return (
    <section class="card" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>
        <span class="monogram" aria-hidden="true">
          {entry.logo.monogram}
        </span>
        {entry.name}
      </h3>
      <p class="hint">
        {entry.category} · {METHOD_TEXT[entry.authMethod]}
        {entry.ownership === 'personal' ? ' · one per member' : ''}
      </p>
      <p>{entry.description}</p>
      <p class="hint">Syncs: {entry.dataStreams.join(', ')}</p>
      {props.error ? (
        <div class="error" role="alert">
          {props.error}
        </div>
      ) : null}
      {!entry.connectable ? (
        <p class="hint">
          <strong>Not connectable here:</strong> {entry.unavailableReason}
        </p>
      ) : props.canConnect ? (
        <ConnectForm entry={entry} csrf={props.csrf} />
      ) : null}
    </section>
  );
}

/** The fields the catalog declares; secret ones are password inputs and never filled back in. */
export function CredentialFields(props: { entry: CatalogEntry; prefix: string; only?: 'reconnect' }) {
  const fields =
    props.only === 'reconnect'
      ? props.entry.connect.fields.filter((f) => f.resupplyOnReconnect)
      : props.entry.connect.fields;
  return (
    <>
      {fields.map((f) => (
        <>
          <label for={`${props.prefix}-${f.key}`}>{f.label}</label>
          <input
            type={f.secret ? 'password' : 'text'}
            id={`${props.prefix}-${f.key}`}
            name={f.key}
            required
            autocomplete="off"
            spellcheck={false}
            placeholder={f.placeholder ?? undefined}
            aria-describedby={`${props.prefix}-${f.key}-help`}
          />
          <div class="hint" id={`${props.prefix}-${f.key}-help`}>
            {f.help}
          </div>
        </>
      ))}
    </>
  );
}

function ConnectForm(props: { entry: CatalogEntry; csrf: string }) {
  const { entry } = props;
  const prefix = `connect-${entry.type}`;
  return (
    <form method="post" action="/console/connections">
      <input type="hidden" name="csrf_token" value={props.csrf} />
      <input type="hidden" name="connector_type" value={entry.type} />
      <CredentialFields entry={entry} prefix={prefix} />
      {entry.connect.keyUrl ? (
        <p class="hint">
          Where to find it: <a href={entry.connect.keyUrl}>{new URL(entry.connect.keyUrl).host}</a>
        </p>
      ) : null}
      {entry.single_instance ? null : (
        <>
          <label for={`${prefix}-display-name`}>Display name (optional)</label>
          <input type="text" id={`${prefix}-display-name`} name="display_name" maxlength={120} />
        </>
      )}
      {entry.category === 'calls' ? (
        <label class="check">
          <input type="checkbox" name="keep_every_call" value="yes" /> Bring in every call (no call filter). Leave
          unticked to decide on the connection's page first; it stays paused until then.
        </label>
      ) : null}
      <div class="actions">
        <button type="submit">
          {entry.authMethod === 'oauth'
            ? `Continue to ${entry.name}`
            : entry.authMethod === 'webhook'
              ? 'Create the ingest URL'
              : `Connect ${entry.name}`}
        </button>
      </div>
    </form>
  );
}
