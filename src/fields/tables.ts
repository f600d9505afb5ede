/*
 * The tables the fields area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

export interface CustomFieldsTable {
  id: string;
  account_id: string;
  name: string;
  /** The placeholder name: {{tag}}. */
  tag: string;
  /** Lower-cased tag: tags are unique per account regardless of case. */
  tag_key: string;
  created_at: number;
  updated_at: number;
}

export interface ContactFieldValuesTable {
  contact_id: string;
  field_id: string;
  account_id: string;
  value: string;
  updated_at: number;
}

export interface FieldsTables {
  custom_fields: CustomFieldsTable;
  contact_field_values: ContactFieldValuesTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the fields area's tables join the database's type
  interface Database extends FieldsTables {}
}
