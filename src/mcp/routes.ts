import { AsyncLocalStorage } from 'node:async_hooks';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { McpDeps } from './deps.js';
import { AppError, errorBody } from '../platform/errors.js';
import { presentedCredential, resolvePrincipal } from '../platform/http/auth.js';
import { INVALID_UTF8_TYPE } from '../platform/http/utf8.js';
import { bodyParserError } from '../platform/http/errors.js';
import { sendMcpInsufficientScope, sendMcpUnauthorized } from '../../oauth/challenge.js';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { toNodeHandler, type NodeServerResponseLike } from '@modelcontextprotocol/node';
import { TOOLS_BY_NAME, parseToolFilter } from './catalog.js';
import { answerFast, fastCall } from './fast-path.js';
import { malformedParams } from './params-check.js';
import { mcpServerFactory, type McpCaller } from './server.js';
import { hostAllowed } from './cors.js';
import { unsupportedVersionAnswer } from './protocol-versions.js';
import type { Logger } from '../platform/logger.js';

const NO_FILTER = parseToolFilter({});
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

/** The tool a body names when it is one tools/call request (not a batch), else undefined. */
function loneCall(body: unknown): string | undefined {
  if (Array.isArray(body) || !body || typeof body !== 'object') return undefined;
  const m = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  return m.method === 'tools/call' && m.id !== undefined && typeof m.params?.name === 'string' ? m.params.name : undefined;
}

/** Written directly: express's res.json adds freshness and ETag work a JSON-RPC answer never needs. */
function writeJson(res: Response, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The response as the SDK's node adapter sees it, with Cache-Control kept at no-store: the SDK
 * writes its own (no-cache, no-transform on SSE answers), and nothing of /mcp may be stored.
 */
function noStore(res: Response): NodeServerResponseLike {
  return {
    writeHead: (status, headers) => res.writeHead(status, { ...headers, 'cache-control': 'no-store' }),
    write: (chunk) => res.write(chunk),
    end: (chunk) => (chunk === undefined ? res.end() : res.end(chunk)),
    on: (event, listener) => res.on(event, listener),
    get destroyed() {
      return res.destroyed;
    },
  };
}

/**
 * A body the JSON parser refused is a JSON-RPC error on this endpoint, in the shape MCP clients read
 * (id null: the request's id is unknown), with the HTTP status of the same refusal on REST and its
 * REST code in data.code. Bytes that are not a JSON text (broken JSON, not UTF-8, a compressed body
 * that does not decompress) are -32700 Parse error; a JSON text that is not a request (`42`, `null`,
 * `"str"`: body-parser's strict mode refuses them before the SDK sees them), too large or too deep
 * is -32600 Invalid Request.
 */
export const mcpBodyError: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  const refused = bodyParserError(err);
  if (!refused) {
    next(err);
    return;
  }
  const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  const text = typeof err === 'object' && err !== null ? (err as { body?: unknown }).body : undefined;
  const notARequest = type === 'entity.parse.failed' && typeof text === 'string' && isJsonText(text);
  const parseError = !notARequest && (type === 'entity.parse.failed' || type === INVALID_UTF8_TYPE || refused.details?.[0]?.code === 'invalid_encoding');
  const message = notARequest
    ? 'Invalid Request: the body is JSON but not a JSON-RPC request object or batch'
    : parseError
      ? `Parse error: ${refused.message.replace(/^The /, 'the ')}`
      : `Invalid Request: ${refused.message.replace(/^The /, 'the ')}`;
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  const status = notARequest ? 400 : refused.status;
  _req.logNote = message;
  writeJson(res, status, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: parseError ? -32700 : -32600, message, data: { code: notARequest ? 'VALIDATION_ERROR' : refused.code } } }));
};

/** Whether `text` is valid JSON (what body-parser's strict mode refused was then a JSON primitive). */
function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * POST /mcp: the SDK's createMcpHandler (both protocol eras, stateless: 2026-07-28 per request,
 * 2025-11-25 / 2025-06-18 / 2025-03-26 through its stateless legacy serving, which answers as an SSE
 * stream of one message), mounted with toNodeHandler on the body express already parsed.
 * In front of it, the parts the SDK leaves to its host: the DNS-rebinding guard, our credentials
 * (API key or OAuth bearer, the 401 / insufficient_scope challenges), GET/DELETE 405 (no
 * sessions, no standalone stream), the tool filters, and the headers of every answer.
 */
export function mcpHandler(ctx: McpDeps, opts: { fastPath?: boolean } = {}): RequestHandler {
  // The SDK reports every request it refuses (wrong Content-Type, not JSON-RPC, an empty or invalid batch, a 2026
  // envelope that does not match its headers) through the same onerror as its own failures. Which one it was shows in
  // the answer's status, known only once the SDK answered: the reports wait beside the request (errorsOf) until then.
  const reports = new AsyncLocalStorage<SdkReports>();
  const handler = createMcpHandler(mcpServerFactory(ctx), {
    onerror: (err) => {
      const pending = reports.getStore();
      if (pending && !pending.settled) pending.errors.push(err);
      else ctx.logger.warn({ err }, 'mcp request failed');
    },
  });
  const node = toNodeHandler(handler, { onerror: (err) => ctx.logger.error({ err }, 'mcp handler failed') });
  return async (req: Request, res: Response) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    if (!hostAllowed(req, ctx.config.publicUrl, ctx.config.mcpAllowedOrigins)) {
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
      refuse(req, res, 405, -32000, 'Method not allowed: this MCP endpoint is stateless, use POST (no SSE stream, no sessions)', 'METHOD_NOT_ALLOWED');
      return;
    }
    const unsupported = unsupportedVersionAnswer(req);
    if (unsupported) {
      req.logNote = (unsupported.body.error as { message: string }).message;
      writeJson(res, unsupported.status, JSON.stringify(unsupported.body));
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
    const malformed = malformedParams(req.body);
    if (malformed) {
      writeJson(res, 200, JSON.stringify(malformed));
      return;
    }
    // A lone tools/call the SDK would accept as is gets the SDK's answer without its machinery (fast-path.ts).
    const fast = opts.fastPath === false ? null : fastCall(req, filter);
    if (fast) {
      writeJson(res, 200, await answerFast(ctx, principal, fast));
      return;
    }
    const calledTool = loneCall(req.body);
    const caller: McpCaller = { principal, filter, accountId: principal.accountId, ...(calledTool !== undefined && { calledTool }) };
    // The SDK's pass-through auth slot; the credential itself is never handed on.
    const auth: AuthInfo = { token: '', clientId: principal.subjectId, scopes: [...principal.permissions], extra: caller as unknown as Record<string, unknown> };
    (req as Request & { auth?: AuthInfo }).auth = auth;
    const pending: SdkReports = { errors: [], settled: false };
    await reports.run(pending, () => node(req, noStore(res), req.body));
    pending.settled = true;
    logReports(ctx.logger, req, res.statusCode, pending.errors);
  };
}

/** What the SDK reported while answering one request. */
interface SdkReports {
  errors: Error[];
  /** The SDK answered: what it reports later (a stream failing) is logged at once. */
  settled: boolean;
}

/**
 * A refusal (a 4xx answer) is the caller's mistake: its reason goes on the request's one log line, without a stack.
 * Anything else the SDK reported is ours to look at and is logged whole.
 */
function logReports(logger: Pick<Logger, 'warn'>, req: Request, status: number, errors: readonly Error[]): void {
  if (errors.length === 0) return;
  if (status >= 400 && status < 500) {
    req.logNote = errors.map((e) => e.message.slice(0, 300)).join('; ');
    return;
  }
  for (const err of errors) logger.warn({ err, requestId: req.requestId }, 'mcp request failed');
}

/** A JSON-RPC error for a request refused before the SDK (id null: the request names none that can be answered). */
function refuse(req: Request, res: Response, status: number, code: number, message: string, appCode: string): void {
  req.logNote = message;
  writeJson(res, status, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message, data: { code: appCode } } }));
}
