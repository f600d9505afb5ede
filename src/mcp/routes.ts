import type { Request, Response, Router } from 'express';
import express from 'express';
import type { AppContext } from '../context.js';
import { AppError, errorBody } from '../platform/errors.js';
import { presentedCredential, resolvePrincipal } from '../platform/http/auth.js';
import { sendMcpInsufficientScope, sendMcpUnauthorized } from '../../oauth/challenge.js';
import { TOOLS_BY_NAME, parseToolFilter } from './catalog.js';
import { JsonResponseTransport } from './json-transport.js';
import { buildMcpServer } from './server.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * DNS-rebinding guard (MCP transport security): the Host must be this server's public host or a
 * loopback name, and an Origin, when a browser sends one, must be this server's origin or loopback.
 */
export function hostAllowed(req: Request, publicUrl: string): boolean {
  const pub = new URL(publicUrl);
  const host = (req.headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (host !== pub.host.toLowerCase() && !LOOPBACK_HOSTS.has(hostname)) return false;
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  try {
    const o = new URL(origin);
    return o.origin === pub.origin || LOOPBACK_HOSTS.has(o.hostname === '::1' ? '[::1]' : o.hostname);
  } catch {
    return false;
  }
}

/** The tools a JSON-RPC body calls (single message or batch). */
function calledTools(body: unknown): string[] {
  const msgs = Array.isArray(body) ? body : [body];
  const out: string[] = [];
  for (const m of msgs) {
    if (m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call') {
      const name = (m as { params?: { name?: unknown } }).params?.name;
      if (typeof name === 'string') out.push(name);
    }
  }
  return out;
}

/**
 * POST /mcp: Streamable HTTP, stateless, answered with JSON (no sessions, no SSE stream, so GET
 * and DELETE are 405 as the transport specification allows).
 */
export function mcpRouter(ctx: AppContext): Router {
  const router = express.Router();
  router.all('/', async (req: Request, res: Response) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    if (!hostAllowed(req, ctx.config.publicUrl)) {
      res.status(403).json(errorBody(new AppError('FORBIDDEN', 'Host or Origin not allowed for /mcp')));
      return;
    }
    const principal = await resolvePrincipal(req, ctx.credentialResolvers);
    if (!principal) {
      sendMcpUnauthorized(res, ctx.config.publicUrl, { credentialPresented: presentedCredential(req) !== null });
      return;
    }
    req.principal = principal;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      res.status(405).json(errorBody(new AppError('METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: use POST (no SSE stream, no sessions)')));
      return;
    }
    const filter = parseToolFilter(req.query as Record<string, unknown>);
    // OAuth clients can ask the person for more scopes: a token lacking a tool's permission gets
    // the HTTP 403 insufficient_scope challenge. API keys get a tool error naming the permission.
    if (principal.via === 'oauth') {
      for (const name of calledTools(req.body)) {
        const missing = TOOLS_BY_NAME.get(name)?.permissions.filter((p) => !principal.permissions.has(p)) ?? [];
        if (missing.length > 0) {
          sendMcpInsufficientScope(res, ctx.config.publicUrl, missing, principal.permissions);
          return;
        }
      }
    }
    const server = buildMcpServer(ctx, principal, filter);
    const transport = new JsonResponseTransport();
    await server.connect(transport);
    // Every request has been answered when exchange resolves; the server and transport are then
    // simply dropped (closing would only build a "connection closed" error nobody reads).
    const answer = await transport.exchange(req.body, { accept: req.headers.accept, protocolVersion: req.get('mcp-protocol-version') });
    if (answer.body === undefined) {
      res.status(answer.status).end();
      return;
    }
    // Written directly: express's res.json adds freshness and ETag work a JSON-RPC answer never needs.
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  });
  return router;
}
