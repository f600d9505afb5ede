import type { Request, RequestHandler } from 'express';

/**
 * Who may call /mcp from a browser, and the CORS answers browser MCP clients need (the MCP
 * Inspector's web UI, web-based assistants): the DNS-rebinding guard of the MCP transport spec and
 * CORS decide from the same list — this server's public origin, loopback origins (any port), and
 * MCP_ALLOWED_ORIGINS. Sessions are not used (the endpoint is stateless), so no Mcp-Session-Id.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Request headers a browser client sends to /mcp. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-API-Key', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Idempotency-Key'].join(', ');
/** Response headers a browser client must be able to read: the OAuth challenge and the protocol version. */
const EXPOSED_HEADERS = ['WWW-Authenticate', 'Mcp-Protocol-Version'].join(', ');

// Parsed once, not per request; keyed by the text because listen() fixes the URL after the app is built.
let publicUrlCache: { text: string; host: string; origin: string } | null = null;
function parsedPublicUrl(text: string): { host: string; origin: string } {
  if (publicUrlCache?.text !== text) {
    const url = new URL(text);
    publicUrlCache = { text, host: url.host.toLowerCase(), origin: url.origin };
  }
  return publicUrlCache;
}

/** Whether a browser Origin may call /mcp. */
export function originAllowed(origin: string, publicUrl: string, extra: readonly string[]): boolean {
  if (origin === 'null') return false;
  try {
    const o = new URL(origin);
    return o.origin === parsedPublicUrl(publicUrl).origin || LOOPBACK_HOSTS.has(o.hostname === '::1' ? '[::1]' : o.hostname) || extra.includes(o.origin);
  } catch {
    return false;
  }
}

/**
 * DNS-rebinding guard (MCP transport security): the Host must be this server's public host or a
 * loopback name, and an Origin, when a browser sends one, must be allowed (originAllowed).
 */
export function hostAllowed(req: Request, publicUrl: string, extra: readonly string[] = []): boolean {
  const host = (req.headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (host !== parsedPublicUrl(publicUrl).host && !LOOPBACK_HOSTS.has(hostname)) return false;
  const origin = req.headers.origin;
  return origin === undefined || originAllowed(origin, publicUrl, extra);
}

/**
 * CORS on /mcp, before the body is read and before credentials are checked, so a browser can read
 * a 401's WWW-Authenticate and start OAuth. A preflight (OPTIONS) ends here: 204 for an allowed
 * origin without any credential, 403 for another one.
 */
export function mcpCors(config: { publicUrl: string; mcpAllowedOrigins: readonly string[] }): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && originAllowed(origin, config.publicUrl, config.mcpAllowedOrigins);
    if (origin !== undefined) res.setHeader('Vary', 'Origin');
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS') {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    if (origin !== undefined && !allowed) {
      res.status(403).end();
      return;
    }
    res.setHeader('Allow', 'POST, OPTIONS');
    if (allowed) {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    res.status(204).end();
  };
}
