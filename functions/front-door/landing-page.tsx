import { Layout } from '../web/layout.js';

/** `GET /`: five links, each saying what it is for. */
export function LandingPage(props: {
  nonce: string;
  links: { console: string; docs: string; guides: string; openapi: string; mcp: string };
}) {
  return (
    <Layout title="Welcome" nonce={props.nonce}>
      <h1>Customer Intelligence Platform</h1>
      <p>Your workspace's calls, emails, accounts and deals, searchable and answerable by people and agents.</p>
      <div class="grid">
        <section class="card">
          <h2>
            <a href={props.links.console}>Console</a>
          </h2>
          <p>Sign in to connect your data, create API keys, manage webhooks and the applications you authorized.</p>
        </section>
        <section class="card">
          <h2>
            <a href={props.links.docs}>API reference</a>
          </h2>
          <p>Every operation with its parameters, request example, scopes and role.</p>
        </section>
        <section class="card">
          <h2>
            <a href={props.links.guides}>Guides</a>
          </h2>
          <p>One page per surface: what it does, how it behaves, and examples to paste.</p>
        </section>
        <section class="card">
          <h2>
            <a href={props.links.openapi}>OpenAPI document</a>
          </h2>
          <p>
            The same reference as OpenAPI 3.1 JSON, for code generators and API clients:{' '}
            <code>{props.links.openapi}</code>
          </p>
        </section>
        <section class="card">
          <h2>MCP endpoint</h2>
          <p>
            For MCP clients (Streamable HTTP, OAuth 2.1 discovered from the first 401): <code>{props.links.mcp}</code>
          </p>
        </section>
      </div>
    </Layout>
  );
}
