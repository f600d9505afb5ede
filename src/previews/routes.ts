import { z } from 'zod';
import type { PreviewsService } from './service.js';
import { APPROVALS_CSV_COLUMNS } from './audit.js';
import { sendApprovalsCsv } from './csv-export.js';
import { BatchResponseSchema, RECIPIENT_THROTTLED, ScheduledSendResponseSchema, SendBatchRequestSchema, SendMessageRequestSchema, SendMessageResponseSchema, SendSmsRequestSchema, SendSmsResponseSchema } from '../messaging/schemas.js';
import { defineRoute, reply, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok, pageListSchema } from '../platform/pagination.js';
import { ApprovalRecordSchema, ApprovalsQuerySchema, InboxItemSchema, InboxQuerySchema } from './inbox-schemas.js';
import { MergeValueItemSchema, MergeValuesQuerySchema, PreviewRecipientSchema, PreviewRecipientsQuerySchema, RestPreviewFlow, RestPreviewSchema } from './rest-flow.js';

const TAGS = ['Previews'];
const IdParams = z.object({ id: z.string() });
const Preview = dataResponseSchema(RestPreviewSchema);
const created = { 201: { description: 'The preview: share_url for the person who approves, status, approval_required, recipients, cost, warnings', schema: Preview } };
const invalid = { 400: { description: 'Validation error (details name the paths)' } };
const notFound = { 404: { description: 'Unknown preview (or another account’s)' } };

const CREATE_NOTE =
  'Validates, prices and stores the whole send without sending anything. A person of the account opens share_url, logs in and approves; then POST /api/rcs/previews/{id}/send sends it. OAuth tokens and keys whose sends need approval must send this way; for other keys approval is needed when the account’s approval setting is on.';

/**
 * The REST door of the preview flow under {base_url}/previews (DESIGN §6): the bodies of /send,
 * /send-batch and /send-sms, one route that sends a preview once it is approved, one to read it.
 * Thin: RestPreviewFlow and PreviewsService hold the rules.
 */
export function previewsRoutes({ previews }: { previews: PreviewsService }): RouteSpec[] {
  const flow = new RestPreviewFlow({ previews });
  return [
    defineRoute({
      method: 'post',
      path: '/previews/send',
      operationId: 'createPreviewSend',
      idempotent: true,
      summary: 'Preview one RCS message (the body of POST /send) for a person to approve',
      description: CREATE_NOTE,
      tags: TAGS,
      auth: 'messages:write',
      bodyDoc: SendMessageRequestSchema,
      status: 201,
      responses: { ...created, ...invalid },
      handler: async ({ principal, body }) => ok(await flow.create(principal, 'rcs', body)),
    }),
    defineRoute({
      method: 'post',
      path: '/previews/send-batch',
      operationId: 'createPreviewSendBatch',
      idempotent: true,
      summary: 'Preview a batch (the body of POST /send-batch) for a person to approve',
      description: CREATE_NOTE,
      tags: TAGS,
      auth: 'messages:write',
      bodyDoc: SendBatchRequestSchema,
      status: 201,
      responses: { ...created, ...invalid },
      handler: async ({ principal, body }) => ok(await flow.create(principal, 'rcs_batch', body)),
    }),
    defineRoute({
      method: 'post',
      path: '/previews/send-sms',
      operationId: 'createPreviewSendSms',
      idempotent: true,
      summary: 'Preview a standalone SMS (the body of POST /send-sms) for a person to approve',
      description: `${CREATE_NOTE} An identical body while its preview is open returns that preview.`,
      tags: TAGS,
      auth: 'messages:write',
      bodyDoc: SendSmsRequestSchema,
      status: 201,
      responses: { ...created, ...invalid },
      handler: async ({ principal, body }) => ok(await flow.create(principal, 'sms', body)),
    }),
    defineRoute({
      method: 'get',
      path: '/previews',
      operationId: 'listPreviews',
      summary: 'The approvals inbox: previews by state, newest first',
      description:
        'What waits for a person (status=waiting), and what was approved, rejected, expired or sent, with the credential that made each preview, its recipients, cost, expiry and share_url. Cursor-paged.',
      tags: TAGS,
      auth: 'messages:read',
      query: InboxQuerySchema,
      responses: { 200: { description: 'A page of previews', schema: cursorListSchema(InboxItemSchema) }, 400: { description: 'Unknown status, bad limit or cursor' } },
      handler: async ({ principal, query }) => previews.inbox(principal.accountId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/approvals',
      operationId: 'listApprovals',
      summary: 'The approval history: every approval and rejection, newest first',
      description:
        'Append-only records of the decisions people made on share pages: who (user id and e-mail), when, from which address and user agent, a hash naming the session, and the fingerprint of exactly what the page showed. No route edits or deletes them. Cursor-paged; GET /approvals/export.csv gives all of them as CSV.',
      tags: TAGS,
      auth: 'messages:read',
      approvalBound: 'audit',
      query: ApprovalsQuerySchema,
      responses: { 200: { description: 'A page of records', schema: cursorListSchema(ApprovalRecordSchema) }, 400: { description: 'Bad limit or cursor' } },
      handler: async ({ principal, query }) => previews.approvals(principal.accountId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/approvals/export.csv',
      operationId: 'exportApprovals',
      summary: 'The whole approval history as CSV (safe to open in a spreadsheet)',
      description: `Columns: ${APPROVALS_CSV_COLUMNS.join(', ')}. Values that a spreadsheet would read as a formula are prefixed with an apostrophe.`,
      tags: TAGS,
      auth: 'messages:read',
      approvalBound: 'audit',
      responses: { 200: { description: 'One row per approval or rejection', mediaTypes: ['text/csv'] } },
      handler: async ({ principal, res }) => sendApprovalsCsv(res, previews, principal.accountId),
    }),
    defineRoute({
      method: 'get',
      path: '/previews/:id',
      operationId: 'getPreview',
      summary: 'A preview and its state (pending, approved, rejected, sending, sent)',
      tags: TAGS,
      auth: 'messages:read',
      params: IdParams,
      responses: { 200: { description: 'The preview', schema: Preview }, 400: { description: 'Malformed id' }, ...notFound },
      handler: async ({ principal, params }) => ok(await flow.get(principal, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/previews/:id/merge-values',
      operationId: 'listPreviewMergeValues',
      summary: 'Every distinct merged value of a preview, riskiest first',
      description:
        'Per merge field, each value the preview fills in, how many recipients get it, why it is flagged (a link, a phone number, an e-mail address, mixed scripts, text-direction or invisible characters, unusual length, written by an assistant credential) and the first recipients. The preview result carries the first 10 values per field; this lists them all.',
      tags: TAGS,
      auth: 'messages:read',
      params: IdParams,
      query: MergeValuesQuerySchema,
      responses: { 200: { description: 'A page of values', schema: pageListSchema(MergeValueItemSchema) }, 400: { description: 'Malformed id or query' }, ...notFound },
      handler: async ({ principal, params, query }) => flow.mergeValues(principal, params.id, query),
    }),
    defineRoute({
      method: 'get',
      path: '/previews/:id/recipients',
      operationId: 'listPreviewRecipients',
      summary: 'The numbers of a preview, a page at a time (or only those that will not be sent to)',
      description:
        'In the order the payload names them. The preview answers (REST and MCP) count the recipients and name the first 10 refused numbers instead of repeating a batch of up to 10,000; this pages them. rejected=true lists every refused number with its code and reason.',
      tags: TAGS,
      auth: 'messages:read',
      params: IdParams,
      query: PreviewRecipientsQuerySchema,
      responses: { 200: { description: 'A page of numbers', schema: pageListSchema(PreviewRecipientSchema) }, 400: { description: 'Malformed id or query' }, ...notFound },
      handler: async ({ principal, params, query }) => flow.recipients(principal, params.id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/previews/:id/send',
      operationId: 'sendPreview',
      idempotent: true,
      summary: 'Send a preview once a person approved it; a repeat returns the first result',
      description:
        'Sends the stored payload. The body is optional; when given it must be exactly the previewed body (PREVIEW_MISMATCH names the differing fields). Refused while not approved (PREVIEW_NOT_APPROVED, with share_url), when rejected (PREVIEW_REJECTED) or expired (PREVIEW_EXPIRED); nothing is sent then. A preview sends once: calling again returns the first result.',
      tags: TAGS,
      auth: 'messages:write',
      params: IdParams,
      responses: {
        200: { description: 'Sent or scheduled: the answer of /send, /send-sms, or of a scheduled /send-batch', schema: z.union([SendMessageResponseSchema, SendSmsResponseSchema, ScheduledSendResponseSchema, BatchResponseSchema]) },
        202: { description: 'A batch queued for background processing (the answer of /send-batch)', schema: BatchResponseSchema },
        400: { description: 'Malformed id, not approved, rejected, expired, or a body that differs from the preview' },
        ...notFound,
        409: { description: 'This preview is being sent right now' },
        429: RECIPIENT_THROTTLED,
      },
      handler: async ({ req, principal, params }) => {
        const { kind, result } = await flow.send(principal, params.id, req.body);
        const queued = kind === 'rcs_batch' && !(result as { scheduled?: boolean }).scheduled;
        return reply(queued ? 202 : 200, result);
      },
    }),
  ];
}
