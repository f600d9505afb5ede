import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { guardedLookup, isPrivateAddress, type ResolveAll } from '../platform/net/network-guard.js';
import { outboundUrlProblem } from '../platform/net/outbound.js';

/**
 * The server's fetch of an image an assistant put in a preview, so the share page can show it
 * without the person's browser contacting the assistant's host (issue #27). Only raster images
 * (PNG, JPEG, GIF, WebP) whose declared type matches their first bytes; no SVG (it can carry
 * script and links); public addresses only (checked at every connect, redirects included); one
 * deadline for the whole exchange; a size cap; a short in-memory cache per instance. Never throws:
 * every failure is a result with a reason the page can show.
 */

export interface MediaFetchLimits {
  /** Largest image served to the page. */
  maxBytes: number;
  /** One deadline for connecting, redirects, headers and the last byte. */
  timeoutMs: number;
  maxRedirects: number;
  /** How long a fetched image is kept in memory. */
  cacheTtlMs: number;
  /** How long a failure is remembered (a reload does not hammer a dead host). */
  failureTtlMs: number;
  /** Bytes of images kept in memory at most (oldest dropped first). */
  cacheMaxBytes: number;
}

export const PREVIEW_MEDIA_LIMITS: MediaFetchLimits = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 5_000,
  maxRedirects: 3,
  cacheTtlMs: 60_000,
  failureTtlMs: 15_000,
  cacheMaxBytes: 32 * 1024 * 1024,
};

export type MediaRefusal = 'invalid_url' | 'private_address' | 'unreachable' | 'timeout' | 'http_status' | 'too_many_redirects' | 'too_large' | 'wrong_type' | 'not_an_image';

export type MediaFetchResult = { ok: true; contentType: ImageType; body: Buffer } | { ok: false; code: MediaRefusal; reason: string };

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** The image type the first bytes show, or null (SVG, HTML, anything else). */
export function sniffImage(bytes: Buffer): ImageType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a')) return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

/** `image/jpeg; charset=x` → image/jpeg; image/jpg (seen in the wild) counts as JPEG; anything else → null. */
export function declaredImageType(header: string | string[] | undefined): ImageType | null {
  const raw = (Array.isArray(header) ? header[0] : header)?.split(';')[0]?.trim().toLowerCase() ?? '';
  const t = raw === 'image/jpg' || raw === 'image/pjpeg' ? 'image/jpeg' : raw;
  return (IMAGE_TYPES as readonly string[]).includes(t) ? (t as ImageType) : null;
}

const USER_AGENT = 'rcs-preview-media/1 (fetches an image for a person reviewing a message preview)';

interface CacheEntry {
  expires: number;
  result: MediaFetchResult;
  bytes: number;
}

export interface PreviewMediaFetcherOptions {
  /** DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS (also lets plain http through, as for webhooks). */
  allowPrivateNetwork: boolean;
  /** DNS for the connections; tests pass one that resolves no public name. */
  resolve?: ResolveAll | undefined;
  limits?: Partial<MediaFetchLimits>;
  now?: () => number;
}

export class PreviewMediaFetcher {
  readonly limits: MediaFetchLimits;
  private readonly allowPrivate: boolean;
  private readonly resolve: ResolveAll | undefined;
  private readonly now: () => number;
  private agent: Agent | null = null;
  private readonly cache = new Map<string, CacheEntry>();
  private cachedBytes = 0;
  private readonly inflight = new Map<string, Promise<MediaFetchResult>>();

  constructor(opts: PreviewMediaFetcherOptions) {
    this.allowPrivate = opts.allowPrivateNetwork;
    this.resolve = opts.resolve;
    this.limits = { ...PREVIEW_MEDIA_LIMITS, ...opts.limits };
    this.now = opts.now ?? Date.now;
  }

  /** The image at `url`, from the cache when fetched in the last minute; concurrent calls share one fetch. */
  async fetch(url: string): Promise<MediaFetchResult> {
    const hit = this.cache.get(url);
    if (hit && hit.expires > this.now()) return hit.result;
    if (hit) this.drop(url);
    let pending = this.inflight.get(url);
    if (!pending) {
      pending = this.fetchFresh(url).then((result) => {
        this.remember(url, result);
        return result;
      });
      pending.finally(() => this.inflight.delete(url)).catch(() => undefined);
      this.inflight.set(url, pending);
    }
    return pending;
  }

  private remember(url: string, result: MediaFetchResult): void {
    const bytes = result.ok ? result.body.length : 0;
    if (bytes > this.limits.cacheMaxBytes) return;
    this.cache.set(url, { expires: this.now() + (result.ok ? this.limits.cacheTtlMs : this.limits.failureTtlMs), result, bytes });
    this.cachedBytes += bytes;
    for (const [key] of this.cache) {
      if (this.cachedBytes <= this.limits.cacheMaxBytes && this.cache.size <= 500) break;
      this.drop(key);
    }
  }

  private drop(url: string): void {
    const e = this.cache.get(url);
    if (!e) return;
    this.cachedBytes -= e.bytes;
    this.cache.delete(url);
  }

  private async dispatcher(): Promise<Agent> {
    if (!this.agent) {
      const { Agent: UndiciAgent } = await import('undici');
      const t = this.limits.timeoutMs;
      this.agent = new UndiciAgent({
        connect: { lookup: guardedLookup(this.allowPrivate, this.resolve), timeout: t },
        headersTimeout: t,
        bodyTimeout: t,
        keepAliveTimeout: 2_000,
        connections: 16,
      });
    }
    return this.agent;
  }

  private async fetchFresh(url: string): Promise<MediaFetchResult> {
    const fail = (code: MediaRefusal, reason: string): MediaFetchResult => ({ ok: false, code, reason });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.limits.timeoutMs);
    try {
      const { request } = await import('undici');
      const dispatcher = await this.dispatcher();
      let current = url;
      for (let hop = 0; hop <= this.limits.maxRedirects; hop++) {
        const problem = outboundUrlProblem(current, this.allowPrivate);
        if (problem) return fail('invalid_url', problem);
        const target = new URL(current);
        // An address literal never reaches the lookup at connect time: check it here.
        const literal = target.hostname.replace(/^\[|\]$/g, '');
        if (isIP(literal) && !this.allowPrivate && isPrivateAddress(literal)) return fail('private_address', `${target.host} is a private, loopback or otherwise non-public address`);
        const res = await request(target, {
          method: 'GET',
          headers: { 'user-agent': USER_AGENT, accept: IMAGE_TYPES.join(', ') },
          dispatcher,
          signal: deadline.signal,
        });
        const status = res.statusCode;
        if (status >= 300 && status < 400 && typeof res.headers.location === 'string') {
          await res.body.dump().catch(() => undefined);
          try {
            current = new URL(res.headers.location, target).href;
          } catch {
            return fail('invalid_url', 'the redirect points to an invalid address');
          }
          continue;
        }
        if (status !== 200) {
          await res.body.dump().catch(() => undefined);
          return fail('http_status', `the host answered HTTP ${status}`);
        }
        const declared = declaredImageType(res.headers['content-type']);
        if (!declared) {
          await res.body.dump().catch(() => undefined);
          const ct = String(res.headers['content-type'] ?? 'no type').split(';')[0];
          return fail('wrong_type', `the host sent ${ct}; only PNG, JPEG, GIF and WebP images are shown`);
        }
        const length = Number(res.headers['content-length']);
        if (Number.isFinite(length) && length > this.limits.maxBytes) {
          res.body.destroy();
          return fail('too_large', `the image is larger than ${this.limits.maxBytes / (1024 * 1024)} MB`);
        }
        const chunks: Buffer[] = [];
        let read = 0;
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          read += buf.length;
          if (read > this.limits.maxBytes) {
            res.body.destroy();
            return fail('too_large', `the image is larger than ${this.limits.maxBytes / (1024 * 1024)} MB`);
          }
          chunks.push(buf);
        }
        const body = Buffer.concat(chunks);
        const sniffed = sniffImage(body);
        if (sniffed !== declared) return fail('not_an_image', `the file is not the ${declared} it claims to be`);
        return { ok: true, contentType: sniffed, body };
      }
      return fail('too_many_redirects', `more than ${this.limits.maxRedirects} redirects`);
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
      if (e.code === 'EBLOCKED' || e.cause?.code === 'EBLOCKED') return fail('private_address', e.cause?.message ?? e.message ?? 'a private address');
      if (deadline.signal.aborted || e.name === 'AbortError' || /TIMEOUT/i.test(e.code ?? '')) return fail('timeout', `no complete answer within ${this.limits.timeoutMs / 1000} s`);
      return fail('unreachable', `the host could not be reached (${e.code ?? e.cause?.code ?? 'network error'})`);
    } finally {
      clearTimeout(timer);
    }
  }
}
