import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout. Secrets never reach here: auth headers and cookies are redacted. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key'], remove: true },
  });
}
