import { sql } from 'kysely';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import type { ContactGroupsTable } from './tables.js';
import { AppError, notFound, type ErrorDetail } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import {
  CreateGroupSchema,
  GetGroupOptionsSchema,
  GroupMembershipSchema,
  ListGroupsQuerySchema,
  UpdateGroupSchema,
  type CreateGroupInput,
  type GetGroupOptions,
  type Group,
  type GroupDetail,
  type GroupMembershipInput,
  type GroupRef,
  type ListGroupsOptions,
  type MembershipAddResult,
  type MembershipRemoveResult,
  type UpdateGroupInput,
} from './schemas.js';

type GroupRow = ContactGroupsTable & { contact_count: number | string | bigint };

const toGroup = (row: GroupRow): Group => ({
  id: row.id,
  name: row.name,
  description: row.description,
  contactCount: Number(row.contact_count),
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!,
});

const CHUNK = 500;
const chunks = <T>(items: readonly T[], size = CHUNK): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};
const distinct = (ids: readonly string[]): string[] => [...new Set(ids)];
const emptyToNull = (s: string | null | undefined): string | null | undefined => (s === undefined ? undefined : s === null || s === '' ? null : s);

export interface GroupsDeps {
  db: Db;
  clock: Clock;
}

/**
 * Contact groups (§2.10, §4.5). Membership is one relation (contact_group_members): a contact's
 * `groups` and a group's contacts are the same rows, so they cannot disagree. This service is the
 * only writer of contact_groups and contact_group_members; ContactsService calls the membership
 * helpers inside its own transactions.
 */
export class GroupsService {
  constructor(private readonly d: GroupsDeps) {}

  private groupsQuery(tx: DbOrTx, accountId: string) {
    return tx
      .selectFrom('contact_groups')
      .selectAll('contact_groups')
      .select((eb) =>
        eb
          .selectFrom('contact_group_members')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('contact_group_members.group_id', '=', 'contact_groups.id')
          .as('contact_count'),
      )
      .where('contact_groups.account_id', '=', accountId);
  }

  /** All groups with contact counts, newest first, cursor-paginated. */
  async list(accountId: string, options: ListGroupsOptions = {}): Promise<CursorPage<Group>> {
    const opts = parseOrThrow(ListGroupsQuerySchema, options, 'Query');
    const { rows, pagination } = await keysetPage(this.groupsQuery(this.d.db, accountId), {
      scope: { kind: 'groups', sort: 'createdAt', order: 'desc' },
      sortExpr: sql.ref('contact_groups.created_at'),
      idExpr: sql.ref('contact_groups.id'),
      limit: opts.limit,
      cursor: opts.cursor,
    });
    return { data: rows.map((r) => toGroup(r as GroupRow)), pagination };
  }

  private async getGroup(tx: DbOrTx, accountId: string, groupId: string): Promise<Group> {
    assertId('grp', groupId, 'groupId');
    const row = await this.groupsQuery(tx, accountId).where('contact_groups.id', '=', groupId).executeTakeFirst();
    if (!row) throw notFound('Group');
    return toGroup(row as GroupRow);
  }

  /** One group; with includeContacts a page (limit/offset) of members in the order they were added. */
  async get(accountId: string, groupId: string, options: GetGroupOptions = {}): Promise<GroupDetail> {
    const q = parseOrThrow(GetGroupOptionsSchema, options, 'Query');
    const group = await this.getGroup(this.d.db, accountId, groupId);
    if (!q.includeContacts) return group;
    const rows = await this.d.db
      .selectFrom('contact_group_members as m')
      .innerJoin('contacts as c', 'c.id', 'm.contact_id')
      .select(['c.id', 'c.first_name', 'c.last_name', 'c.phone', 'c.email'])
      .where('m.group_id', '=', groupId)
      .where('m.account_id', '=', accountId)
      .orderBy('m.created_at')
      .orderBy('m.contact_id')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    const contacts = rows.map((r) => ({
      id: r.id,
      name: [r.first_name, r.last_name].filter((s) => s).join(' '),
      firstName: r.first_name,
      lastName: r.last_name,
      phone: r.phone,
      email: r.email,
    }));
    return {
      ...group,
      contacts,
      contactsPagination: {
        limit: q.limit,
        offset: q.offset,
        count: contacts.length,
        total: group.contactCount,
        hasMore: q.offset + contacts.length < group.contactCount,
      },
    };
  }

  async create(accountId: string, input: CreateGroupInput): Promise<Group> {
    const data = parseOrThrow(CreateGroupSchema, input);
    const now = this.d.clock.now();
    const row: ContactGroupsTable = {
      id: newId('grp'),
      account_id: accountId,
      name: data.name,
      description: emptyToNull(data.description) ?? null,
      created_at: now,
      updated_at: now,
    };
    // In a transaction, though one statement: the idempotency mark of POST /groups joins it (route.ts `idempotent`).
    await inTransaction(this.d.db, (tx) => tx.insertInto('contact_groups').values(row).execute());
    return toGroup({ ...row, contact_count: 0 });
  }

  /** Name and/or description; membership unchanged. */
  async update(accountId: string, groupId: string, input: UpdateGroupInput): Promise<Group> {
    assertId('grp', groupId, 'groupId');
    const data = parseOrThrow(UpdateGroupSchema, input);
    const patch: Partial<ContactGroupsTable> = { updated_at: this.d.clock.now() };
    if (data.name !== undefined) patch.name = data.name;
    const description = emptyToNull(data.description);
    if (description !== undefined) patch.description = description;
    const res = await this.d.db.updateTable('contact_groups').set(patch).where('id', '=', groupId).where('account_id', '=', accountId).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw notFound('Group');
    return this.getGroup(this.d.db, accountId, groupId);
  }

  /** Deletes the group only: its contacts remain and lose the reference. */
  async delete(accountId: string, groupId: string): Promise<{ id: string; deleted: true; removedMemberships: number }> {
    return inTransaction(this.d.db, async (tx) => {
      const group = await this.getGroup(tx, accountId, groupId);
      await tx.deleteFrom('contact_group_members').where('group_id', '=', groupId).where('account_id', '=', accountId).execute();
      await tx.deleteFrom('contact_groups').where('id', '=', groupId).where('account_id', '=', accountId).execute();
      return { id: groupId, deleted: true as const, removedMemberships: group.contactCount };
    });
  }

  /** Which of `ids` are contacts of the account. */
  private async existingContacts(tx: DbOrTx, accountId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of chunks(ids)) {
      const rows = await tx.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('id', 'in', chunk).execute();
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  private async membersAmong(tx: DbOrTx, groupId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of chunks(ids)) {
      const rows = await tx.selectFrom('contact_group_members').select('contact_id').where('group_id', '=', groupId).where('contact_id', 'in', chunk).execute();
      for (const r of rows) found.add(r.contact_id);
    }
    return found;
  }

  private async countMembers(tx: DbOrTx, groupId: string): Promise<number> {
    const r = await tx.selectFrom('contact_group_members').select((eb) => eb.fn.countAll<number>().as('n')).where('group_id', '=', groupId).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  private async insertMemberships(tx: DbOrTx, accountId: string, pairs: ReadonlyArray<{ groupId: string; contactId: string }>): Promise<void> {
    const now = this.d.clock.now();
    for (const chunk of chunks(pairs, 200)) {
      if (chunk.length === 0) continue;
      await tx
        .insertInto('contact_group_members')
        .values(chunk.map((p) => ({ group_id: p.groupId, contact_id: p.contactId, account_id: accountId, created_at: now })))
        .onConflict((oc) => oc.columns(['group_id', 'contact_id']).doNothing())
        .execute();
    }
  }

  /**
   * Adds contacts (≤ 10,000 ids). Repeated ids and existing members are ignored; ids that are not
   * contacts of the account are reported in notFoundIds and do not fail the call.
   */
  async addContacts(accountId: string, groupId: string, input: GroupMembershipInput): Promise<MembershipAddResult> {
    assertId('grp', groupId, 'groupId');
    const data = parseOrThrow(GroupMembershipSchema, input);
    const ids = distinct(data.contactIds);
    return inTransaction(this.d.db, async (tx) => {
      await this.getGroup(tx, accountId, groupId);
      const existing = await this.existingContacts(tx, accountId, ids);
      const valid = ids.filter((id) => existing.has(id));
      const already = await this.membersAmong(tx, groupId, valid);
      const toAdd = valid.filter((id) => !already.has(id));
      await this.insertMemberships(tx, accountId, toAdd.map((contactId) => ({ groupId, contactId })));
      if (toAdd.length > 0) await this.touch(tx, accountId, [groupId]);
      return {
        groupId,
        requestedCount: ids.length,
        addedCount: toAdd.length,
        alreadyMemberCount: already.size,
        notFoundIds: ids.filter((id) => !existing.has(id)),
        contactCount: await this.countMembers(tx, groupId),
      };
    });
  }

  /** Removes contacts from the group (contacts are not deleted); same reporting as addContacts. */
  async removeContacts(accountId: string, groupId: string, input: GroupMembershipInput): Promise<MembershipRemoveResult> {
    assertId('grp', groupId, 'groupId');
    const data = parseOrThrow(GroupMembershipSchema, input);
    const ids = distinct(data.contactIds);
    return inTransaction(this.d.db, async (tx) => {
      await this.getGroup(tx, accountId, groupId);
      const existing = await this.existingContacts(tx, accountId, ids);
      const valid = ids.filter((id) => existing.has(id));
      const members = await this.membersAmong(tx, groupId, valid);
      for (const chunk of chunks([...members])) {
        await tx.deleteFrom('contact_group_members').where('group_id', '=', groupId).where('account_id', '=', accountId).where('contact_id', 'in', chunk).execute();
      }
      if (members.size > 0) await this.touch(tx, accountId, [groupId]);
      return {
        groupId,
        requestedCount: ids.length,
        removedCount: members.size,
        notMemberCount: valid.length - members.size,
        notFoundIds: ids.filter((id) => !existing.has(id)),
        contactCount: await this.countMembers(tx, groupId),
      };
    });
  }

  private async touch(tx: DbOrTx, accountId: string, groupIds: readonly string[]): Promise<void> {
    if (groupIds.length === 0) return;
    await tx.updateTable('contact_groups').set({ updated_at: this.d.clock.now() }).where('account_id', '=', accountId).where('id', 'in', groupIds).execute();
  }

  // ---- helpers for ContactsService (run inside its transaction) --------------------------------

  /**
   * Checks that every id is a group of the account; unknown or foreign ones are a 404 naming each
   * path (`${path}[i]` for a list; `path` itself when `single`). Returns the distinct ids.
   */
  async assertGroups(accountId: string, groupIds: readonly string[], path: string, tx: DbOrTx = this.d.db, single = false): Promise<string[]> {
    const ids = distinct(groupIds);
    if (ids.length === 0) return ids;
    const found = new Set<string>();
    for (const chunk of chunks(ids)) {
      const rows = await tx.selectFrom('contact_groups').select('id').where('account_id', '=', accountId).where('id', 'in', chunk).execute();
      for (const r of rows) found.add(r.id);
    }
    const problems: ErrorDetail[] = [];
    groupIds.forEach((id, i) => {
      if (!found.has(id)) problems.push({ path: single ? path : `${path}[${i}]`, code: 'not_found', message: `Group ${id} not found` });
    });
    if (problems.length > 0) throw new AppError('NOT_FOUND', `Group not found: ${problems[0]!.message}`, { details: problems });
    return ids;
  }

  /** Which of these ids are groups of the account (a group deleted since they were chosen is left out, not an error). */
  async existing(accountId: string, groupIds: readonly string[], tx: DbOrTx = this.d.db): Promise<string[]> {
    const ids = distinct(groupIds);
    const found = new Set<string>();
    for (const chunk of chunks(ids)) {
      for (const r of await tx.selectFrom('contact_groups').select('id').where('account_id', '=', accountId).where('id', 'in', chunk).execute()) found.add(r.id);
    }
    return ids.filter((id) => found.has(id));
  }

  /** The groups of each contact ({id, name}, by name). */
  async groupsOf(accountId: string, contactIds: readonly string[], tx: DbOrTx = this.d.db): Promise<Map<string, GroupRef[]>> {
    const out = new Map<string, GroupRef[]>();
    for (const id of contactIds) out.set(id, []);
    for (const chunk of chunks(contactIds)) {
      const rows = await tx
        .selectFrom('contact_group_members as m')
        .innerJoin('contact_groups as g', 'g.id', 'm.group_id')
        .select(['m.contact_id', 'g.id', 'g.name'])
        .where('m.account_id', '=', accountId)
        .where('m.contact_id', 'in', chunk)
        .orderBy('g.name')
        .orderBy('g.id')
        .execute();
      for (const r of rows) out.get(r.contact_id)?.push({ id: r.id, name: r.name });
    }
    return out;
  }

  /** Adds every contact to every group (groups already checked). */
  async addMemberships(accountId: string, contactIds: readonly string[], groupIds: readonly string[], tx: DbOrTx): Promise<void> {
    if (contactIds.length === 0 || groupIds.length === 0) return;
    const pairs = groupIds.flatMap((groupId) => contactIds.map((contactId) => ({ groupId, contactId })));
    await this.insertMemberships(tx, accountId, pairs);
    await this.touch(tx, accountId, groupIds);
  }

  /** Makes the contact a member of exactly these groups (groups already checked). */
  async setMemberships(accountId: string, contactId: string, groupIds: readonly string[], tx: DbOrTx): Promise<void> {
    const current = await tx.selectFrom('contact_group_members').select('group_id').where('contact_id', '=', contactId).where('account_id', '=', accountId).execute();
    const want = new Set(groupIds);
    const have = new Set(current.map((r) => r.group_id));
    const remove = [...have].filter((g) => !want.has(g));
    const add = [...want].filter((g) => !have.has(g));
    if (remove.length > 0) {
      await tx.deleteFrom('contact_group_members').where('contact_id', '=', contactId).where('account_id', '=', accountId).where('group_id', 'in', remove).execute();
    }
    await this.insertMemberships(tx, accountId, add.map((groupId) => ({ groupId, contactId })));
    await this.touch(tx, accountId, [...remove, ...add]);
  }

  /** Removes these contacts from every group (contact deletion). */
  async removeFromAllGroups(accountId: string, contactIds: readonly string[], tx: DbOrTx): Promise<void> {
    for (const chunk of chunks(contactIds)) {
      await tx.deleteFrom('contact_group_members').where('account_id', '=', accountId).where('contact_id', 'in', chunk).execute();
    }
  }
}
