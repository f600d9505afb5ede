/**
 * Tables of the address book (contacts, custom fields and their values, contact groups) and the
 * template library (templates, template groups). Migration 003. Times are epoch milliseconds,
 * booleans 0/1. Every row carries account_id. See docs/storage.md.
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

export interface ContactGroupsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

/** The one contact↔group relation: contact.groups and a group's contacts are both read from it. */
export interface ContactGroupMembersTable {
  group_id: string;
  contact_id: string;
  account_id: string;
  created_at: number;
}

export interface TemplateGroupsTable {
  id: string;
  account_id: string;
  name: string;
  /** Lower-cased name: names are unique per account regardless of case. */
  name_key: string;
  created_at: number;
  updated_at: number;
}

export interface TemplatesTable {
  id: string;
  account_id: string;
  name: string;
  /** Lower-cased name, for search and sorting by name. */
  name_key: string;
  type: 'SMS' | 'RCS';
  /** SMS: the text. RCS: the content object as JSON text. */
  content: string;
  rcs_message_type: string | null;
  context: 'event' | 'flow' | 'general';
  is_default: number;
  template_group_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface AddressBookTables {
  contacts: ContactsTable;
  custom_fields: CustomFieldsTable;
  contact_field_values: ContactFieldValuesTable;
  contact_groups: ContactGroupsTable;
  contact_group_members: ContactGroupMembersTable;
  template_groups: TemplateGroupsTable;
  templates: TemplatesTable;
}
