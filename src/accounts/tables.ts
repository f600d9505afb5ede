import type { ColumnType } from 'kysely';

/*
 * The tables the accounts area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * Tables of accounts, people, keys, sessions and logins (senders are senders/' own). Times are epoch milliseconds,
 * money is integer 1/1000 credits, booleans are 0/1, lists are JSON text. See docs/storage.md.
 */
export interface AccountsTable {
  id: string;
  name: string;
  timezone: string;
  approval_required: number;
  /** The balance, cached: the sum of the account's credit_ledger rows, written by src/billing/ alone (inserted as 0 by default). */
  credits_milli: ColumnType<number, number | undefined, number>;
  unsubscribe_url: string | null;
  /** JSON object of the company merge fields (company_name, company_email, …, gdpr_phone). */
  company_profile: string;
  active: number;
  created_at: number;
  /** Caps on opt-in forms' confirmation SMS (migration 025; defaults 30, 200, 100, 1000): per form per hour and day, per account per hour and day. */
  form_confirmations_form_hour: ColumnType<number, number | undefined, number>;
  form_confirmations_form_day: ColumnType<number, number | undefined, number>;
  form_confirmations_account_hour: ColumnType<number, number | undefined, number>;
  form_confirmations_account_day: ColumnType<number, number | undefined, number>;
  /** Confirm an opt-out by keyword or chip with one message (migration 027; 0/1, default 1). */
  opt_out_confirmation: ColumnType<number, number | undefined, number>;
  /** The confirmation's text, {{company_name}} replaced; null: the default text (migration 027). */
  opt_out_confirmation_text: ColumnType<string | null, string | null | undefined, string | null>;
  /** Quiet hours on (migration 029; 0/1, default 0): marketing messages wait for the recipient's local window. */
  quiet_hours: ColumnType<number, number | undefined, number>;
  /** JSON object of per-country window overrides (`{"DE": {"start": "09:00", "end": "20:00", "days": [1,…]}}`); null: none (migration 029). */
  quiet_hours_windows: ColumnType<string | null, string | null | undefined, string | null>;
  /** The language of replies to English words and the sender's own words (en, de, …; migration 038); null: en. */
  consent_reply_language: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON `{"confirmation": {"de": "…"}, "help": {"fr": "…"}}`: the account's own reply texts by language; null: none (migration 038). */
  consent_reply_texts: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PricesTable {
  account_id: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  rcs_price_milli: number;
  sms_price_milli: number;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  /** Base32 TOTP secret. Stored readable: the server must compute codes from it (see docs/storage.md). */
  totp_secret: string;
  /** Last accepted TOTP time step, so one code cannot be used twice. */
  totp_last_counter: number | null;
  active: number;
  failed_logins: number;
  locked_until: number | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 hex of the whole secret key; the key itself is never stored. */
  key_hash: string;
  /** First characters of the key, shown in lists so people can tell keys apart. */
  display_prefix: string;
  permissions: string;
  /** 1: the key sends only through an approved preview and never sees webhook secrets (migration 012). */
  sends_need_approval: number;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface SessionsTable {
  /** SHA-256 hex of the cookie value. */
  id_hash: string;
  user_id: string;
  account_id: string;
  csrf_token: string;
  /** null while the password was accepted but the second factor is still due. */
  authenticated_at: number | null;
  created_at: number;
  expires_at: number;
}

export interface LoginThrottleTable {
  /** "ip:<address>". No longer written since migration 024: login_failures took its place. */
  key: string;
  failures: number;
  window_start: number;
  locked_until: number | null;
}

/** Login failure counters with growing delays (src/accounts/login.ts), shared by every instance. */
export interface LoginFailuresTable {
  /**
   * "ip:<address>" — failures per client address; "acct:<SHA-256 hex of the normalised email>" —
   * failures per typed email from devices not known for it (unknown emails too, so the answer does
   * not tell which exist); "dev:<token hash>" — failures of one known device.
   */
  key: string;
  /** Failures since the counter last started (it starts again after a quiet period). */
  failures: number;
  last_failure_at: number;
  /** Attempts before this time are refused (429 LOGIN_THROTTLED); null while under the free failures. */
  next_attempt_at: number | null;
}

/** Browsers that finished a login (password and second factor): their attempts are not slowed by others' failures. */
export interface LoginDevicesTable {
  /** SHA-256 hex of the random token in the rcs_device cookie. */
  token_hash: string;
  user_id: string;
  created_at: number;
  last_used_at: number;
  expires_at: number;
}

export interface AccountsTables {
  accounts: AccountsTable;
  prices: PricesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
  login_devices: LoginDevicesTable;
  login_failures: LoginFailuresTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the accounts area's tables join the database's type
  interface Database extends AccountsTables {}
}
