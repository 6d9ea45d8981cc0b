import { type Guide, GUIDES_PATH } from '../guides.js';
import { Layout } from '../web/layout.js';

/** `/docs/guides`: every guide, one line each, beside the reference (the console links here). */
export function GuidesPage(props: {
  nonce: string;
  guides: readonly Guide[];
  links: { docs: string; openapi: string };
}) {
  return (
    <Layout title="Guides" nonce={props.nonce}>
      <h1>Guides</h1>
      <p>
        One page per surface: what it does, its operations and MCP actions, examples to paste. The{' '}
        <a href={props.links.docs}>API reference</a> has every operation's fields; each operation there links its guide.
        The guides are the repository's <code>docs/guides/</code>, served here as Markdown text.
      </p>
      <ul>
        {props.guides.map((guide) => (
          <li>
            <a href={`${GUIDES_PATH}/${guide.page}`}>{guide.title}</a> <code>docs/guides/{guide.page}</code>
          </li>
        ))}
      </ul>
    </Layout>
  );
}
