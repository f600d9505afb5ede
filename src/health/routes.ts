import { z } from 'zod';
import { defineRoute, reply, type RouteSpec } from '../platform/http/route.js';
import type { HealthService } from './service.js';
import { SystemStatusSchema, systemStatus } from './status.js';

const HealthResponse = z.object({ status: z.enum(['healthy', 'down']), timestamp: z.string() });

/**
 * GET /health and GET /status of {base_url} (spec §4.1). /health answers without a key: it must
 * report 503 exactly when the database is down, and a key cannot be checked then (docs/decisions.md).
 */
export function healthRoutes({ health }: { health: HealthService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness and database check for monitoring',
      tags: ['Status'],
      auth: 'public',
      responses: { 200: { description: 'Healthy', schema: HealthResponse }, 503: { description: 'Down', schema: HealthResponse } },
      handler: async () => {
        const up = await health.databaseUp();
        return reply(up ? 200 : 503, { status: up ? 'healthy' : 'down', timestamp: new Date(health.now()).toISOString() });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/status',
      operationId: 'getServiceStatus',
      summary: 'Service status and the validation limits',
      tags: ['Status'],
      auth: 'authenticated',
      responses: {
        200: { description: 'Status with validationLimits and the database (dialect, up/down, latency of select 1)', schema: SystemStatusSchema },
        503: { description: 'Down: the same body with status down', schema: SystemStatusSchema },
      },
      handler: async () => {
        const body = systemStatus(await health.databaseStatus(), health.now());
        return reply(body.status === 'healthy' ? 200 : 503, body);
      },
    }),
  ];
}
