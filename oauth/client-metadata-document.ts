import type { Agent } from 'undici';

// undici is loaded on first use: it is large, and most servers never fetch a metadata document.
const undici = () => import('undici');
import { z } from 'zod';
import { ClientMetadataSchema } from './client-metadata.js';
import { METADATA_DOCUMENT_MAX_BYTES, METADATA_DOCUMENT_TIMEOUT_MS } from './constants.js';
import { assertPublicHost, BlockedAddressError, guardedLookup } from '../src/platform/net/network-guard.js';
import { checkRedirectUris } from './redirect-uris.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP authorization
 * 2025-11-25): a client whose client_id is an HTTPS URL publishes its metadata there; we fetch it
 * instead of asking the client to register.
 */
export class MetadataDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataDocumentError';
  }
}

export interface FetchedClientMetadata {
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  /** The document as received (validated fields only). */
  metadata: Record<string, unknown>;
}

export interface FetchOptions {
  /** DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: private addresses and plain http allowed (tests, local development). */
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Whether a client_id names a metadata document (a URL) rather than a registered client (`cli_…`). */
export const looksLikeMetadataDocumentUrl = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

/** The URL rules of the draft: https, a path, no fragment, no user info, no dot segments. */
export function metadataDocumentUrlProblem(clientId: string, allowInsecure: boolean): string | null {
  if (clientId.length > 2000) return 'client_id URL is too long';
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'client_id is not a valid URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'client_id URL must use https';
  if (url.hash || clientId.includes('#')) return 'client_id URL must not contain a fragment';
  if (url.username || url.password) return 'client_id URL must not contain user info';
  if (url.pathname === '/' || url.pathname === '') return 'client_id URL must contain a path';
  const rawPath = clientId.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  if (rawPath.split('/').some((seg) => seg === '.' || seg === '..')) return 'client_id URL must not contain . or .. path segments';
  // The URL must be written in its normalised form: the document's client_id is compared as a string.
  if (url.href !== clientId) return 'client_id URL must be in normalised form';
  return null;
}

const DocumentSchema = ClientMetadataSchema.extend({
  client_id: z.string(),
  client_secret: z.undefined({ message: 'a metadata document must not contain client_secret' }).optional(),
});

const agents = new Map<string, Agent>();
async function agentFor(allowPrivate: boolean, timeoutMs: number, maxBytes: number): Promise<Agent> {
  const key = `${allowPrivate}|${timeoutMs}|${maxBytes}`;
  let agent = agents.get(key);
  if (!agent) {
    const { Agent } = await undici();
    agent = new Agent({
      connect: { lookup: guardedLookup(allowPrivate), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize: maxBytes,
      keepAliveTimeout: 1_000,
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Fetches and validates a metadata document; throws MetadataDocumentError saying what is wrong. */
export async function fetchClientMetadataDocument(clientId: string, opts: FetchOptions): Promise<FetchedClientMetadata> {
  const timeoutMs = opts.timeoutMs ?? METADATA_DOCUMENT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? METADATA_DOCUMENT_MAX_BYTES;
  const urlProblem = metadataDocumentUrlProblem(clientId, opts.allowPrivateNetwork);
  if (urlProblem) throw new MetadataDocumentError(urlProblem);
  const url = new URL(clientId);
  try {
    // A clear answer before connecting; the connection itself checks again (guardedLookup).
    await assertPublicHost(url.hostname, opts.allowPrivateNetwork);
  } catch (err) {
    if (err instanceof BlockedAddressError) throw new MetadataDocumentError(`client_id URL refused: ${err.message}`);
    throw new MetadataDocumentError(`client_id host ${url.hostname} cannot be resolved`);
  }

  let status: number;
  let text: string;
  try {
    const { request } = await undici();
    const res = await request(url, {
      method: 'GET',
      dispatcher: await agentFor(opts.allowPrivateNetwork, timeoutMs, maxBytes),
      headers: { accept: 'application/json', 'user-agent': 'rcs-mcp-server (client-id-metadata-document)' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    const declared = Number(res.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      res.body.destroy();
      throw new MetadataDocumentError(`client metadata document is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new MetadataDocumentError(`client metadata document is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof MetadataDocumentError) throw err;
    const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
    const cause = (e.cause ?? {}) as { code?: string; message?: string };
    if (e.code === 'EBLOCKED' || cause.code === 'EBLOCKED') throw new MetadataDocumentError(`client_id URL refused: ${cause.message ?? e.message}`);
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || /Timeout/i.test(e.code ?? '')) throw new MetadataDocumentError(`client metadata document did not arrive within ${timeoutMs} ms`);
    if (e.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') throw new MetadataDocumentError(`client metadata document is larger than ${maxBytes} bytes`);
    throw new MetadataDocumentError(`client metadata document could not be fetched (${e.code ?? e.message ?? 'network error'})`);
  }
  if (status !== 200) {
    // Redirects are not followed: the document must live at the client_id itself.
    throw new MetadataDocumentError(`client metadata document answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MetadataDocumentError('client metadata document is not JSON');
  }
  const parsed = DocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MetadataDocumentError(`client metadata document is invalid: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown problem'}`);
  }
  const doc = parsed.data;
  if (doc.client_id !== clientId) throw new MetadataDocumentError('client_id in the metadata document does not equal the URL it was fetched from');
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new MetadataDocumentError(`token_endpoint_auth_method ${method} is not supported for metadata document clients (use none)`);
  if (doc.grant_types && !doc.grant_types.includes('authorization_code')) throw new MetadataDocumentError('grant_types must include authorization_code');
  if (doc.response_types && !doc.response_types.includes('code')) throw new MetadataDocumentError('response_types must include code');
  const redirectProblem = checkRedirectUris(doc.redirect_uris, opts.allowPrivateNetwork);
  if (redirectProblem) throw new MetadataDocumentError(redirectProblem);
  return {
    clientId,
    clientName: doc.client_name?.trim().slice(0, 200) || null,
    redirectUris: doc.redirect_uris,
    metadata: { ...doc, token_endpoint_auth_method: 'none' },
  };
}
