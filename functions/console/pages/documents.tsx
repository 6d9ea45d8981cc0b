import { WorkSection } from './agents.js';
import { when } from './connections.js';
import type { HeaderSession } from '../../web/layout.js';

export interface DocumentView {
  id: string;
  title: string;
  status: string;
  current_version: number | null;
  latest_version: number;
  routine_id: string | null;
  updated_at: string;
}

export interface VersionView {
  version: number;
  status: string;
  markdown: string;
  reason: string | null;
  decided_at: string | null;
  decision_note: string | null;
  created_at: string;
}

interface PageBase {
  nonce: string;
  session: HeaderSession;
  canDecide: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

const TONE: Record<string, string> = { published: 'ok', proposed: 'warn', rejected: 'bad' };
const StatusBadge = (props: { status: string }) => (
  <span class={`badge ${TONE[props.status] ?? 'warn'}`}>{props.status}</span>
);

export function DocumentsPage(props: Omit<PageBase, 'canDecide'> & { documents: DocumentView[]; total: number }) {
  return (
    <WorkSection
      title="Documents"
      nonce={props.nonce}
      session={props.session}
      current="documents"
      notice={props.notice}
      error={props.error}
    >
      <section class="card" aria-labelledby="documents-heading">
        <h2 id="documents-heading">Documents agents wrote</h2>
        {props.documents.length === 0 ? (
          <p>No documents yet. Routines and research with outputs write them.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Published version</th>
                <th scope="col">Latest</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {props.documents.map((d) => (
                <tr>
                  <td>
                    <a href={`/console/documents/${d.id}`}>{d.title}</a>
                  </td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>{d.current_version ?? 'none yet'}</td>
                  <td>{d.latest_version}</td>
                  <td>{when(d.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </WorkSection>
  );
}

export function DocumentPage(props: PageBase & { document: DocumentView; versions: VersionView[] }) {
  const { document: doc } = props;
  const newestFirst = [...props.versions].reverse();
  return (
    <WorkSection
      title={doc.title}
      nonce={props.nonce}
      session={props.session}
      current="documents"
      notice={props.notice}
      error={props.error}
    >
      <p>
        <StatusBadge status={doc.status} /> Published version: {doc.current_version ?? 'none yet'}; latest:{' '}
        {doc.latest_version}.
      </p>
      {newestFirst.map((v) => (
        <section class="card" aria-labelledby={`version-${v.version}`}>
          <h2 id={`version-${v.version}`}>
            Version {v.version} <StatusBadge status={v.status} />
          </h2>
          <p class="hint">
            Written {when(v.created_at)}
            {v.reason ? `; proposed because: ${v.reason}` : ''}
            {v.decided_at ? `; decided ${when(v.decided_at)}` : ''}
            {v.decision_note ? ` (${v.decision_note})` : ''}
          </p>
          <pre>{v.markdown}</pre>
          {props.canDecide && v.status === 'proposed' ? (
            <div class="actions">
              <form method="post" action={`/console/documents/${doc.id}/versions/${v.version}/promote`} class="inline">
                <input type="hidden" name="csrf_token" value={props.session.csrf} />
                <button type="submit">Publish version {v.version}</button>
              </form>
              <form method="post" action={`/console/documents/${doc.id}/versions/${v.version}/reject`} class="inline">
                <input type="hidden" name="csrf_token" value={props.session.csrf} />
                <button type="submit" class="danger">
                  Reject version {v.version}
                </button>
              </form>
            </div>
          ) : null}
        </section>
      ))}
    </WorkSection>
  );
}
