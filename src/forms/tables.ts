/*
 * The tables the forms area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

export type FieldMode = 'off' | 'optional' | 'required';

export interface FormsTable {
  /** frm_… */
  id: string;
  account_id: string;
  name: string;
  /** The public page is /f/<slug>; unique over all accounts. */
  slug: string;
  title: string | null;
  description: string | null;
  /** JSON {firstName: FieldMode, email: FieldMode, customFields: [{fieldId, label, required}]}. */
  fields: string;
  /** JSON list of group ids the contact joins on confirmation. */
  group_ids: string;
  double_opt_in: number;
  /** The SMS sender of the confirmation message. */
  sender_id: string | null;
  /** Confirmation SMS text with {{confirm_link}}. */
  confirmation_message: string | null;
  /** Apply the submitted name, email, custom fields and groups to the contact on confirmation. */
  apply_data: number;
  consent_text: string | null;
  /** The form's own webhook (spec §6 "one per form"); null: the account's endpoints subscribed to form events. */
  webhook_id: string | null;
  active: number;
  created_at: number;
  updated_at: number;
  /** JSON {limit, max, at} of the last submission whose confirmation SMS a cap held back (migration 025); null: none. */
  confirmation_limit_hit: string | null;
}

export type SubmissionStatus = 'PENDING' | 'CONFIRMED';

export interface FormSubmissionsTable {
  /** sub_… */
  id: string;
  account_id: string;
  form_id: string;
  /** Digits with country code. */
  phone: string;
  contact_id: string;
  /** Whether this submission created the contact or matched an existing one. */
  contact_action: 'created' | 'updated';
  /** JSON {phone, firstName, email, customFields: [{id, label, value}]} as submitted. */
  data: string;
  status: SubmissionStatus;
  /** SHA-256 of the confirmation link's token; null when no confirmation SMS went out for this submission. */
  token_hash: string | null;
  token_expires_at: number | null;
  confirmation_sent: number;
  confirmation_message_id: string | null;
  /** When the confirmation SMS was accepted (migration 025); null when none was. The caps count these. */
  confirmation_sent_at: number | null;
  /** Why no confirmation SMS was sent (throttled, refused by the send path). */
  confirmation_note: string | null;
  data_applied: number;
  submitted_at: number;
  confirmed_at: number | null;
  /** SHA-256 of `data`; unique per form and phone among PENDING rows while fresh, then null (migration 019). */
  dedupe_key: string | null;
}

export interface FormsTables {
  forms: FormsTable;
  form_submissions: FormSubmissionsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the forms area's tables join the database's type
  interface Database extends FormsTables {}
}
