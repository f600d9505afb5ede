import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireAuth } from '../platform/http/auth.js';
import { systemStatus } from './status.js';

/** True when the database answers. The health endpoint reports nothing else on purpose. */
export function databaseUp(ctx: AppContext): boolean {
  try {
    return ctx.database.raw.prepare('SELECT 1 AS ok').get() !== undefined;
  } catch {
    return false;
  }
}

/**
 * GET /health and GET /status of {base_url} (spec §4.1). /health answers without a key: it must
 * report 503 exactly when the database is down, and a key cannot be checked then (docs/decisions.md).
 */
export function healthRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use('/status', requireAuth(ctx.credentialResolvers));
  router.get('/health', (_req, res) => {
    const up = databaseUp(ctx);
    res.status(up ? 200 : 503).json({ status: up ? 'healthy' : 'down', timestamp: new Date(ctx.clock.now()).toISOString() });
  });
  router.get('/status', (_req, res) => {
    const body = systemStatus(databaseUp(ctx), ctx.clock.now());
    res.status(body.status === 'healthy' ? 200 : 503).json(body);
  });
  return router;
}
