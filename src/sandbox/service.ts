import { createHash } from 'node:crypto';
import {
  normalizeContent,
  validateContent,
  type Content,
  type Issue,
  type MessageType,
  type SmsFacts,
  type ValidationResult,
} from '../content/index.js';
import { mergeContent } from '../content/merge-content.js';
import { contentItems, withValueAt } from '../content/walk.js';
import { mergeText, type MergeContext } from '../merge/index.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { SandboxPreviewsTable } from './tables.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { randomToken } from '../platform/secrets.js';
import type { SandboxRateLimiter } from './rate-limit.js';
import { isSampleUrl, placeholderUrl, samplesResponse, type SamplesResponse } from './samples.js';
import {
  parseSandboxInput,
  type MediaReplacement,
  type SandboxInput,
  type SandboxInvalidBody,
  type SandboxPreviewOutcome,
  type SandboxValidateBody,
  type StoredSandboxPreview,
} from './schemas.js';
import { SANDBOX_PREVIEW_TTL_MS } from './limits.js';

/** Path of the share page; share_url = publicUrl + SHARE_PAGE_PATH + '/' + slug. */
export const SHARE_PAGE_PATH = '/sandbox/p';
const SLUG_RE = /^[A-Za-z0-9_-]{32}$/;

/** Sample values for merge placeholders in sandbox previews (there is no contact or account). */
export const SANDBOX_MERGE_VALUES: Readonly<Record<string, string>> = {
  contact_first_name: 'Alex',
  contact_last_name: 'Morgan',
  contact_phone: '+15555550123',
  contact_email: 'alex.morgan@example.com',
  company_name: 'Example Coffee Co.',
  company_email: 'hello@example.com',
  company_phone: '+15555550100',
  company_website: 'https://example.com',
  company_address: '1 Main Street',
  company_city: 'Springfield',
  company_country: 'United States',
  contact_person: 'Jordan Lee',
  business_first_name: 'Jordan',
  business_last_name: 'Lee',
  gdpr_email: 'privacy@example.com',
  gdpr_phone: '+15555550101',
  unsubscribe_link: 'https://example.com/unsubscribe/sample',
};

type Warnings = ValidationResult['warnings'];

/** Rendered form of a sandbox input: what is stored, never the foreign media URLs themselves. */
export interface SandboxRendering {
  content: Content;
  smsFallback: string | null;
  media: MediaReplacement[];
}

/** Keys sorted at every level, no whitespace, undefined dropped: equal inputs give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

function sampleMergeContext(now: number): MergeContext {
  const v = SANDBOX_MERGE_VALUES;
  return {
    contact: { firstName: v.contact_first_name!, lastName: v.contact_last_name!, phone: v.contact_phone!, email: v.contact_email!, customFields: {} },
    company: v,
    today: todayLabel(now),
    unsubscribeUrl: v.unsubscribe_link!,
    customFieldTags: new Set(),
  };
}

const todayLabel = (now: number): string =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(now));

/**
 * Normalizes, merges sample values and replaces every media URL that is not one of this
 * server's samples with the placeholder image, recording the path and host of each.
 */
export function renderSandboxContent(messageType: MessageType, content: Content, fallbackMessage: string | null, publicUrl: string, now: number): SandboxRendering {
  const ctx = sampleMergeContext(now);
  const merged = mergeContent(normalizeContent(messageType, content), ctx);
  const media: MediaReplacement[] = [];
  const placeholder = placeholderUrl(publicUrl);
  let out: Content = merged;
  for (const item of contentItems(merged)) {
    if (item.kind !== 'media' || isSampleUrl(item.value, publicUrl)) continue;
    let host: string;
    try {
      host = new URL(item.value).host;
    } catch {
      host = 'invalid';
    }
    media.push({ path: item.path, host, replacedWith: placeholder });
    out = withValueAt(out, item.at, placeholder);
  }
  const smsFallback = fallbackMessage === null ? null : mergeText(fallbackMessage, ctx, 'fallback');
  return { content: out, smsFallback, media };
}

/** Warnings never repeat a foreign media URL: any occurrence is reduced to its host. */
function scrubWarnings<T extends Issue>(warnings: T[], content: Record<string, unknown>, media: MediaReplacement[]): T[] {
  if (media.length === 0) return warnings;
  const urls = new Map<string, string>();
  const collect = (v: unknown, path: string) => {
    const hit = media.find((m) => m.path === path);
    if (hit && typeof v === 'string') urls.set(v, hit.host);
  };
  const walk = (v: unknown, path: string) => {
    collect(v, path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(content, 'content');
  if (urls.size === 0) return warnings;
  return warnings.map((w) => {
    let message = w.message;
    for (const [url, host] of urls) message = message.split(url).join(`[media on ${host}]`);
    return message === w.message ? w : { ...w, message };
  });
}

export interface SandboxDeps {
  db: Db;
  clock: Clock;
  /** Read at call time: the public URL follows the bound port when PUBLIC_URL is not set. */
  publicUrl: () => string;
  /** The per-client limit of §8 (rate-limit.ts); the purge sweeps its old rows. */
  limiter: Pick<SandboxRateLimiter, 'hit' | 'sweep'>;
}

/**
 * The public sandbox (§4.2): validate and preview without an account. Nothing here can send:
 * previews live in their own table with `sbx_` ids that no send path accepts.
 */
export class SandboxService {
  constructor(private readonly d: SandboxDeps) {}

  /** Counts a request against the per-client limit; throws 429 SANDBOX_RATE_LIMITED. */
  async admit(clientAddress: string | undefined): Promise<void> {
    await this.d.limiter.hit(clientAddress);
  }

  samples(): SamplesResponse {
    return samplesResponse(this.d.publicUrl());
  }

  shareUrl(slug: string): string {
    return `${this.d.publicUrl()}${SHARE_PAGE_PATH}/${slug}`;
  }

  /** POST /sandbox/validate: 200 with the result whenever the envelope is sound. */
  validate(body: unknown): SandboxValidateBody {
    const input = parseSandboxInput(body);
    return { ...this.check(input), sandbox: { ignored_fields: input.ignoredFields } };
  }

  /** POST /sandbox/preview: 400 (with the result beside the error) or a stored preview. */
  async preview(body: unknown): Promise<SandboxPreviewOutcome> {
    const input = parseSandboxInput(body);
    const result = this.check(input);
    if (!result.valid) return { status: 400, body: invalidBody(result, input.ignoredFields) };

    const now = this.d.clock.now();
    const fallbackMessage = typeof input.smsFallback?.message === 'string' ? input.smsFallback.message : null;
    const inputHash = createHash('sha256')
      .update(canonicalJson({ messageType: input.messageType, content: input.content, smsFallback: fallbackMessage }))
      .digest('hex');

    await this.purgeExpired();
    let row = await this.d.db.selectFrom('sandbox_previews').selectAll().where('input_hash', '=', inputHash).where('expires_at', '>', now).executeTakeFirst();
    if (!row) {
      const publicUrl = this.d.publicUrl();
      const rendering = renderSandboxContent(input.messageType, input.content, fallbackMessage, publicUrl, now);
      const candidate: SandboxPreviewsTable = {
        id: newId('sbx', now),
        slug: randomToken(24),
        input_hash: inputHash,
        message_type: input.messageType,
        content: JSON.stringify(rendering.content),
        sms_fallback: rendering.smsFallback,
        sms: result.sms ? JSON.stringify(result.sms) : null,
        warnings: JSON.stringify(scrubWarnings(result.warnings, input.content, rendering.media)),
        media: JSON.stringify(rendering.media),
        created_at: now,
        expires_at: now + SANDBOX_PREVIEW_TTL_MS,
      };
      // Two identical requests at once: the unique hash keeps one row and both answer with it.
      await this.d.db.insertInto('sandbox_previews').values(candidate).onConflict((oc) => oc.column('input_hash').doNothing()).execute();
      row = await this.d.db.selectFrom('sandbox_previews').selectAll().where('input_hash', '=', inputHash).executeTakeFirstOrThrow();
    }
    const media = parseJson<MediaReplacement[]>(row.media, []);
    return {
      status: 200,
      body: {
        ...result,
        warnings: parseJson<Warnings>(row.warnings, []),
        sandbox: { ignored_fields: input.ignoredFields, media },
        preview: { id: row.id, share_url: this.shareUrl(row.slug), expires_at: toIso(row.expires_at)! },
      },
    };
  }

  /** GET /sandbox/preview/{slug} and the share page: 404 NOT_FOUND when unknown or expired. */
  async getPreview(slug: string): Promise<StoredSandboxPreview> {
    const notFound = new AppError('NOT_FOUND', 'Sandbox preview not found or expired (previews last 24 hours)');
    if (!SLUG_RE.test(slug)) throw notFound;
    await this.purgeExpired();
    const row = await this.d.db.selectFrom('sandbox_previews').selectAll().where('slug', '=', slug).where('expires_at', '>', this.d.clock.now()).executeTakeFirst();
    if (!row) throw notFound;
    const sms = row.sms ? parseJson<SmsFacts | null>(row.sms, null) : null;
    return {
      preview: { id: row.id, share_url: this.shareUrl(row.slug), created_at: toIso(row.created_at)!, expires_at: toIso(row.expires_at)! },
      messageType: row.message_type as MessageType,
      content: parseJson<Content>(row.content, {}),
      smsFallback: row.sms_fallback === null ? null : { message: row.sms_fallback },
      ...(sms ? { sms } : {}),
      warnings: parseJson<Warnings>(row.warnings, []),
      sandbox: {
        media: parseJson<MediaReplacement[]>(row.media, []),
        merge_values: { ...SANDBOX_MERGE_VALUES, today: todayLabel(row.created_at) },
      },
    };
  }

  /** Deletes expired previews; returns how many. Runs on every preview access and from sweep(). */
  async purgeExpired(): Promise<number> {
    const res = await this.d.db.deleteFrom('sandbox_previews').where('expires_at', '<=', this.d.clock.now()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Periodic housekeeping: expired previews and day-old rate-limit events. */
  async sweep(): Promise<{ previews: number; rateEvents: number }> {
    return { previews: await this.purgeExpired(), rateEvents: await this.d.limiter.sweep() };
  }

  private check(input: SandboxInput): ValidationResult {
    return validateContent(input.messageType, input.content, input.smsFallback !== undefined ? { smsFallback: input.smsFallback } : {});
  }
}

function invalidBody(result: ValidationResult, ignoredFields: string[]): SandboxInvalidBody {
  const first = result.errors[0];
  return {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: `Content is invalid${first ? `: ${first.path}: ${first.message}` : ''}`,
      details: result.errors,
    },
    ...result,
    sandbox: { ignored_fields: ignoredFields },
  };
}

/**
 * Calls service.sweep() every `intervalMs` (default hourly) until the returned function is
 * called. The timer does not keep the process alive. Errors are handed to onError.
 */
export function startSandboxSweeper(service: SandboxService, onError: (err: unknown) => void, intervalMs = 60 * 60 * 1000): () => void {
  const timer = setInterval(() => {
    service.sweep().catch(onError);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
