import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../context.js';
import { AppError, errorBody } from '../platform/errors.js';
import { presentedCredential, resolvePrincipal } from '../platform/http/auth.js';
import { INVALID_UTF8_TYPE } from '../platform/http/utf8.js';
import { sendMcpInsufficientScope, sendMcpUnauthorized } from '../../oauth/challenge.js';
import { TOOLS_BY_NAME, parseToolFilter } from './catalog.js';
import { answerDirect, directRequest } from './direct.js';
import { checkPost, JsonResponseTransport } from './json-transport.js';
import { buildMcpServer } from './server.js';

const NO_FILTER = parseToolFilter({});
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

// Parsed once, not per request; keyed by the text because listen() fixes the URL after the app is built.
let publicUrlCache: { text: string; host: string; origin: string } | null = null;
function parsedPublicUrl(text: string): { host: string; origin: string } {
  if (publicUrlCache?.text !== text) {
    const url = new URL(text);
    publicUrlCache = { text, host: url.host.toLowerCase(), origin: url.origin };
  }
  return publicUrlCache;
}

/**
 * DNS-rebinding guard (MCP transport security): the Host must be this server's public host or a
 * loopback name, and an Origin, when a browser sends one, must be this server's origin or loopback.
 */
export function hostAllowed(req: Request, publicUrl: string): boolean {
  const pub = parsedPublicUrl(publicUrl);
  const host = (req.headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (host !== pub.host && !LOOPBACK_HOSTS.has(hostname)) return false;
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

/** Written directly: express's res.json adds freshness and ETag work a JSON-RPC answer never needs. */
function writeJson(res: Response, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A body the JSON parser refused (not JSON, not UTF-8) is a JSON-RPC parse error on this endpoint,
 * in the JSON-RPC shape MCP clients read; data.code is the REST code of the same refusal.
 */
export const mcpBodyError: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  if (type !== 'entity.parse.failed' && type !== INVALID_UTF8_TYPE) {
    next(err);
    return;
  }
  const message = type === INVALID_UTF8_TYPE ? 'Parse error: the body is not valid UTF-8' : 'Parse error: the body is not valid JSON';
  const code = type === INVALID_UTF8_TYPE ? 'VALIDATION_ERROR' : 'INVALID_JSON';
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  writeJson(res, 400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message, data: { code } } }));
};

/**
 * POST /mcp: Streamable HTTP, stateless, answered with JSON (no sessions, no SSE stream, so GET
 * and DELETE are 405 as the transport specification allows). A plain handler for every method,
 * mounted with app.all: a Router of its own would add a routing level to every call.
 */
export function mcpHandler(ctx: AppContext): RequestHandler {
  return async (req: Request, res: Response) => {
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
    // Most connections use the bare endpoint: no query string to parse then.
    const filter = req.url.includes('?') ? parseToolFilter(req.query) : NO_FILTER;
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
    const checked = checkPost(req.body, { accept: req.headers.accept, protocolVersion: req.headers['mcp-protocol-version'] as string | undefined });
    if ('refused' in checked) {
      writeJson(res, checked.refused.status, JSON.stringify(checked.refused.body));
      return;
    }
    const direct = directRequest(checked.messages, checked.batch);
    if (direct) {
      writeJson(res, 200, await answerDirect(ctx, principal, filter, direct));
      return;
    }
    const server = buildMcpServer(ctx, principal, filter);
    const transport = new JsonResponseTransport();
    await server.connect(transport);
    // Every request has been answered when exchange resolves; the server and transport are then
    // simply dropped (closing would only build a "connection closed" error nobody reads).
    const answer = await transport.exchange(checked);
    if (answer.body === undefined) {
      res.status(answer.status).end();
      return;
    }
    writeJson(res, answer.status, JSON.stringify(answer.body));
  };
}
