/**
 * The credit ledger (src/billing/ writes it, nothing else): one row per change of a balance.
 * accounts.credits_milli is the cached sum of an account's rows. See docs/storage.md.
 */
export interface CreditLedgerTable {
  /** `led_` + time-ordered ULID: the history's order. */
  id: string;
  account_id: string;
  /** opening | debit | refund | reprice | topup | adjustment (src/billing/schemas.ts LEDGER_KINDS). */
  kind: string;
  /** Signed 1/1000 credits: negative takes from the balance, positive gives to it. */
  amount_milli: number;
  /** Why, in words a person reads on the Credits page. */
  reason: string;
  /** The message the entry is for, when it is for exactly one. */
  message_id: string | null;
  /** The job the entry is for (batch or scheduled send), when all its messages belong to one. */
  job_id: string | null;
  created_at: number;
}

export interface BillingTables {
  credit_ledger: CreditLedgerTable;
}
