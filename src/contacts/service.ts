import { sql, type Expression } from 'kysely';
import type { AccountsService } from '../accounts/service.js';
import type { FieldValueInput } from '../fields/schemas.js';
import type { FieldsService, ResolvedFieldValue } from '../fields/service.js';
import { changedFieldIds, unknownFields } from '../fields/service.js';
import type { GroupsService } from '../groups/service.js';
import { countryInPriceList, normalizePhone } from '../phone/index.js';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx, type Tx } from '../platform/db/database.js';
import { escapeLike, fromBool, toBool } from '../platform/db/sql.js';
import type { ContactsTable } from './tables.js';
import { AppError, notFound } from '../platform/errors.js';
import { assertId, isId, newId } from '../platform/ids.js';
import { keysetPage, singlePage, type CursorPage } from '../platform/pagination.js';
import type { Actor } from '../platform/permissions.js';
import { parseOrThrow, zodDetails } from '../platform/validation.js';
import { assistantWritesAfter, changedContactFields, initialAssistantWrites, provenanceChange } from './provenance.js';
import type { ContactLifecycle } from './lifecycle.js';
import { OPT_OUT_STANDS, type ConsentRecorder } from '../suppression/schemas.js';

import {
  BulkContactRowStrictSchema,
  BulkContactsSchema,
  BulkDisableSchema,
  BulkEnableSchema,
  CONTACT_LIST_MAX_LIMIT,
  CONTACT_SEARCH_MAX_LENGTH,
  CONTACT_SORTS,
  CreateContactSchema,
  UpdateContactSchema,
  type BulkContactsInput,
  type BulkDisableInput,
  type BulkDisableResult,
  type BulkEnableInput,
  type BulkEnableResult,
  type BulkError,
  type BulkResult,
  type Contact,
  type ContactFilter,
  type ContactSort,
  type CreateContactInput,
  type ListContactsOptions,
  type UpdateContactInput,
} from './schemas.js';
import { isUniqueViolation } from '../platform/db/sql-errors.js';

const CHUNK = 500;
const chunks = <T>(items: readonly T[], size = CHUNK): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Lower-cased text the search matches: "first last", phone and email on separate lines. */
export function contactSearchText(c: { first_name: string | null; last_name: string | null; phone: string; email: string | null }): string {
  const name = [c.first_name, c.last_name].filter((s) => s).join(' ');
  return [name, c.phone, c.email ?? ''].join('\n').toLowerCase();
}

/** A new, enabled contact row; the one place that decides what a fresh contact holds. */
export function newContactRow(
  accountId: string,
  c: { phone: string; country: string; firstName?: string | null | undefined; lastName?: string | null | undefined; email?: string | null | undefined },
  now: number,
  /** Who creates it, with the custom field ids it sets: an approval-bound actor is recorded for every value given. */
  writer?: { actor: Actor | undefined; fieldIds: readonly string[] },
): ContactsTable {
  const row: ContactsTable = {
    id: newId('ct', now),
    account_id: accountId,
    phone: c.phone,
    country: c.country,
    first_name: c.firstName ?? null,
    last_name: c.lastName ?? null,
    email: c.email ?? null,
    search_text: '',
    disabled: 0,
    disabled_reason: null,
    disabled_at: null,
    created_at: now,
    updated_at: now,
    assistant_writes: '{}',
  };
  row.search_text = contactSearchText(row);
  if (writer?.actor?.sendsNeedApproval) row.assistant_writes = initialAssistantWrites([...changedContactFields(null, row), ...writer.fieldIds], writer.actor, now);
  return row;
}

/** The LIKE term of a search: lower-cased; phone-like text reduced to its digits without + or 00. */
export function searchTerm(search: string): string {
  const s = search.trim().toLowerCase();
  if (/\d/.test(s) && /^[+\d\s\-()./]+$/.test(s)) {
    let digits = s.replace(/[^\d+]/g, '');
    if (digits.startsWith('+')) digits = digits.slice(1);
    else if (digits.startsWith('00') && digits.length > 2) digits = digits.slice(2);
    return digits.replace(/\+/g, '');
  }
  return s;
}

const SORT_EXPR: Record<ContactSort, Expression<unknown>> = {
  createdAt: sql.ref('contacts.created_at'),
  updatedAt: sql.ref('contacts.updated_at'),
  firstName: sql`lower(coalesce(contacts.first_name, ''))`,
  lastName: sql`lower(coalesce(contacts.last_name, ''))`,
  email: sql`lower(coalesce(contacts.email, ''))`,
  phone: sql.ref('contacts.phone'),
};

const countryNotSupported = (country: string, path = 'phone'): AppError =>
  new AppError('COUNTRY_NOT_SUPPORTED', `Numbers of ${country} are outside this account's price list; the contact was not stored`, {
    details: [{ path, code: 'country_not_supported', message: `country ${country} is not in the account's price list` }],
    extra: { country },
  });

const duplicatePhone = (digits: string, existingId?: string): AppError =>
  new AppError('CONFLICT', `A contact with the phone ${digits} already exists`, {
    details: [{ path: 'phone', code: 'duplicate', message: 'phone already used by another contact of this account' }],
    ...(existingId ? { extra: { existingContactId: existingId } } : {}),
  });

/**
 * What `{id}` of /contacts/{id} names: a contact id (ct_…), or a phone number with country code (+, 00 or bare
 * digits) — `digits` null when the number cannot be stored, so it cannot belong to a contact (a 404). Something that
 * is neither is a 400 INVALID_ID.
 */
export function contactRef(idOrPhone: string): { id: string; digits: null } | { id: null; digits: string | null } {
  if (idOrPhone.startsWith('ct_') || !/^[+\d\s\-()./]+$/.test(idOrPhone) || !/\d/.test(idOrPhone)) {
    if (!isId('ct', idOrPhone)) {
      throw new AppError('INVALID_ID', 'Invalid contact id: expected a contact id (ct_…) or a phone number with country code', {
        details: [{ path: 'id', code: 'invalid_id', message: 'must look like ct_01J… or +4915112345678' }],
      });
    }
    return { id: idOrPhone, digits: null };
  }
  const phone = normalizePhone(idOrPhone);
  return { id: null, digits: phone.ok ? phone.digits : null };
}

interface PhoneOk {
  digits: string;
  country: string;
}

export interface ContactsDeps {
  db: Db;
  clock: Clock;
  /** The account's price list: a contact's number must be in a country it prices. */
  accounts: Pick<AccountsService, 'priceList'>;
  /** Custom field values, written in the contacts' transactions (fields/ owns their tables). */
  fields: Pick<FieldsService, 'currentValues' | 'deleteValuesOf' | 'resolve' | 'resolver' | 'valuesOf' | 'writeValues'>;
  /** Group memberships, written in the contacts' transactions (groups/ owns their tables). */
  groups: Pick<GroupsService, 'addMemberships' | 'assertGroups' | 'existing' | 'groupsOf' | 'removeFromAllGroups' | 'setMemberships'>;
  /** What messaging does when contacts are deleted or disabled (cancel their scheduled messages). */
  lifecycle: ContactLifecycle;
  /** The consent record (src/suppression/): API/console consent and the business's disable/enable go on it. */
  consent: Pick<ConsentRecorder, 'optedOut' | 'recordMany'>;
}

/**
 * Contacts (§2.8, §4.4): the only writer of the contacts table. Group membership and custom field
 * values are written through GroupsService and FieldsService inside the same transactions.
 * Every method takes the caller's accountId and sees only that account's rows.
 */
export class ContactsService {
  constructor(private readonly d: ContactsDeps) {}

  /**
   * Consent events of contacts changed through the API or console, in the caller's transaction: the door and who
   * (actor), and — when the number is on the suppression list — that its opt-out still stands.
   */
  private async recordConsent(
    tx: Tx,
    accountId: string,
    rows: ReadonlyArray<{ id: string; phone: string }>,
    kind: 'opt_in' | 'disabled' | 'enabled',
    actor: Actor | undefined,
    extra: { declaredSource?: string | null; note?: string | null } = {},
  ): Promise<void> {
    if (rows.length === 0) return;
    const now = this.d.clock.now();
    const out = kind === 'disabled' ? new Set<string>() : await this.d.consent.optedOut(tx, accountId, rows.map((r) => r.phone));
    await this.d.consent.recordMany(
      tx,
      rows.map((r) => ({
        accountId,
        phone: r.phone,
        contactId: r.id,
        kind,
        source: actor?.via === 'session' ? 'console' : 'api',
        declaredSource: extra.declaredSource ?? null,
        actor: actor?.label ?? null,
        actorId: actor?.credentialId ?? null,
        note: out.has(r.phone) ? OPT_OUT_STANDS : (extra.note ?? null),
        at: now,
      })),
    );
  }

  // ---- reading -------------------------------------------------------------------------------

  private async toContacts(accountId: string, rows: readonly ContactsTable[], includeCustomFields: boolean, tx: DbOrTx = this.d.db): Promise<Contact[]> {
    const ids = rows.map((r) => r.id);
    const groups = await this.d.groups.groupsOf(accountId, ids, tx);
    const values = includeCustomFields ? await this.d.fields.valuesOf(accountId, ids, tx) : null;
    return rows.map((r) => ({
      id: r.id,
      firstName: r.first_name,
      lastName: r.last_name,
      phone: r.phone,
      country: r.country,
      email: r.email,
      disabled: toBool(r.disabled),
      disabledReason: r.disabled_reason,
      disabledAt: toIso(r.disabled_at),
      groups: groups.get(r.id) ?? [],
      ...(values ? { customFields: values.get(r.id) ?? [] } : {}),
      createdAt: toIso(r.created_at)!,
      updatedAt: toIso(r.updated_at)!,
    }));
  }

  private async filtered(accountId: string, filter: ContactFilter) {
    let q = this.d.db.selectFrom('contacts').where('contacts.account_id', '=', accountId);
    if (filter.disabled !== undefined) q = q.where('contacts.disabled', '=', fromBool(filter.disabled));
    if (filter.group !== undefined) {
      const groupId = filter.group;
      assertId('grp', groupId, 'group');
      await this.d.groups.assertGroups(accountId, [groupId], 'group', this.d.db, true);
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('contact_group_members as m')
            .select('m.contact_id')
            .whereRef('m.contact_id', '=', 'contacts.id')
            .where('m.group_id', '=', groupId),
        ),
      );
    }
    if (filter.search !== undefined && filter.search.trim() !== '') {
      if (filter.search.length > CONTACT_SEARCH_MAX_LENGTH) {
        throw new AppError('VALIDATION_ERROR', `search is at most ${CONTACT_SEARCH_MAX_LENGTH} characters`, {
          details: [{ path: 'search', code: 'too_long', message: `at most ${CONTACT_SEARCH_MAX_LENGTH} characters` }],
        });
      }
      const pattern = `%${escapeLike(searchTerm(filter.search))}%`;
      q = q.where(sql<boolean>`contacts.search_text like ${pattern} escape '\\'`);
    }
    return q;
  }

  /**
   * Cursor-paginated list, keyset on (sort value, id). `phone` is an exact lookup that returns 0
   * or 1 contact and bypasses the other filters and pagination.
   */
  async list(accountId: string, options: ListContactsOptions): Promise<CursorPage<Contact>> {
    const limit = options.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > CONTACT_LIST_MAX_LIMIT) {
      throw new AppError('VALIDATION_ERROR', `limit must be 1 to ${CONTACT_LIST_MAX_LIMIT}`, {
        details: [{ path: 'limit', code: 'out_of_range', message: `1 to ${CONTACT_LIST_MAX_LIMIT}` }],
      });
    }
    const include = options.includeCustomFields === true;
    if (options.phone !== undefined) {
      const phone = normalizePhone(options.phone);
      if (!phone.ok) throw new AppError('VALIDATION_ERROR', `phone: ${phone.message}`, { details: [{ path: 'phone', code: phone.code, message: phone.message }] });
      const row = await this.d.db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).where('phone', '=', phone.digits).executeTakeFirst();
      return singlePage(row ? await this.toContacts(accountId, [row], include) : [], limit);
    }
    const sort: ContactSort = options.sort ?? 'createdAt';
    if (!CONTACT_SORTS.includes(sort)) {
      throw new AppError('VALIDATION_ERROR', `sort must be one of ${CONTACT_SORTS.join(', ')}`, { details: [{ path: 'sort', code: 'invalid_enum', message: `one of ${CONTACT_SORTS.join(', ')}` }] });
    }
    const order = options.order ?? (sort === 'createdAt' || sort === 'updatedAt' ? 'desc' : 'asc');
    const q = (await this.filtered(accountId, options)).selectAll('contacts');
    const { rows, pagination } = await keysetPage(q, {
      scope: { kind: 'contacts', sort, order },
      sortExpr: SORT_EXPR[sort],
      idExpr: sql.ref('contacts.id'),
      limit,
      cursor: options.cursor,
    });
    return { data: await this.toContacts(accountId, rows, include), pagination };
  }

  async count(accountId: string, filter: ContactFilter): Promise<{ count: number }> {
    const q = await this.filtered(accountId, filter);
    const row = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { count: Number(row.n) };
  }

  private async rowById(tx: DbOrTx, accountId: string, contactId: string): Promise<ContactsTable> {
    assertId('ct', contactId, 'contactId');
    const row = await tx.selectFrom('contacts').selectAll().where('id', '=', contactId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Contact');
    return row;
  }

  /**
   * One contact by id (ct_…) or by phone number with country code (+, 00 or bare digits).
   * Something that is neither is a 400 INVALID_ID; a number no contact has is a 404.
   */
  async get(accountId: string, idOrPhone: string, opts: { includeCustomFields?: boolean } = {}): Promise<Contact> {
    let row: ContactsTable | undefined;
    const ref = contactRef(idOrPhone);
    if (ref.id !== null) {
      row = await this.rowById(this.d.db, accountId, ref.id);
    } else {
      if (ref.digits !== null) {
        row = await this.d.db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).where('phone', '=', ref.digits).executeTakeFirst();
      }
      if (!row) throw notFound('Contact');
    }
    return (await this.toContacts(accountId, [row], opts.includeCustomFields === true))[0]!;
  }

  // ---- writing -------------------------------------------------------------------------------

  /** Normalises a number and checks its country against the account's price list. */
  private async checkPhone(accountId: string, input: string, path = 'phone', q: DbOrTx = this.d.db): Promise<PhoneOk> {
    const phone = normalizePhone(input);
    if (!phone.ok) {
      throw new AppError('VALIDATION_ERROR', `${path}: ${phone.message}`, { details: [{ path, code: phone.code, message: phone.message }] });
    }
    const prices = await this.d.accounts.priceList(accountId, q);
    if (!countryInPriceList(phone.country, prices)) throw countryNotSupported(phone.country, path);
    return { digits: phone.digits, country: phone.country };
  }

  private async assertPhoneFree(tx: DbOrTx, accountId: string, digits: string, exceptId?: string): Promise<void> {
    let q = tx.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('phone', '=', digits);
    if (exceptId) q = q.where('id', '!=', exceptId);
    const clash = await q.executeTakeFirst();
    if (clash) throw duplicatePhone(digits, clash.id);
  }

  /** 201 on the route. 400 VALIDATION_ERROR / COUNTRY_NOT_SUPPORTED, 404 unknown group or field, 409 duplicate phone. */
  async create(accountId: string, input: CreateContactInput, actor?: Actor): Promise<Contact> {
    const data = parseOrThrow(CreateContactSchema, input);
    const phone = await this.checkPhone(accountId, data.phone);
    const now = this.d.clock.now();
    try {
      return await inTransaction(this.d.db, async (tx) => {
        const groupIds = await this.d.groups.assertGroups(accountId, data.groups ?? [], 'groups', tx);
        const values = await this.resolveValues(accountId, data.customFields ?? [], 'customFields', tx);
        const row = newContactRow(accountId, { phone: phone.digits, country: phone.country, firstName: data.firstName, lastName: data.lastName, email: data.email }, now, {
          actor,
          fieldIds: changedFieldIds(undefined, values),
        });
        await this.assertPhoneFree(tx, accountId, phone.digits);
        await tx.insertInto('contacts').values(row).execute();
        await this.d.groups.addMemberships(accountId, [row.id], groupIds, tx);
        await this.d.fields.writeValues(accountId, row.id, values, tx);
        if (data.consentSource !== undefined) await this.recordConsent(tx, accountId, [row], 'opt_in', actor, { declaredSource: data.consentSource });
        return (await this.toContacts(accountId, [row], true, tx))[0]!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicatePhone(phone.digits);
      throw err;
    }
  }

  private async resolveValues(accountId: string, items: readonly FieldValueInput[], path: string, tx: DbOrTx): Promise<ResolvedFieldValue[]> {
    if (items.length === 0) return [];
    const { values, problems } = await this.d.fields.resolve(accountId, items, path, tx);
    if (problems.length > 0) throw unknownFields(problems);
    return values;
  }

  // ---- opt-in forms (src/forms/), inside the caller's transaction ------------------------------------------------

  /**
   * The contact of a number: the existing one, or a new one — disabled with `disabledReason` when given (double
   * opt-in). The unique (account, phone) index decides a race: the insert does nothing when another transaction
   * created the contact first, and that row is read back. 400/COUNTRY_NOT_SUPPORTED as `create`.
   */
  async ensureByPhone(tx: Tx, accountId: string, e164: string, disabledReason: string | null): Promise<{ id: string; created: boolean }> {
    const known = normalizePhone(e164);
    // An existing contact is used as it is (the price list may have changed since it was created).
    const found = known.ok ? await tx.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('phone', '=', known.digits).executeTakeFirst() : undefined;
    if (found) return { id: found.id, created: false };
    const phone = await this.checkPhone(accountId, e164, 'phone', tx);
    const now = this.d.clock.now();
    const row = newContactRow(accountId, { phone: phone.digits, country: phone.country }, now);
    if (disabledReason !== null) Object.assign(row, { disabled: 1, disabled_reason: disabledReason.slice(0, 500), disabled_at: now });
    const inserted = await tx
      .insertInto('contacts')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return { id: row.id, created: true };
    const existing = await tx.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('phone', '=', phone.digits).executeTakeFirstOrThrow();
    return { id: existing.id, created: false };
  }

  /**
   * An opt-in was confirmed: enables the number's contact (created again when it was deleted meanwhile) and, with
   * `data`, writes name, email, the custom fields and the groups that still exist. Data the address book's rules
   * refuse now (they may have changed since the submission) is left out as a whole and reported `applied: false`:
   * the opt-in itself must not fail on it.
   */
  async applyOptIn(
    tx: Tx,
    accountId: string,
    e164: string,
    data: { firstName: string | null; email: string | null; customFields: { fieldId: string; value: string }[]; groupIds: readonly string[] } | null,
  ): Promise<{ id: string; applied: boolean }> {
    const { id } = await this.ensureByPhone(tx, accountId, e164, null);
    const current = await this.rowById(tx, accountId, id);
    const now = this.d.clock.now();
    const next: ContactsTable = { ...current, disabled: 0, disabled_reason: null, disabled_at: null, updated_at: now };
    let applied = false;
    let values: ResolvedFieldValue[] = [];
    let groupIds: string[] = [];
    if (data) {
      const patch = { ...(data.firstName ? { firstName: data.firstName } : {}), ...(data.email ? { email: data.email } : {}), customFields: data.customFields };
      const checked = UpdateContactSchema.safeParse(patch);
      if (checked.success) {
        applied = true;
        if (checked.data.firstName !== undefined) next.first_name = checked.data.firstName;
        if (checked.data.email !== undefined) next.email = checked.data.email;
        // Fields deleted since the submission are left out (their problems), the others written.
        values = (await this.d.fields.resolve(accountId, data.customFields, 'customFields', tx)).values;
        groupIds = await this.d.groups.existing(accountId, data.groupIds, tx);
      }
    }
    next.search_text = contactSearchText(next);
    // Data a person submitted and confirmed: not approval-bound, so what it changes is no longer an assistant's.
    const changed = [...changedContactFields(current, next), ...changedFieldIds((await this.d.fields.currentValues(accountId, [id], tx)).get(id), values)];
    const provenance = provenanceChange(changed, undefined, now);
    const { id: _id, account_id: _acc, created_at: _created, assistant_writes: _writes, ...patch } = next;
    await tx
      .updateTable('contacts')
      .set({ ...patch, ...(provenance ? { assistant_writes: assistantWritesAfter(tx, provenance) } : {}) })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .execute();
    await this.d.fields.writeValues(accountId, id, values, tx);
    await this.d.groups.addMemberships(accountId, [id], groupIds, tx);
    return { id, applied };
  }

  /**
   * Partial update. `groups` replaces the contact's group set; `customFields` sets the listed
   * values; `disabled: true` cancels the contact's scheduled messages (same hook as bulk disable).
   */
  async update(accountId: string, contactId: string, input: UpdateContactInput, actor?: Actor): Promise<Contact> {
    assertId('ct', contactId, 'contactId');
    const data = parseOrThrow(UpdateContactSchema, input);
    const phone = data.phone !== undefined ? await this.checkPhone(accountId, data.phone) : undefined;
    try {
      return await inTransaction(this.d.db, async (tx) => {
        const current = await this.rowById(tx, accountId, contactId);
        const groupIds = data.groups !== undefined ? await this.d.groups.assertGroups(accountId, data.groups, 'groups', tx) : undefined;
        const values = await this.resolveValues(accountId, data.customFields ?? [], 'customFields', tx);
        const now = this.d.clock.now();
        const next: ContactsTable = { ...current, updated_at: now };
        if (phone) {
          await this.assertPhoneFree(tx, accountId, phone.digits, contactId);
          next.phone = phone.digits;
          next.country = phone.country;
        }
        if (data.firstName !== undefined) next.first_name = data.firstName;
        if (data.lastName !== undefined) next.last_name = data.lastName;
        if (data.email !== undefined) next.email = data.email;
        const disabling = data.disabled === true && !toBool(current.disabled);
        if (data.disabled !== undefined && data.disabled !== toBool(current.disabled)) {
          next.disabled = fromBool(data.disabled);
          next.disabled_at = data.disabled ? now : null;
          next.disabled_reason = null;
        }
        next.search_text = contactSearchText(next);
        const changed = [...changedContactFields(current, next), ...changedFieldIds((await this.d.fields.currentValues(accountId, [contactId], tx)).get(contactId), values)];
        const provenance = provenanceChange(changed, actor, now);
        const { id: _id, account_id: _acc, created_at: _created, assistant_writes: _writes, ...patch } = next;
        await tx
          .updateTable('contacts')
          .set({ ...patch, ...(provenance ? { assistant_writes: assistantWritesAfter(tx, provenance) } : {}) })
          .where('id', '=', contactId)
          .where('account_id', '=', accountId)
          .execute();
        if (groupIds) await this.d.groups.setMemberships(accountId, contactId, groupIds, tx);
        await this.d.fields.writeValues(accountId, contactId, values, tx);
        if (disabling) await this.d.lifecycle.cancelScheduledFor(accountId, [contactId], tx);
        if (next.disabled !== current.disabled) await this.recordConsent(tx, accountId, [next], next.disabled === 1 ? 'disabled' : 'enabled', actor);
        return (await this.toContacts(accountId, [next], true, tx))[0]!;
      });
    } catch (err) {
      if (isUniqueViolation(err) && phone) throw duplicatePhone(phone.digits);
      throw err;
    }
  }

  /**
   * Deletes the contact permanently: cancels its scheduled messages (lifecycle hook), removes its
   * group memberships and custom field values, all in one transaction.
   */
  async delete(accountId: string, contactId: string): Promise<{ id: string; deleted: true; cancelledMessages: number }> {
    return inTransaction(this.d.db, async (tx) => {
      await this.rowById(tx, accountId, contactId);
      const cancelledMessages = await this.d.lifecycle.cancelScheduledFor(accountId, [contactId], tx);
      await this.d.groups.removeFromAllGroups(accountId, [contactId], tx);
      await this.d.fields.deleteValuesOf(accountId, [contactId], tx);
      await tx.deleteFrom('contacts').where('id', '=', contactId).where('account_id', '=', accountId).execute();
      return { id: contactId, deleted: true as const, cancelledMessages };
    });
  }

  /**
   * POST /bulk (≤ 1000 rows). Rows are independent: a row with invalid values, an unsupported
   * country or an unknown custom field fails alone (`failed`); duplicates are skipped (`skipped`:
   * an existing phone in create mode, or a phone repeating an earlier row in either mode). Upsert
   * updates the existing contact with the non-empty values of the row. `groups` applies to every
   * created or updated contact; an unknown group fails the whole request before anything is written.
   */
  async bulkUpsert(accountId: string, input: BulkContactsInput, actor?: Actor): Promise<BulkResult> {
    const data = parseOrThrow(BulkContactsSchema, input);
    const prices = await this.d.accounts.priceList(accountId);
    return inTransaction(this.d.db, async (tx) => {
      const groupIds = await this.d.groups.assertGroups(accountId, data.groups ?? [], 'groups', tx);
      const resolveFields = await this.d.fields.resolver(accountId, tx);
      const errors: BulkError[] = [];
      let failed = 0;
      let skipped = 0;
      const fail = (index: number, phone: string, code: BulkError['code'], error: string) => {
        failed++;
        errors.push({ index, phone, code, error });
      };

      // First pass: validate every row without touching the database.
      interface Ready {
        index: number;
        phone: PhoneOk;
        row: ReturnType<typeof BulkContactRowStrictSchema.parse>;
        values: ResolvedFieldValue[];
      }
      const ready: Ready[] = [];
      const firstRowOfPhone = new Map<string, number>();
      data.contacts.forEach((raw, index) => {
        const given = raw.phone;
        const parsed = BulkContactRowStrictSchema.safeParse(raw);
        if (!parsed.success) {
          const d = zodDetails(parsed.error)[0]!;
          return fail(index, given, 'VALIDATION_ERROR', `${d.path}: ${d.message}`);
        }
        const phone = normalizePhone(parsed.data.phone);
        if (!phone.ok) return fail(index, given, 'VALIDATION_ERROR', `phone: ${phone.message}`);
        if (!countryInPriceList(phone.country, prices)) {
          return fail(index, given, 'COUNTRY_NOT_SUPPORTED', `Numbers of ${phone.country} are outside this account's price list`);
        }
        const earlier = firstRowOfPhone.get(phone.digits);
        if (earlier !== undefined) {
          skipped++;
          errors.push({ index, phone: given, code: 'DUPLICATE', error: `Same phone as row ${earlier}; skipped` });
          return;
        }
        const { values, problems } = resolveFields(parsed.data.customFields ?? [], 'customFields');
        if (problems.length > 0) return fail(index, given, 'NOT_FOUND', problems.map((p) => p.message).join('; '));
        firstRowOfPhone.set(phone.digits, index);
        ready.push({ index, phone: { digits: phone.digits, country: phone.country }, row: parsed.data, values });
      });

      // Existing contacts among the remaining phones.
      const existing = new Map<string, ContactsTable>();
      for (const chunk of chunks(ready.map((r) => r.phone.digits))) {
        const rows = await tx.selectFrom('contacts').selectAll().where('account_id', '=', accountId).where('phone', 'in', chunk).execute();
        for (const r of rows) existing.set(r.phone, r);
      }

      let created = 0;
      let updated = 0;
      const touched: string[] = [];
      const consented: Array<{ id: string; phone: string }> = [];
      const now = this.d.clock.now();
      // Custom field values of the contacts an upsert may change, to record only what really changes.
      const updating = data.upsert ? ready.filter((r) => r.values.length > 0).flatMap((r) => existing.get(r.phone.digits)?.id ?? []) : [];
      const storedValues = await this.d.fields.currentValues(accountId, updating, tx);
      for (const item of ready) {
        const current = existing.get(item.phone.digits);
        if (current && !data.upsert) {
          skipped++;
          errors.push({ index: item.index, phone: data.contacts[item.index]!.phone, code: 'DUPLICATE', error: `A contact with the phone ${item.phone.digits} already exists (${current.id}); skipped` });
          continue;
        }
        if (current) {
          const next: ContactsTable = { ...current, updated_at: now };
          if (item.row.firstName) next.first_name = item.row.firstName;
          if (item.row.lastName) next.last_name = item.row.lastName;
          if (item.row.email) next.email = item.row.email;
          next.search_text = contactSearchText(next);
          const values = item.values.filter((v) => v.value !== null);
          const provenance = provenanceChange([...changedContactFields(current, next), ...changedFieldIds(storedValues.get(current.id), values)], actor, now);
          await tx
            .updateTable('contacts')
            .set({
              first_name: next.first_name,
              last_name: next.last_name,
              email: next.email,
              search_text: next.search_text,
              updated_at: now,
              ...(provenance ? { assistant_writes: assistantWritesAfter(tx, provenance) } : {}),
            })
            .where('id', '=', current.id)
            .where('account_id', '=', accountId)
            .execute();
          await this.d.fields.writeValues(accountId, current.id, values, tx);
          touched.push(current.id);
          consented.push(current);
          updated++;
        } else {
          const row = newContactRow(accountId, { phone: item.phone.digits, country: item.phone.country, firstName: item.row.firstName, lastName: item.row.lastName, email: item.row.email }, now, {
            actor,
            fieldIds: changedFieldIds(undefined, item.values),
          });
          await tx.insertInto('contacts').values(row).execute();
          await this.d.fields.writeValues(accountId, row.id, item.values, tx);
          touched.push(row.id);
          consented.push(row);
          created++;
        }
      }
      await this.d.groups.addMemberships(accountId, touched, groupIds, tx);
      if (data.consentSource !== undefined) await this.recordConsent(tx, accountId, consented, 'opt_in', actor, { declaredSource: data.consentSource });
      errors.sort((a, b) => a.index - b.index);
      return { success: true as const, created, updated, failed, skipped, errors };
    });
  }

  private async findStatuses(tx: DbOrTx, accountId: string, ids: readonly string[]): Promise<Map<string, { disabled: boolean; phone: string }>> {
    const found = new Map<string, { disabled: boolean; phone: string }>();
    for (const chunk of chunks(ids)) {
      const rows = await tx.selectFrom('contacts').select(['id', 'disabled', 'phone']).where('account_id', '=', accountId).where('id', 'in', chunk).execute();
      for (const r of rows) found.set(r.id, { disabled: toBool(r.disabled), phone: r.phone });
    }
    return found;
  }

  /**
   * PATCH /bulk/disable: disables the contacts and cancels their scheduled messages (lifecycle
   * hook, same transaction). 400 NO_VALID_CONTACTS when no id is a contact of the account.
   */
  async bulkDisable(accountId: string, input: BulkDisableInput, actor?: Actor): Promise<BulkDisableResult> {
    const data = parseOrThrow(BulkDisableSchema, input);
    const ids = [...new Set(data.contactIds)];
    const reason = data.reason === undefined || data.reason === '' ? null : data.reason;
    return inTransaction(this.d.db, async (tx) => {
      const found = await this.findStatuses(tx, accountId, ids);
      if (found.size === 0) throw new AppError('NO_VALID_CONTACTS', 'None of the contactIds is a contact of this account');
      const toDisable = ids.filter((id) => found.get(id)?.disabled === false);
      const now = this.d.clock.now();
      for (const chunk of chunks(toDisable)) {
        await tx
          .updateTable('contacts')
          .set({ disabled: 1, disabled_reason: reason, disabled_at: now, updated_at: now })
          .where('account_id', '=', accountId)
          .where('id', 'in', chunk)
          .execute();
      }
      const cancelledMessages = await this.d.lifecycle.cancelScheduledFor(accountId, ids.filter((id) => found.has(id)), tx);
      await this.recordConsent(tx, accountId, toDisable.map((id) => ({ id, phone: found.get(id)!.phone })), 'disabled', actor, { note: reason === null ? null : `Reason: ${reason}` });
      return {
        success: true as const,
        message: `${toDisable.length} contact(s) disabled; ${cancelledMessages} scheduled message(s) cancelled`,
        disabledCount: toDisable.length,
        requestedCount: ids.length,
        cancelledMessages,
        alreadyDisabledCount: found.size - toDisable.length,
        notFoundIds: ids.filter((id) => !found.has(id)),
      };
    });
  }

  /** PATCH /bulk/enable. 400 NO_VALID_CONTACTS when none of the ids is a disabled contact of the account. */
  async bulkEnable(accountId: string, input: BulkEnableInput, actor?: Actor): Promise<BulkEnableResult> {
    const data = parseOrThrow(BulkEnableSchema, input);
    const ids = [...new Set(data.contactIds)];
    return inTransaction(this.d.db, async (tx) => {
      const found = await this.findStatuses(tx, accountId, ids);
      const toEnable = ids.filter((id) => found.get(id)?.disabled === true);
      if (toEnable.length === 0) throw new AppError('NO_VALID_CONTACTS', 'None of the contactIds is a disabled contact of this account');
      const now = this.d.clock.now();
      for (const chunk of chunks(toEnable)) {
        await tx
          .updateTable('contacts')
          .set({ disabled: 0, disabled_reason: null, disabled_at: null, updated_at: now })
          .where('account_id', '=', accountId)
          .where('id', 'in', chunk)
          .execute();
      }
      await this.recordConsent(tx, accountId, toEnable.map((id) => ({ id, phone: found.get(id)!.phone })), 'enabled', actor);
      return {
        success: true as const,
        message: `${toEnable.length} contact(s) enabled`,
        enabledCount: toEnable.length,
        requestedCount: ids.length,
        notDisabledCount: found.size - toEnable.length,
        notFoundIds: ids.filter((id) => !found.has(id)),
      };
    });
  }
}
