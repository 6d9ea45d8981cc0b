/** libpg-query's JSON parse tree, as the guard reads it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A node list, or none. */
export const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

/** The names of a list of `String` nodes (a qualified name, an alias's columns), skipping other nodes. */
export const strings = (nodes: Json | undefined): string[] =>
  list(nodes).flatMap((n) => (isObj(n) && isObj(n.String) && typeof n.String.sval === 'string' ? [n.String.sval] : []));

/** Node kinds are the PascalCase keys of the JSON tree; fields are snake_case or camelCase. */
export const isNodeKind = (key: string) => /^[A-Z]/.test(key);
