import { ApiError } from '../../platform/errors.js';
import type { RawInput } from '../invoke.js';
import type { McpResource } from './catalog.js';

/**
 * A resource URI read against the catalog: its path (before `?`) picks the resource, and its query
 * string carries the operation's query fields (`artifact://list?limit=10&offset=10`), which the
 * operation's own query schema then validates, as over REST. A list resource takes the paging its
 * REST list takes; a field the operation's query does not declare is refused, never ignored.
 */
export interface ResourceMatch {
  resource: McpResource;
  /** The operation's input, read only after the caller is authorized (runOperation's loadInput). */
  input(): RawInput;
}

/** The first resource (fixed URIs before templates) whose pattern the URI's path matches, or null. */
export function matchResource(resources: readonly McpResource[], uri: string): ResourceMatch | null {
  const at = uri.indexOf('?');
  const path = at === -1 ? uri : uri.slice(0, at);
  const search = at === -1 ? '' : uri.slice(at + 1).replace(/#.*$/, '');
  for (const resource of resources) {
    const match = resource.pattern.exec(path);
    if (!match) continue;
    return {
      resource,
      input: () => ({
        params: Object.fromEntries(
          resource.placeholders.map((name, i) => [name, decodeUriPart(name, match[i + 1] ?? '')]),
        ),
        query: queryOf(resource, search),
      }),
    };
  }
  return null;
}

function queryOf(resource: McpResource, search: string): Record<string, string> {
  const allowed = Object.keys(resource.op.query?.shape ?? {});
  const query: Record<string, string> = {};
  for (const part of search.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decodeUriPart('query', (eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
    const value = decodeUriPart(name, (eq === -1 ? '' : part.slice(eq + 1)).replace(/\+/g, ' '));
    if (!allowed.includes(name))
      throw new ApiError(
        'invalid_argument',
        `${resource.uri} takes no query field "${name}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}.`,
        { fields: [{ field: name, problem: `unknown field "${name}"`, code: 'unknown_field', allowed }] },
      );
    if (name in query)
      throw new ApiError('invalid_argument', `The query field "${name}" is given more than once.`, {
        fields: [{ field: name, problem: 'given more than once', code: 'repeated_field' }],
      });
    query[name] = value;
  }
  return query;
}

function decodeUriPart(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ApiError('invalid_argument', `The resource URI's ${name} is not validly percent-encoded.`, {
      fields: [{ field: name, problem: 'malformed percent-encoding', code: 'invalid_format' }],
    });
  }
}
