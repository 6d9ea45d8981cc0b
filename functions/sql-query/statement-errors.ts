import { ApiError } from '../../platform/errors.js';

/**
 * The failures the caller's own statement decides: Postgres refuses the same text every time, so each is
 * the caller's 400 invalid_argument naming `sql`, never a 500. A SQLSTATE is looked up by its code, then by
 * its class (the first two characters); the reason is PostgreSQL's condition name, so a caller can look it
 * up. Class 22 (data exception: a date that does not exist, a bad cast, division by zero) comes from the
 * statement's values; class 42 (syntax error or access rule violation) from its names, types and shape
 * once Postgres plans it against the views: a column, table or function signature the views do not have,
 * types that do not match, a grouping mistake, or a privilege the least-privilege role lacks (what the
 * parser guard let through and the role refuses).
 */
const BY_CODE: Readonly<Record<string, { reason: string; advice?: string }>> = {
  '42501': {
    reason: 'insufficient_privilege',
    advice: 'Caller SQL reads only the views and calls only the allowed functions.',
  },
  '42601': { reason: 'syntax_error' },
  '42602': { reason: 'invalid_name' },
  '42622': { reason: 'name_too_long' },
  '42701': { reason: 'duplicate_column' },
  '42702': { reason: 'ambiguous_column' },
  '42703': { reason: 'undefined_column' },
  '42704': { reason: 'undefined_object' },
  '42712': { reason: 'duplicate_alias' },
  '42725': { reason: 'ambiguous_function' },
  '42803': { reason: 'grouping_error' },
  '42804': { reason: 'datatype_mismatch' },
  '42809': { reason: 'wrong_object_type' },
  '42846': { reason: 'cannot_coerce' },
  '42883': { reason: 'undefined_function', advice: 'Caller SQL calls only the allowed functions.' },
  '42P01': { reason: 'undefined_table', advice: 'Caller SQL reads only the views and its own CTEs.' },
  '42P02': { reason: 'undefined_parameter' },
  '42P08': { reason: 'ambiguous_parameter' },
  '42P09': { reason: 'ambiguous_alias' },
  '42P10': { reason: 'invalid_column_reference' },
  '42P18': { reason: 'indeterminate_datatype' },
  '42P19': { reason: 'invalid_recursion' },
  '42P20': { reason: 'windowing_error' },
  '42P21': { reason: 'collation_mismatch' },
  '42P22': { reason: 'indeterminate_collation' },
};

const BY_CLASS: Readonly<Record<string, string>> = {
  '22': 'invalid_value',
  '42': 'invalid_statement',
};

/** What a database error carries: the driver's own, or the one a query builder wrapped as its cause. */
export function databaseCause(e: unknown): { code?: string; message?: string } {
  const outer = e as { cause?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown };
  const raw = outer.cause !== undefined && outer.cause !== null ? outer.cause : outer;
  return {
    ...(typeof raw.code === 'string' ? { code: raw.code } : {}),
    ...(typeof raw.message === 'string' ? { message: raw.message } : {}),
  };
}

/**
 * The caller's 400 for a failure of the caller's statement that its text decides, or undefined for any
 * other failure (a timeout, a read-only violation, the database going away). The message is PostgreSQL's
 * own text for the statement; nothing else of the error (its position in the server's wrapping of the
 * statement, its internal query, the server's hints) is passed on.
 */
export function callerStatementError(e: unknown): ApiError | undefined {
  const { code, message } = databaseCause(e);
  if (code === undefined) return undefined;
  const known = BY_CODE[code];
  const reason = known?.reason ?? BY_CLASS[code.slice(0, 2)];
  if (reason === undefined) return undefined;
  const problem = message ?? reason.replaceAll('_', ' ');
  return new ApiError(
    'invalid_argument',
    `Invalid request: sql: ${problem}.${known?.advice ? ` ${known.advice}` : ''}`,
    { field: 'sql', reason, sqlstate: code, fields: [{ field: 'sql', problem, code: reason }] },
  );
}
