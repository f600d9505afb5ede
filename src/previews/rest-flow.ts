import { z } from 'zod';
import { SendBatchRequestSchema, SendMessageRequestSchema, SendSmsRequestSchema } from '../messaging/schemas.js';
import type { PreviewsTable } from './tables.js';
import { AppError, isAppError } from '../platform/errors.js';
import type { Principal } from '../platform/permissions.js';
import { PreviewResultSchema, type PreviewResult, type RcsPayload, type SmsPayload } from './schemas.js';
import type { PreviewsService } from './service.js';
import { isRecord } from '../platform/guards.js';
import { isEmptyBody, kindOfBody, waitsForPerson, withPreviewRecipients } from './policy.js';
import { queryValues, recipientsWith } from './merge-report.js';
import { pagePagination, pageQueryFields, type PagedList } from '../platform/pagination.js';

export const MergeValuesQuerySchema = z.strictObject({
  field: z.string().max(200).optional().describe('Only this merge field (e.g. contact_first_name).'),
  q: z.string().max(200).optional().describe('Values containing this text (case-insensitive).'),
  flagged: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('Only flagged values.'),
  ...pageQueryFields({ defaultLimit: 50, maxLimit: 200 }),
});
export type MergeValuesQuery = z.infer<typeof MergeValuesQuerySchema>;

export const MergeValueItemSchema = z.object({
  field: z.string(),
  value: z.string().describe('The merged value; text-direction and invisible characters shown as ⟦U+202E⟧.'),
  recipients: z.number().int().describe('How many recipients get this value.'),
  risks: z.array(z.object({ code: z.string(), message: z.string() })).describe('Why it is flagged (empty: not flagged).'),
  firstRecipients: z.array(z.string()).describe('The first 20 recipients that get it (+E.164).'),
});
export type MergeValueItem = z.infer<typeof MergeValueItemSchema>;

export const PreviewRecipientsQuerySchema = z.strictObject({
  rejected: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('Only the numbers that will not be sent to, with why.'),
  ...pageQueryFields({ defaultLimit: 100, maxLimit: 1000 }),
});
export type PreviewRecipientsQuery = z.infer<typeof PreviewRecipientsQuerySchema>;

export const PreviewRecipientSchema = z.object({
  phoneNumber: z.string().describe('As the payload names it (rejected=true: as checked).'),
  code: z.string().optional().describe('rejected=true: why it will not be sent to (a code).'),
  reason: z.string().optional().describe('rejected=true: why, in words.'),
});
export type PreviewRecipient = z.infer<typeof PreviewRecipientSchema>;

type Kind = PreviewsTable['kind'];

/** The direct send route each preview kind stands for, and the body it takes. */
const ROUTE: Record<Kind, { create: string; direct: string; fields: readonly string[] }> = {
  rcs: { create: '/api/rcs/previews/send', direct: '/api/rcs/send', fields: Object.keys(SendMessageRequestSchema.shape) },
  rcs_batch: { create: '/api/rcs/previews/send-batch', direct: '/api/rcs/send-batch', fields: Object.keys(SendBatchRequestSchema.shape) },
  sms: { create: '/api/rcs/previews/send-sms', direct: '/api/rcs/send-sms', fields: Object.keys(SendSmsRequestSchema.shape) },
};

export const sendPath = (id: string): string => `/api/rcs/previews/${id}/send`;

/** A preview on the REST API: the MCP preview object, with the REST route that sends it. */
export const RestPreviewSchema = PreviewResultSchema.omit({ send_with: true, nextStep: true }).extend({
  send_url: z.string().describe('POST here (no body, or exactly the body previewed) to send the preview once a person approved it.'),
  nextStep: z.string(),
});
export type RestPreview = z.infer<typeof RestPreviewSchema>;

/**
 * The REST door of validate → preview → a person approves → send (DESIGN §6), for credentials
 * whose sends need approval and for any CRM that wants a person to look first. It takes exactly the
 * bodies of /send, /send-batch and /send-sms and leaves every rule to PreviewsService: what needs
 * approval, payload matching, sending once.
 */
export class RestPreviewFlow {
  constructor(private readonly d: { previews: PreviewsService }) {}

  /** Stores a preview of a /send, /send-batch or /send-sms body, refusing fields that route does not take. */
  async create(principal: Principal, kind: Kind, body: unknown): Promise<RestPreview> {
    const input = this.bodyOf(kind, body);
    const result = kind === 'sms' ? await this.d.previews.createSms(principal, input as SmsPayload) : await this.d.previews.createRcs(principal, this.rcsInput(kind, input));
    return this.view(result, principal);
  }

  /** Every distinct merged value of a preview, riskiest first, paged and filtered (the share page's list). */
  async mergeValues(principal: Principal, id: string, q: MergeValuesQuery): Promise<PagedList<MergeValueItem>> {
    const row = await this.d.previews.get(principal.accountId, id);
    const report = this.d.previews.mergeReport(row);
    if (!report) return { data: [], pagination: pagePagination(q.page, q.limit, 0) };
    const { rows, matched } = queryValues(report, { field: q.field, q: q.q, flaggedOnly: q.flagged, offset: (q.page - 1) * q.limit, limit: q.limit });
    const fields = report.fields.map((f) => f.name);
    return {
      data: rows.map((r) => {
        const phones = recipientsWith(report, fields.indexOf(r.field), r.index);
        return { field: r.field, value: r.shown, recipients: r.count, risks: r.risks, firstRecipients: phones.slice(0, 20) };
      }),
      pagination: pagePagination(q.page, q.limit, matched),
    };
  }

  /**
   * A preview's numbers, a page at a time, in the payload's order (or only the refused ones): the preview answers
   * count them instead of repeating them (issue #42).
   */
  async recipients(principal: Principal, id: string, q: PreviewRecipientsQuery): Promise<PagedList<PreviewRecipient>> {
    const row = await this.d.previews.get(principal.accountId, id);
    const offset = (q.page - 1) * q.limit;
    if (q.rejected) {
      const rejected = this.d.previews.rejectedOf(row);
      return { data: rejected.slice(offset, offset + q.limit).map((r) => ({ phoneNumber: r.phoneNumber, code: r.code, reason: r.reason })), pagination: pagePagination(q.page, q.limit, rejected.length) };
    }
    const payload = JSON.parse(row.payload) as { phoneNumbers?: unknown; phoneNumber?: unknown };
    const numbers = Array.isArray(payload.phoneNumbers) ? payload.phoneNumbers.map(String) : typeof payload.phoneNumber === 'string' ? [payload.phoneNumber] : [];
    return { data: numbers.slice(offset, offset + q.limit).map((phoneNumber) => ({ phoneNumber })), pagination: pagePagination(q.page, q.limit, numbers.length) };
  }

  async get(principal: Principal, id: string): Promise<RestPreview> {
    return this.view(this.d.previews.toResult(await this.d.previews.get(principal.accountId, id)), principal);
  }

  /**
   * Sends a preview's stored payload once. A body, when given, must be the previewed one (kind and
   * every field); refusals are those of the MCP send tools, and a repeat returns the first result.
   */
  async send(principal: Principal, id: string, body: unknown): Promise<{ kind: Kind; result: unknown }> {
    const row = await this.d.previews.get(principal.accountId, id);
    const stored = JSON.parse(row.payload) as Record<string, unknown>;
    let payload = stored;
    body = withPreviewRecipients(stored, body);
    if (!isEmptyBody(body)) {
      const kind = kindOfBody(body);
      if (kind !== row.kind) {
        throw new AppError('PREVIEW_MISMATCH', `This preview was made by ${ROUTE[row.kind].create}; the body given is one for ${ROUTE[kind].create}`, {
          extra: { nextStep: `POST ${sendPath(id)} without a body (or with the body previewed), or create a new preview with ${ROUTE[kind].create}.` },
        });
      }
      const input = this.bodyOf(kind, body);
      payload = kind === 'sms' ? this.d.previews.expandSms(input as SmsPayload) : (await this.d.previews.expandRcs(principal.accountId, this.rcsInput(kind, input))).payload;
    }
    try {
      // PreviewsService sends the stored payload itself, after its approval and freshness checks.
      const result: unknown = await this.d.previews.send(principal, id, row.kind, payload, 'API_MESSAGE');
      return { kind: row.kind, result };
    } catch (err) {
      // Same refusal, in the words of this door (the service's next step names the MCP tools).
      if (isAppError(err) && err.code === 'PREVIEW_NOT_APPROVED') {
        const shareUrl = this.d.previews.shareUrl(row.slug);
        throw new AppError('PREVIEW_NOT_APPROVED', err.message, {
          extra: { share_url: shareUrl, nextStep: `Ask a person of the account to open ${shareUrl}, log in and approve; then POST ${sendPath(id)} again. Nothing was sent.` },
        });
      }
      throw err;
    }
  }

  private bodyOf(kind: Kind, body: unknown): Record<string, unknown> {
    if (!isRecord(body)) throw new AppError('VALIDATION_ERROR', `The body must be a JSON object, the same as for ${ROUTE[kind].direct}`);
    const allowed = ROUTE[kind].fields;
    const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) {
      const hint = unknown.includes('phoneNumbers') ? ' (many recipients: use /api/rcs/previews/send-batch)' : unknown.includes('phoneNumber') && kind === 'rcs_batch' ? ' (one recipient: use /api/rcs/previews/send)' : '';
      throw new AppError('VALIDATION_ERROR', `${ROUTE[kind].create} takes the body of ${ROUTE[kind].direct}; not a field of it: ${unknown.join(', ')}${hint}`, {
        details: unknown.map((path) => ({ path, code: 'unrecognized_key', message: `Not a field of ${ROUTE[kind].direct}` })),
      });
    }
    return body;
  }

  /** A batch body always names its recipients; without them the service would take it for a single send. */
  private rcsInput(kind: Kind, input: Record<string, unknown>): RcsPayload {
    if (kind === 'rcs_batch' && input.phoneNumbers === undefined) {
      throw new AppError('VALIDATION_ERROR', 'phoneNumbers is required', { details: [{ path: 'phoneNumbers', code: 'required', message: 'Give the recipients' }] });
    }
    if (kind === 'rcs' && input.phoneNumber === undefined) {
      throw new AppError('VALIDATION_ERROR', 'phoneNumber is required', { details: [{ path: 'phoneNumber', code: 'required', message: 'Give the recipient' }] });
    }
    return input as RcsPayload;
  }

  /** nextStep speaks to this caller: a credential whose sends need approval waits for a person even when the preview alone would not. */
  private view(p: PreviewResult, principal: Principal): RestPreview {
    const { send_with: _tool, nextStep: _next, ...rest } = p;
    void _tool;
    void _next;
    const url = sendPath(p.preview_id);
    const nextStep =
      p.status === 'sent'
        ? `Already sent; POST ${url} again returns the same result.`
        : p.status === 'rejected'
          ? 'A person rejected this preview; nothing will be sent. Create a new preview with the changes.'
          : waitsForPerson({ approvalRequired: p.approval_required, status: p.status }, principal)
            ? `Ask a person of the account to open ${p.share_url}, log in and approve; then POST ${url}.`
            : `POST ${url} to send it.`;
    return { ...rest, send_url: url, nextStep };
  }
}

