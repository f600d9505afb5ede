import type { RequestHandler } from 'express';

/**
 * CORS for the protocol endpoints (metadata, registration, token, revocation), so browser-based
 * MCP clients can use them. No credentials (cookies) are involved, so any origin is fine.
 * Preflight requests end here with 204.
 */
export function openCors(methods: readonly string[]): RequestHandler {
  const allow = [...methods, 'OPTIONS'].join(', ');
  return (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', allow);
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, MCP-Protocol-Version');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
