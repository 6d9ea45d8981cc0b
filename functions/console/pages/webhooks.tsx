import type { z } from 'zod';
import type { WebhookDeliverySchema, WebhookSchema } from '../../webhooks/schemas.js';
import { when } from './connections.js';
import { DangerLink, Flash, Layout, type HeaderSession } from '../../web/layout.js';

export type WebhookView = z.infer<typeof WebhookSchema>;
export type DeliveryView = z.infer<typeof WebhookDeliverySchema>;

/** A webhook just registered: its signing secret, shown this once (from the session's sealed flash). */
export interface WebhookSecret {
  webhook_id: string;
  url: string;
  secret: string;
}

export interface WebhooksPageProps {
  nonce: string;
  session: HeaderSession;
  webhooks: WebhookView[];
  events: readonly string[];
  /** Editors and admins register and change webhooks; the operations decide either way. */
  canWrite: boolean;
  created?: WebhookSecret | null | undefined;
  notice?: string | undefined;
  error?: string | undefined;
  /** What the refused form held, so a person corrects it rather than retyping it. */
  draft?: { url: string; events: string[] } | undefined;
}

function ActiveBadge(props: { hook: WebhookView }) {
  if (props.hook.active) return <span class="badge ok">active</span>;
  return <span class="badge bad">{props.hook.disabled_reason ? `off (${props.hook.disabled_reason})` : 'off'}</span>;
}

/** `/console/webhooks`: the workspace's webhooks and the form to register one. */
export function WebhooksPage(props: WebhooksPageProps) {
  const checked = new Set(props.draft?.events ?? ['session.completed']);
  return (
    <Layout title="Webhooks" nonce={props.nonce} session={props.session} active="webhooks">
      <h1>Webhooks</h1>
      <Flash error={props.error} notice={props.notice} />
      {props.created ? (
        <section class="card" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Webhook registered: its signing secret</h2>
          <p>
            Copy it now: this is the only time it is shown. Your endpoint verifies each delivery's{' '}
            <code>webhook-signature</code> header with it (Standard Webhooks).
          </p>
          <label for="webhook-url">Endpoint</label>
          <input type="text" id="webhook-url" class="secret" readonly value={props.created.url} />
          <label for="webhook-secret">Signing secret</label>
          <input type="text" id="webhook-secret" class="secret" readonly value={props.created.secret} />
          <div class="actions">
            <a href={`/console/webhooks/${props.created.webhook_id}`}>Open the webhook</a>
          </div>
        </section>
      ) : null}
      <section class="card" aria-labelledby="list-heading">
        <h2 id="list-heading">Registered webhooks</h2>
        {props.webhooks.length === 0 ? (
          <p>No webhooks yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {props.webhooks.map((w) => (
                <tr>
                  <td>
                    <a href={`/console/webhooks/${w.id}`}>{w.url}</a>
                  </td>
                  <td>{w.events.join(', ')}</td>
                  <td>
                    <ActiveBadge hook={w} />
                  </td>
                  <td>{when(w.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {props.canWrite ? (
        <section class="card" aria-labelledby="register-heading">
          <h2 id="register-heading">Register a webhook</h2>
          <form method="post" action="/console/webhooks">
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <label for="register-url">Endpoint URL</label>
            <input
              type="url"
              id="register-url"
              name="url"
              required
              placeholder="https://hooks.example.com/cip"
              value={props.draft?.url ?? ''}
            />
            <EventChoices events={props.events} checked={checked} idPrefix="register" />
            <div class="actions">
              <button type="submit">Register</button>
            </div>
          </form>
        </section>
      ) : (
        <p class="hint">Registering webhooks needs the editor role.</p>
      )}
    </Layout>
  );
}

export function EventChoices(props: { events: readonly string[]; checked: Set<string>; idPrefix: string }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {props.events.map((e) => (
        <label class="check" for={`${props.idPrefix}-event-${e}`}>
          <input
            type="checkbox"
            id={`${props.idPrefix}-event-${e}`}
            name="events"
            value={e}
            checked={props.checked.has(e)}
          />
          <code>{e}</code>
        </label>
      ))}
    </fieldset>
  );
}

export interface WebhookPageProps {
  nonce: string;
  session: HeaderSession;
  hook: WebhookView;
  events: readonly string[];
  deliveries: DeliveryView[];
  deliveriesTotal: number;
  canWrite: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

function DeliveryStatus(props: { delivery: DeliveryView }) {
  const code = props.delivery.status_code;
  if (code === null) return <span class="badge bad">no response</span>;
  return <span class={`badge ${code >= 200 && code < 300 ? 'ok' : 'bad'}`}>{code}</span>;
}

/** `/console/webhooks/{id}`: its events and switch, a ping, and every delivery attempt with a redeliver. */
export function WebhookPage(props: WebhookPageProps) {
  const { hook } = props;
  const base = `/console/webhooks/${hook.id}`;
  return (
    <Layout title="Webhook" nonce={props.nonce} session={props.session} active="webhooks">
      <p>
        <a href="/console/webhooks">All webhooks</a>
      </p>
      <h1>{hook.url}</h1>
      <Flash error={props.error} notice={props.notice} />
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Settings</h2>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <ActiveBadge hook={hook} />
          </dd>
          <dt>Events</dt>
          <dd>{hook.events.join(', ')}</dd>
          <dt>Registered</dt>
          <dd>{when(hook.created_at)}</dd>
          <dt>Changed</dt>
          <dd>{when(hook.updated_at)}</dd>
        </dl>
        {props.canWrite ? (
          <>
            <form method="post" action={`${base}/settings`}>
              <input type="hidden" name="csrf_token" value={props.session.csrf} />
              <EventChoices events={props.events} checked={new Set(hook.events)} idPrefix="edit" />
              <label class="check" for="edit-active">
                <input type="checkbox" id="edit-active" name="active" value="yes" checked={hook.active} />
                Active (deliveries are sent)
              </label>
              <div class="actions">
                <button type="submit">Save</button>
              </div>
            </form>
            <div class="actions">
              <form method="post" action={`${base}/ping`} class="inline">
                <input type="hidden" name="csrf_token" value={props.session.csrf} />
                <button type="submit" class="secondary" disabled={!hook.active}>
                  Send a test event (ping)
                </button>
              </form>
              <DangerLink href={`${base}/delete`} label={`Delete webhook ${hook.url}`} text="Delete…" />
            </div>
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        {props.deliveries.length === 0 ? (
          <p>No deliveries yet. Send a ping to see one.</p>
        ) : (
          <>
            <p class="hint">
              The {props.deliveries.length} most recent of {props.deliveriesTotal} attempts, newest first.
            </p>
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Status</th>
                  <th scope="col">Error</th>
                  <th scope="col">Time</th>
                  <th scope="col">
                    <span class="hint">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.deliveries.map((d) => (
                  <tr>
                    <td>{when(d.created_at)}</td>
                    <td>
                      <code>{d.event}</code>
                    </td>
                    <td>{d.attempt}</td>
                    <td>
                      <DeliveryStatus delivery={d} />
                    </td>
                    <td>{d.error ?? ''}</td>
                    <td>{d.duration_ms === null ? '' : `${d.duration_ms} ms`}</td>
                    <td>
                      {props.canWrite ? (
                        <form method="post" action={`${base}/deliveries/${d.id}/redeliver`} class="inline">
                          <input type="hidden" name="csrf_token" value={props.session.csrf} />
                          <button
                            type="submit"
                            class="secondary"
                            aria-label={`Redeliver ${d.event} of ${d.created_at}`}
                          >
                            Redeliver
                          </button>
                        </form>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
    </Layout>
  );
}
