import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { ConsoleMembership } from '../identity/console-sessions.js';
import { GUIDES_PATH } from '../guides.js';

/** What the header needs of a signed-in person; absent on pages shown before sign-in. */
export interface HeaderSession {
  email: string;
  current: ConsoleMembership | null;
  memberships: ConsoleMembership[];
  csrf: string;
}

const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --danger: #b42318; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 0.75rem 1.5rem; display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; }
header .brand { font-weight: 600; }
header nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
header nav a[aria-current="page"] { font-weight: 600; text-decoration: underline; }
header .who { margin-left: auto; display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; color: var(--muted); }
main { max-width: 60rem; margin: 2rem auto; padding: 0 1.5rem; }
section.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 0 0 0.75rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 0.9rem; }
label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
input[type=text], input[type=url], select { width: 100%; max-width: 32rem; padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
button { font: inherit; padding: 0.45rem 1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; flex-wrap: wrap; }
.hint { color: var(--muted); font-size: 0.9rem; }
.notice { border-left: 4px solid var(--accent); background: #eef5fc; padding: 0.75rem 1rem; margin-bottom: 1rem; }
.error { border-left: 4px solid var(--danger); background: #fdf0ef; padding: 0.75rem 1rem; margin-bottom: 1rem; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; width: 100%; max-width: 40rem; padding: 0.5rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
ul.scopes li { margin: 0.25rem 0; }
ul.scopes code { color: var(--muted); }
form.inline { display: inline; }
label.inline-label { display: inline; margin: 0 0.25rem 0 0; font-weight: 400; }
select.compact { width: auto; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
a.button { display: inline-block; padding: 0.45rem 1rem; border-radius: 6px; border: 1px solid var(--accent); color: var(--accent); text-decoration: none; background: #fff; }
a.button.danger { color: var(--danger); border-color: var(--danger); }
:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
textarea { width: 100%; max-width: 40rem; padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
input[type=password], input[type=email], input[type=number] { width: 100%; max-width: 32rem; padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
.monogram { display: inline-flex; width: 2.25rem; height: 2.25rem; border-radius: 8px; align-items: center; justify-content: center; background: #e7eef7; color: var(--accent); font-weight: 700; margin-right: 0.5rem; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; border: 1px solid var(--line); }
.badge.ok { background: #e8f5e9; border-color: #a5d6a7; }
.badge.bad { background: #fdf0ef; border-color: #f5b5ae; }
.badge.warn { background: #fff8e1; border-color: #ffe082; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: 1rem; }
.grid .card { margin: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0.75rem 0; }
label.check { display: flex; gap: 0.5rem; align-items: center; font-weight: 400; }
pre { white-space: pre-wrap; background: var(--bg); padding: 0.75rem; border-radius: 6px; }
`;

export function Layout(props: {
  title: string;
  nonce: string;
  session?: HeaderSession | undefined;
  active?: 'ask' | 'connections' | 'webhooks' | 'team' | 'usage' | 'agents' | 'keys' | 'apps' | undefined;
  children: Child;
}) {
  const { session } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · Customer Intelligence Platform`}</title>
        <style nonce={props.nonce}>{raw(STYLE)}</style>
      </head>
      <body>
        <header>
          <span class="brand">Customer Intelligence Platform</span>
          {session ? (
            <>
              <nav aria-label="Console">
                <a href="/console/ask" aria-current={props.active === 'ask' ? 'page' : undefined}>
                  Ask
                </a>
                <a href="/console/connections" aria-current={props.active === 'connections' ? 'page' : undefined}>
                  Connections
                </a>
                <a href="/console/agents" aria-current={props.active === 'agents' ? 'page' : undefined}>
                  Agents
                </a>
                <a href="/console/webhooks" aria-current={props.active === 'webhooks' ? 'page' : undefined}>
                  Webhooks
                </a>
                <a href="/console/team" aria-current={props.active === 'team' ? 'page' : undefined}>
                  Team
                </a>
                <a href="/console/usage" aria-current={props.active === 'usage' ? 'page' : undefined}>
                  Usage
                </a>
                <a href="/console/keys" aria-current={props.active === 'keys' ? 'page' : undefined}>
                  API keys
                </a>
                <a href="/console/apps" aria-current={props.active === 'apps' ? 'page' : undefined}>
                  Authorized applications
                </a>
                <a href={GUIDES_PATH}>Guides</a>
              </nav>
              <div class="who">
                {session.memberships.length > 1 && session.current ? (
                  <form method="post" action="/console/workspace" class="inline">
                    <input type="hidden" name="csrf_token" value={session.csrf} />
                    <label for="workspace-switch" class="inline-label">
                      Workspace
                    </label>
                    <select id="workspace-switch" name="workspace_id" class="compact">
                      {session.memberships.map((m) => (
                        <option value={m.workspaceId} selected={m.workspaceId === session.current?.workspaceId}>
                          {m.workspaceName}
                        </option>
                      ))}
                    </select>{' '}
                    <button type="submit" class="secondary">
                      Switch
                    </button>
                  </form>
                ) : session.current ? (
                  <span>{session.current.workspaceName}</span>
                ) : null}
                <span>{session.email}</span>
                <form method="post" action="/console/sign-out" class="inline">
                  <input type="hidden" name="csrf_token" value={session.csrf} />
                  <button type="submit" class="secondary">
                    Sign out
                  </button>
                </form>
              </div>
            </>
          ) : null}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

export function MessagePage(props: {
  nonce: string;
  title: string;
  message: string;
  kind?: 'error' | 'notice';
  link?: { href: string; text: string };
  session?: HeaderSession | undefined;
}) {
  return (
    <Layout title={props.title} nonce={props.nonce} session={props.session}>
      <h1>{props.title}</h1>
      <div class={props.kind ?? 'error'} role={props.kind === 'notice' ? 'status' : 'alert'}>
        {props.message}
      </div>
      {props.link ? <a href={props.link.href}>{props.link.text}</a> : null}
    </Layout>
  );
}

/** The outcome of the last action: an error (announced at once) or a notice (announced politely). */
export function Flash(props: { error?: string | undefined; notice?: string | undefined }) {
  return (
    <>
      {props.error ? (
        <div class="error" role="alert">
          {props.error}
        </div>
      ) : null}
      {props.notice ? (
        <div class="notice" role="status">
          {props.notice}
        </div>
      ) : null}
    </>
  );
}

/** A link to a destructive action's confirmation page, whose accessible name says what it acts on. */
export function DangerLink(props: { href: string; label: string; text: string }) {
  return (
    <a href={props.href} class="button danger" aria-label={props.label}>
      {props.text}
    </a>
  );
}
