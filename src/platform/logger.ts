import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout. Secrets never reach here: auth headers and cookies are redacted.
 * Written synchronously, one write per line: pino's default asynchronous stdout wrote the last
 * lines of a shutdown in the wrong order (`done` before `database closed`) in 8–12 of 30 runs when
 * a PostgreSQL LISTEN connection closed just before, and flushing before exit did not help; with
 * sync writes, 0 of 30 (docs/decisions.md "Logging: synchronous stdout").
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key'], remove: true },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
