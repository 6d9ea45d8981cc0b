import { Layout } from '../web/layout.js';
type Json = Record<string, unknown>;
/** The OpenAPI document as parsed JSON, read defensively (only what the reference shows). */
type OpenApiDocument = Json;

export interface ReferenceField {
  name: string;
  where: string;
  type: string;
  required: boolean;
  description: string;
}

export interface ReferenceOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  scopes: string[];
  minRole: string;
  fields: ReferenceField[];
  example: unknown;
  /** Its guide section's URL (the document's `externalDocs`), or '' when it has none. */
  guide: string;
}

export interface Reference {
  title: string;
  server: string;
  groups: { tag: string; guide: string; operations: ReferenceOperation[] }[];
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** A `$ref` into components resolved (one level is all the reference shows). */
function resolve(doc: OpenApiDocument, schema: unknown): Json {
  if (!isObject(schema)) return {};
  const ref = text(schema.$ref);
  if (!ref) return schema;
  const name = ref.split('/').at(-1) ?? '';
  const components = isObject(doc.components) ? doc.components : {};
  const found = isObject(components.schemas) ? components.schemas[name] : undefined;
  return isObject(found) ? found : {};
}

function typeOf(doc: OpenApiDocument, schema: unknown): string {
  const s = resolve(doc, schema);
  if (Array.isArray(s.enum)) return s.enum.map((e) => JSON.stringify(e)).join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(s[key])) return (s[key] as unknown[]).map((x) => typeOf(doc, x)).join(' | ');
  if (s.type === 'array') return `${typeOf(doc, s.items)}[]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return text(s.type) || (isObject(schema) && schema.$ref ? (text(schema.$ref).split('/').at(-1) ?? '') : 'any');
}

/** The reference's content, read once from the OpenAPI document (the one the API serves). */
export function referenceFrom(document: unknown): Reference {
  const doc: OpenApiDocument = isObject(document) ? document : {};
  const groups = new Map<string, ReferenceOperation[]>();
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    for (const [method, raw] of Object.entries(item as Json)) {
      if (!isObject(raw) || !['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const fields: ReferenceField[] = [];
      for (const p of Array.isArray(raw.parameters) ? raw.parameters : []) {
        if (!isObject(p)) continue;
        fields.push({
          name: text(p.name),
          where: text(p.in),
          type: typeOf(doc, p.schema),
          required: p.required === true,
          description: text(p.description) || text(resolve(doc, p.schema).description),
        });
      }
      const media = isObject(raw.requestBody)
        ? (raw.requestBody.content as Json | undefined)?.['application/json']
        : null;
      const body = isObject(media) ? resolve(doc, media.schema) : null;
      if (body && isObject(body.properties)) {
        const required = Array.isArray(body.required) ? body.required : [];
        for (const [name, schema] of Object.entries(body.properties))
          fields.push({
            name,
            where: 'body',
            type: typeOf(doc, schema),
            required: required.includes(name),
            description: text(resolve(doc, schema).description),
          });
      }
      const tag = Array.isArray(raw.tags) ? text(raw.tags[0]) : 'Other';
      const list = groups.get(tag) ?? [];
      list.push({
        id: text(raw.operationId),
        method: method.toUpperCase(),
        path,
        summary: text(raw.summary),
        description: text(raw.description),
        scopes: Array.isArray(raw['x-scopes']) ? raw['x-scopes'].map(text) : [],
        minRole: text(raw['x-min-role']),
        fields,
        example: isObject(media) ? (media.example ?? body?.example ?? null) : null,
        guide: isObject(raw.externalDocs) ? text(raw.externalDocs.url) : '',
      });
      groups.set(tag, list);
    }
  }
  return {
    title: isObject(doc.info) ? text(doc.info.title) : '',
    server: Array.isArray(doc.servers) && isObject(doc.servers[0]) ? text(doc.servers[0].url) : '',
    groups: [...groups].map(([tag, operations]) => ({
      tag,
      guide: operations.find((op) => op.guide)?.guide ?? '',
      operations,
    })),
  };
}

const anchor = (id: string) => `op-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** `/docs`: the API reference, server-rendered from the OpenAPI document, no script needed. */
export function ReferencePage(props: {
  nonce: string;
  reference: Reference;
  links: { console: string; openapi: string; mcp: string; guides: string };
}) {
  const { reference } = props;
  return (
    <Layout title="API reference" nonce={props.nonce}>
      <h1>{reference.title}: reference</h1>
      <p>
        Base URL <code>{reference.server}</code>. Every success is <code>{'{"data": ...}'}</code>, every error{' '}
        <code>{'{"error": {"code", "message", "details"}}'}</code>. Authenticate with <code>X-API-Key</code> (keys from
        the <a href={props.links.console}>console</a>) or an OAuth bearer token. The same operations are MCP tools at{' '}
        <code>{props.links.mcp}</code>. Machine-readable: <a href={props.links.openapi}>openapi.json</a>. What each
        surface does, with examples: the <a href={props.links.guides}>guides</a>.
      </p>
      <nav aria-label="Operations" class="card">
        {reference.groups.map((g) => (
          <p>
            <strong>{g.tag}</strong>:{' '}
            {g.operations.map((op, i) => (
              <>
                {i > 0 ? ', ' : ''}
                <a href={`#${anchor(op.id)}`}>{op.summary || op.id}</a>
              </>
            ))}
          </p>
        ))}
      </nav>
      {reference.groups.map((g) => (
        <section aria-labelledby={`tag-${anchor(g.tag)}`}>
          <h2 id={`tag-${anchor(g.tag)}`}>{g.tag}</h2>
          {g.guide ? (
            <p>
              <a href={g.guide}>Guide: {g.tag}</a>
            </p>
          ) : null}
          {g.operations.map((op) => (
            <article class="card" id={anchor(op.id)} aria-labelledby={`${anchor(op.id)}-h`}>
              <h3 id={`${anchor(op.id)}-h`}>
                <code>
                  {op.method} {op.path}
                </code>
              </h3>
              <p>
                <strong>{op.summary}</strong>
              </p>
              {op.description ? <p class="hint">{op.description}</p> : null}
              <p class="hint">
                <code>{op.id}</code>
                {op.scopes.length ? ` · scopes ${op.scopes.join(', ')}` : ''}
                {op.minRole ? ` · role ${op.minRole} or above` : ''}
              </p>
              {op.fields.length ? (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">In</th>
                      <th scope="col">Type</th>
                      <th scope="col">Description</th>
                    </tr>
                  </thead>
                  <tbody>
                    {op.fields.map((f) => (
                      <tr>
                        <td>
                          <code>{f.name}</code>
                          {f.required ? ' (required)' : ''}
                        </td>
                        <td>{f.where}</td>
                        <td>
                          <code>{f.type}</code>
                        </td>
                        <td>{f.description}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : null}
              {op.example !== null ? (
                <>
                  <h4>Request example</h4>
                  <pre>
                    <code>{JSON.stringify(op.example, null, 2)}</code>
                  </pre>
                </>
              ) : null}
            </article>
          ))}
        </section>
      ))}
    </Layout>
  );
}
