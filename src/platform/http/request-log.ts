import type { RequestHandler } from 'express';
import { ulid } from '../ids.js';
import type { Logger } from '../logger.js';
import './types.js';

/** One log line per request: id, account, route, status, duration. Never bodies or credentials. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    req.requestId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : ulid();
    res.setHeader('X-Request-Id', req.requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const matched = routePath(req.route);
      const line = {
        requestId: req.requestId,
        method: req.method,
        route: matched ? `${req.baseUrl}${matched}` : req.path,
        status: res.statusCode,
        durationMs: Math.round(ms * 10) / 10,
        accountId: req.principal?.accountId,
        ...(req.logNote !== undefined && { note: req.logNote }),
      };
      if (res.statusCode >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}

/** Express types the matched route as `any`; its path is a string (or a pattern) when one matched. */
function routePath(route: unknown): string | undefined {
  const p = (route as { path?: unknown } | undefined)?.path;
  return typeof p === 'string' ? p : p instanceof RegExp ? String(p) : undefined;
}
