import { z } from 'zod';
import { cursorQueryFields } from '../platform/pagination.js';
import { INBOX_STATES } from './audit.js';

/** GET /api/rcs/previews and the console's Approvals page: previews by state, newest first. */
export const InboxQuerySchema = z.strictObject({
  status: z.enum(INBOX_STATES).optional().describe('waiting (for a person), approved (not yet sent), rejected, expired (not sent in time), sent. Omit for all.'),
  ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }),
});
export type InboxQuery = z.output<typeof InboxQuerySchema>;

export const InboxItemSchema = z.object({
  previewId: z.string(),
  state: z.enum(INBOX_STATES),
  status: z.enum(['pending', 'approved', 'rejected', 'sending', 'sent']).describe('The stored status (state also tells expired previews apart).'),
  kind: z.enum(['rcs', 'rcs_batch', 'sms']),
  channel: z.enum(['RCS', 'SMS']),
  summary: z.string().describe('Campaign name or the first words of the message.'),
  recipients: z.number().int(),
  creditsEstimated: z.number(),
  approvalRequired: z.boolean(),
  createdBy: z.object({ id: z.string(), label: z.string() }).describe('The API key (key "…") or connected app (app "…") that made it.'),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable().describe('E-mail of the person who last approved or rejected it.'),
  shareUrl: z.string().describe('The share page, where a person of the account approves or rejects.'),
});
export type InboxItem = z.infer<typeof InboxItemSchema>;

/** GET /api/rcs/approvals: the account's approval history, newest first. */
export const ApprovalsQuerySchema = z.strictObject({
  ...cursorQueryFields({ defaultLimit: 100, maxLimit: 500 }),
});
export type ApprovalsQuery = z.output<typeof ApprovalsQuerySchema>;

export const ApprovalRecordSchema = z.object({
  approvalId: z.string(),
  previewId: z.string(),
  decision: z.enum(['approved', 'rejected']),
  decidedAt: z.string(),
  userId: z.string(),
  email: z.string().describe('The person, as their e-mail was when they decided.'),
  clientIp: z.string().nullable(),
  userAgent: z.string().nullable(),
  sessionHash: z.string().describe('SHA-256 derived from the session: equal for decisions made in one session, names no session.'),
  shownFingerprint: z.string().describe('SHA-256 of exactly what the share page showed (payload, recipients, cost, warnings, merged values).'),
  kind: z.enum(['rcs', 'rcs_batch', 'sms']),
  recipients: z.number().int(),
  creditsEstimated: z.number(),
  createdBy: z.string().nullable().describe('The credential that made the preview.'),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;
