/*
 * The tables the contacts area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * A contact of the address book (migration 003; custom fields, groups and templates are their own areas' tables).
 * Times are epoch milliseconds, booleans 0/1. Every row carries account_id. See docs/storage.md.
 */
export interface ContactsTable {
  id: string;
  account_id: string;
  /** Country code included, digits only, no leading + or 00 (spec §2.8). Unique per account. */
  phone: string;
  /** ISO 3166-1 alpha-2 country of the number. */
  country: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  /** Lower-cased "first last\nphone\nemail", for the case-insensitive search. */
  search_text: string;
  disabled: number;
  disabled_reason: string | null;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
  /**
   * Migration 026: JSON object of the merge values an approval-bound credential (an assistant) last
   * wrote, by merge field — `contact_first_name`, `contact_last_name`, `contact_email`,
   * `contact_phone`, and custom fields by field id (fld_…: a tag can be renamed) — each
   * `{"by": "key \"Assistant\"", "credentialId": "key_…", "at": <epoch ms>}`. `{}` when none. Written
   * only through src/contacts/provenance.ts.
   */
  assistant_writes: string;
}

export interface ContactsTables {
  contacts: ContactsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the contacts area's tables join the database's type
  interface Database extends ContactsTables {}
}
