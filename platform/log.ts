/** Structured, one-line JSON logs; secrets never reach here (callers pass ids, not credentials). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type LogWriter = (line: string, level: Exclude<LogLevel, 'silent'>) => void;

/** Node: every line to stderr, so stdout stays clean for the admin CLI's JSON. */
export const stderrWriter: LogWriter = (line) => console.error(line);
/** Workers: the console method of the level, so the dashboard shows info as info. */
export const consoleByLevelWriter: LogWriter = (line, level) =>
  (level === 'error' ? console.error : level === 'warn' ? console.warn : console.log)(line);

export function createLogger(level: LogLevel, write: LogWriter = stderrWriter): Logger {
  const at = (l: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[l] < RANK[level]) return;
    write(JSON.stringify({ level: l, time: new Date().toISOString(), message, ...serialize(fields) }), l);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function serialize(fields?: Record<string, unknown>): Record<string, unknown> {
  if (!fields) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] =
      v instanceof Error
        ? {
            name: v.name,
            message: redactQueryParams(v.message),
            stack: v.stack && redactQueryParams(v.stack),
            ...causeOf(v),
          }
        : v;
  }
  return out;
}

/**
 * drizzle's query errors read "Failed query: <sql>\nparams: <values>"; the values can be hashes of
 * credentials or customer text, so logs keep the statement and drop the parameters.
 */
function redactQueryParams(text: string): string {
  return text.replace(/\nparams: [^\n]*/g, '\nparams: [omitted]');
}

/** The underlying driver error says why a query failed (connection refused, constraint...). */
function causeOf(e: Error): Record<string, unknown> {
  const cause = (e as { cause?: unknown }).cause;
  return cause instanceof Error ? { cause: { name: cause.name, message: redactQueryParams(cause.message) } } : {};
}
