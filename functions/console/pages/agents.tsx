import type { Child } from 'hono/jsx';
import { when } from './connections.js';
import { Flash, Layout, type HeaderSession } from '../../web/layout.js';

/** Agents, routines and documents share one section of the console, with its own sub-navigation. */
export function WorkSection(props: {
  title: string;
  nonce: string;
  session: HeaderSession;
  current: 'agents' | 'routines' | 'documents';
  notice?: string | undefined;
  error?: string | undefined;
  children: Child;
}) {
  const link = (href: string, key: typeof props.current, text: string) => (
    <a href={href} aria-current={props.current === key ? 'page' : undefined}>
      {text}
    </a>
  );
  return (
    <Layout title={props.title} nonce={props.nonce} session={props.session} active="agents">
      <nav aria-label="Agents, routines and documents" class="actions">
        {link('/console/agents', 'agents', 'Agents')}
        {link('/console/routines', 'routines', 'Routines')}
        {link('/console/documents', 'documents', 'Documents')}
      </nav>
      <h1>{props.title}</h1>
      <Flash error={props.error} notice={props.notice} />
      {props.children}
    </Layout>
  );
}

export interface AgentView {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  tool_blocklist: string[];
  authored_by: 'amdahl' | 'tenant';
  locked: boolean;
  created_at: string | null;
  prompt?: string;
}

interface PageBase {
  nonce: string;
  session: HeaderSession;
  canWrite: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

/** Name, description, prompt and blocklist: the one form for creating and editing an agent. */
function AgentFields(props: { agent?: AgentView | undefined; draft?: Record<string, string> | undefined }) {
  const value = (key: 'name' | 'description' | 'prompt' | 'tool_blocklist', current: string) =>
    props.draft?.[key] ?? current;
  return (
    <>
      <label for="agent-name">Name</label>
      <input
        type="text"
        id="agent-name"
        name="name"
        required
        maxlength={120}
        value={value('name', props.agent?.name ?? '')}
      />
      <label for="agent-description">Description</label>
      <input
        type="text"
        id="agent-description"
        name="description"
        value={value('description', props.agent?.description ?? '')}
      />
      <label for="agent-prompt">Instructions</label>
      <textarea id="agent-prompt" name="prompt" rows={8} required>
        {value('prompt', props.agent?.prompt ?? '')}
      </textarea>
      <label for="agent-blocklist">Tools it is not offered (operation ids, one a line)</label>
      <textarea id="agent-blocklist" name="tool_blocklist" rows={3}>
        {value('tool_blocklist', (props.agent?.tool_blocklist ?? []).join('\n'))}
      </textarea>
    </>
  );
}

export function AgentsPage(props: PageBase & { agents: AgentView[]; draft?: Record<string, string> | undefined }) {
  return (
    <WorkSection
      title="Agents"
      nonce={props.nonce}
      session={props.session}
      current="agents"
      notice={props.notice}
      error={props.error}
    >
      <section class="card" aria-labelledby="agents-heading">
        <h2 id="agents-heading">The roster</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Slug</th>
              <th scope="col">By</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {props.agents.map((a) => (
              <tr>
                <td>
                  <a href={`/console/agents/${a.id}`}>{a.name}</a>
                </td>
                <td>
                  <code>{a.slug}</code>
                </td>
                <td>{a.authored_by === 'amdahl' ? 'library (locked)' : 'this workspace'}</td>
                <td>{a.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {props.canWrite ? (
        <section class="card" aria-labelledby="new-agent-heading">
          <h2 id="new-agent-heading">Create an agent</h2>
          <form method="post" action="/console/agents">
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <AgentFields draft={props.draft} />
            <div class="actions">
              <button type="submit">Create</button>
            </div>
          </form>
        </section>
      ) : null}
    </WorkSection>
  );
}

export function AgentPage(props: PageBase & { agent: AgentView }) {
  const { agent } = props;
  return (
    <WorkSection
      title={agent.name}
      nonce={props.nonce}
      session={props.session}
      current="agents"
      notice={props.notice}
      error={props.error}
    >
      <section class="card" aria-labelledby="agent-heading">
        <h2 id="agent-heading">About</h2>
        <dl class="facts">
          <dt>Slug</dt>
          <dd>
            <code>{agent.slug}</code>
          </dd>
          <dt>By</dt>
          <dd>{agent.authored_by === 'amdahl' ? 'the library (locked: edits are refused)' : 'this workspace'}</dd>
          <dt>Created</dt>
          <dd>{when(agent.created_at, '—')}</dd>
          <dt>Not offered</dt>
          <dd>
            {agent.tool_blocklist.length ? agent.tool_blocklist.join(', ') : 'nothing: every tool the caller may use'}
          </dd>
        </dl>
      </section>
      {props.canWrite && !agent.locked ? (
        <section class="card" aria-labelledby="edit-agent-heading">
          <h2 id="edit-agent-heading">Edit</h2>
          <form method="post" action={`/console/agents/${agent.id}`}>
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <AgentFields agent={agent} />
            <div class="actions">
              <button type="submit">Save</button>
            </div>
          </form>
        </section>
      ) : (
        <section class="card" aria-labelledby="prompt-heading">
          <h2 id="prompt-heading">Instructions</h2>
          <pre>{agent.prompt ?? ''}</pre>
        </section>
      )}
    </WorkSection>
  );
}
