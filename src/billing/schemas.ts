import { z } from 'zod';
import { cursorQueryFields, CursorPaginationSchema } from '../platform/pagination.js';

/**
 * Kinds of credit ledger entries:
 * - opening: the balance an account had when the ledger began (migration 018);
 * - debit: a send's charge at accept (one entry per send or job);
 * - refund: credits given back (a failed message, a cancelled scheduled message or job);
 * - reprice: a message's price changed after accept (an RCS message sent by its SMS fallback is
 *   billed by segments), either way;
 * - topup: credits added (a new account's starting credits);
 * - adjustment: an operator set the balance (`credits:set --reason`).
 */
export const LEDGER_KINDS = ['opening', 'debit', 'refund', 'reprice', 'topup', 'adjustment'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const LEDGER_LIMIT_MAX = 200;
export const LEDGER_LIMIT_DEFAULT = 50;

const DateParam = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date or date-time' });

/** GET /credits/ledger query: newest first, cursor pagination, optional date range and filters. */
export const LedgerQuerySchema = z.strictObject({
  ...cursorQueryFields({ defaultLimit: LEDGER_LIMIT_DEFAULT, maxLimit: LEDGER_LIMIT_MAX }),
  startDate: DateParam.optional().describe('Entries at or after this time (ISO 8601).'),
  endDate: DateParam.optional().describe('Entries before or at this time (ISO 8601); not before startDate.'),
  kind: z.string().max(200).optional().describe(`Comma-separated kinds: ${LEDGER_KINDS.join(', ')}.`),
  jobId: z.string().max(64).optional().describe('Entries of one batch or scheduled job (job_…).'),
  messageId: z.string().max(64).optional().describe('Entries of one message (msg_…).'),
});
export type LedgerQuery = z.input<typeof LedgerQuerySchema>;

export const LedgerEntrySchema = z.object({
  id: z.string().describe('led_…'),
  kind: z.enum(LEDGER_KINDS),
  amount: z.number().describe('Credits; negative takes from the balance, positive gives to it.'),
  reason: z.string(),
  messageId: z.string().nullable(),
  jobId: z.string().nullable(),
  createdAt: z.string().describe('ISO 8601 UTC'),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export const LedgerPageSchema = z.object({ success: z.literal(true), data: z.array(LedgerEntrySchema), pagination: CursorPaginationSchema });
export type LedgerPage = z.infer<typeof LedgerPageSchema>;

export const BalanceSchema = z.object({
  success: z.literal(true),
  accountId: z.string(),
  credits: z.number().describe('The current balance in credits.'),
  asOf: z.string().describe('ISO 8601 UTC'),
});
export type Balance = z.infer<typeof BalanceSchema>;

/** One day of the Credits page's chart (UTC days). */
export interface DailyUsage {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Credits taken that day net of refunds and re-pricing (debit + refund + reprice), as a positive number. */
  spent: number;
  /** Outbound messages created that day, by status. */
  messages: Record<string, number>;
}
