/*
 * The tables the templates area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

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

export interface TemplatesTables {
  template_groups: TemplateGroupsTable;
  templates: TemplatesTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the templates area's tables join the database's type
  interface Database extends TemplatesTables {}
}
