import { PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersionError } from '@modelcontextprotocol/server';
import type { Request } from 'express';
import { isRecord } from '../platform/guards.js';

/** The revision served per request (stateless, `_meta` envelope, MCP-Protocol-Version and Mcp-Method headers). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The 2025-era revisions (and the two 2024 ones) the SDK's stateless legacy serving answers. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** Every revision /mcp speaks, newest first: what an unsupported-version error lists. */
export const PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

const SUPPORTED = new Set(PROTOCOL_VERSIONS);

/** The version the 2026 envelope of a request's body names (`params._meta[…/protocolVersion]`), if it has one. */
function envelopeVersion(req: Request): string | undefined {
  const params = isRecord(req.body) ? req.body.params : undefined;
  const meta = isRecord(params) ? params._meta : undefined;
  const named = isRecord(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  return typeof named === 'string' ? named : undefined;
}

/** The version a request names: its MCP-Protocol-Version header, else the 2026 envelope of its body. */
function requestedVersion(req: Request): string | undefined {
  const header = req.headers['mcp-protocol-version'];
  if (typeof header === 'string') return header.trim();
  return envelopeVersion(req);
}

/**
 * A request naming a revision this server does not speak, answered before the SDK sees it (issue #42): the SDK's
 * 2026 answer listed only 2026-07-28 and its 2025 answer only the 2025 revisions, so a client could not tell it may
 * fall back (or move up). One JSON-RPC error lists them all, in the message and in `data.supported`.
 * Initialize is not refused: its protocolVersion is negotiated (the server answers the newest 2025 revision), as the
 * 2025 specification asks.
 *
 * `data.supported` of a request in the 2026 envelope lists the revisions `server/discover` lists (2026-07-28): SEP-2575
 * asks that a client can pick from it and call again in the same envelope, and the conformance suite checks it against
 * discover's `supportedVersions`. The 2025 revisions are named beside them in the message and in `data.legacyVersions`
 * (a 2025 client starts with `initialize`, not with a 2026 request). A request without the envelope gets them all.
 */
export function unsupportedVersionAnswer(req: Request): { status: number; body: Record<string, unknown> } | null {
  const requested = requestedVersion(req);
  if (requested === undefined || SUPPORTED.has(requested)) return null;
  const shown = requested.length > 40 ? `${requested.slice(0, 40)}…` : requested;
  const supported = envelopeVersion(req) !== undefined ? [MODERN_PROTOCOL_VERSION] : [...PROTOCOL_VERSIONS];
  const error = new UnsupportedProtocolVersionError({ supported, requested: shown });
  const id = isRecord(req.body) && (typeof req.body.id === 'string' || typeof req.body.id === 'number') ? req.body.id : null;
  return {
    status: 400,
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: error.code,
        message: `Unsupported protocol version: ${shown} (supported versions: ${PROTOCOL_VERSIONS.join(', ')})`,
        data: { supported, requested: shown, legacyVersions: [...LEGACY_PROTOCOL_VERSIONS] },
      },
    },
  };
}
