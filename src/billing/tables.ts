/*
 * The tables the billing area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

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

/** Migration 030: the limits of one credential (API key or connected OAuth app) of an account (src/billing/budgets.ts). */
export interface CredentialLimitsTable {
  account_id: string;
  /** `key_…` of an API key, or the client_id of an OAuth client. */
  credential_id: string;
  kind: 'key' | 'app';
  /** Credits per day of the account's time zone in 1/1000 credits; null: no daily limit. */
  daily_credits_milli: number | null;
  /** Recipients per send; null: no limit. */
  max_recipients: number | null;
  updated_at: number;
}

/** Migration 030: what one credential's sends were charged on one day of the account's time zone (the budget's counter). */
export interface CredentialSpendTable {
  account_id: string;
  credential_id: string;
  /** The account-local calendar date as a day number (days from 1970-01-01 to that date); UTC days before issue #42. */
  day: number;
  /** Credits charged at accept that day, 1/1000 credits (refunds do not give budget back). */
  spent_milli: number;
  /** Messages accepted that day. */
  messages: number;
}

/** Migration 039: what an approved preview holds of its credential's daily budget until it is sent, rejected or expires. */
export interface BudgetHoldsTable {
  preview_id: string;
  account_id: string;
  /** The credential that made the preview (`key_…` or an OAuth client_id). */
  credential_id: string;
  /** The preview's estimated cost, 1/1000 credits. */
  credits_milli: number;
  /** The preview's recipients. */
  recipients: number;
  created_at: number;
  /** The preview's expiry: a hold counts only before it. */
  expires_at: number;
}

export interface BillingTables {
  credit_ledger: CreditLedgerTable;
  credential_limits: CredentialLimitsTable;
  credential_spend: CredentialSpendTable;
  budget_holds: BudgetHoldsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the billing area's tables join the database's type
  interface Database extends BillingTables {}
}
