/*
 * The tables the groups area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

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

export interface GroupsTables {
  contact_groups: ContactGroupsTable;
  contact_group_members: ContactGroupMembersTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the groups area's tables join the database's type
  interface Database extends GroupsTables {}
}
