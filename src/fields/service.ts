import { sql } from 'kysely';
import { isBuiltinMergeField } from '../merge/fields.js';
import { toIso, type Clock } from '../platform/clock.js';
import { selectCompiledOnce } from '../platform/db/compiled-once.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import type { CustomFieldsTable } from './tables.js';
import { AppError, notFound, type ErrorDetail } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import type { Actor } from '../platform/permissions.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import { isUniqueViolation } from '../platform/db/sql-errors.js';
import {
  CreateFieldSchema,
  ListFieldsQuerySchema,
  SetFieldValuesSchema,
  SetOneFieldValueSchema,
  UpdateFieldSchema,
  type ContactFieldValue,
  type ContactFieldValues,
  type CreateFieldInput,
  type CustomField,
  type FieldValueInput,
  type ListFieldsOptions,
  type OneFieldValue,
  type SetFieldValuesInput,
  type UpdateFieldInput,
} from './schemas.js';

type FieldRow = CustomFieldsTable & { usage_count: number | string | bigint };

const toField = (row: FieldRow): CustomField => ({
  id: row.id,
  name: row.name,
  tag: row.tag,
  placeholder: `{{${row.tag}}}`,
  usageCount: Number(row.usage_count),
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!,
});

/** A value to write once its field is known: null deletes. */
export interface ResolvedFieldValue {
  fieldId: string;
  value: string | null;
}

/** Result of resolving field references (by id or tag): the resolved values and what did not resolve. */
export interface FieldResolution {
  values: ResolvedFieldValue[];
  problems: ErrorDetail[];
}

/**
 * Records, on the contacts row, which custom fields a write changed and whether an approval-bound
 * actor changed them (contacts.assistant_writes, issue #27). The contacts row is contacts/' table, so
 * contacts/ hands its implementation in (src/contacts/provenance.ts recordContactWrites); fields/
 * calls it in its own transaction. `fieldIds`: the fields whose value the write changed.
 */
export type RecordContactWrites = (tx: DbOrTx, accountId: string, contactId: string, fieldIds: readonly string[], actor: Actor | undefined, now: number) => Promise<void>;

export interface FieldsDeps {
  db: Db;
  clock: Clock;
  /** Who changed a contact's custom field values, kept on the contact (see RecordContactWrites). */
  recordContactWrites: RecordContactWrites;
}

/**
 * Custom field definitions (§2.9) and per-contact values. The only writer of custom_fields and
 * contact_field_values; ContactsService calls writeValues/deleteValuesOf inside its transactions.
 */
export class FieldsService {
  constructor(private readonly d: FieldsDeps) {}

  private fieldsQuery(tx: DbOrTx, accountId: string) {
    return tx
      .selectFrom('custom_fields')
      .selectAll('custom_fields')
      .select((eb) =>
        eb
          .selectFrom('contact_field_values')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('contact_field_values.field_id', '=', 'custom_fields.id')
          .as('usage_count'),
      )
      .where('custom_fields.account_id', '=', accountId);
  }

  /** Definitions, oldest first, cursor-paginated. */
  async list(accountId: string, options: ListFieldsOptions = {}): Promise<CursorPage<CustomField>> {
    const opts = parseOrThrow(ListFieldsQuerySchema, options, 'Query');
    const { rows, pagination } = await keysetPage(this.fieldsQuery(this.d.db, accountId), {
      scope: { kind: 'custom-fields', sort: 'createdAt', order: 'asc' },
      sortExpr: sql.ref('custom_fields.created_at'),
      idExpr: sql.ref('custom_fields.id'),
      limit: opts.limit,
      cursor: opts.cursor,
    });
    return { data: rows.map((r) => toField(r as FieldRow)), pagination };
  }

  async get(accountId: string, fieldId: string, tx: DbOrTx = this.d.db): Promise<CustomField> {
    assertId('fld', fieldId, 'fieldId');
    const row = await this.fieldsQuery(tx, accountId).where('custom_fields.id', '=', fieldId).executeTakeFirst();
    if (!row) throw notFound('Custom field');
    return toField(row as FieldRow);
  }

  /** The names of those of these field ids that are the account's (opt-in forms label their fields with them). */
  async namesOf(accountId: string, fieldIds: readonly string[], tx: DbOrTx = this.d.db): Promise<Map<string, string>> {
    if (fieldIds.length === 0) return new Map();
    const rows = await tx.selectFrom('custom_fields').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', [...new Set(fieldIds)]).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** The tags of every definition of the account, as defined (for merge-field warnings). */
  async tags(accountId: string, tx: DbOrTx = this.d.db): Promise<Set<string>> {
    // Compiled once: every content validation (rcs_validate, previews, sends) asks for these.
    const rows = await selectCompiledOnce(tx, 'custom_fields.tags', [accountId], () => tx.selectFrom('custom_fields').select('tag').where('account_id', '=', accountId));
    return new Set(rows.map((r) => r.tag));
  }

  private async assertTagFree(tx: DbOrTx, accountId: string, tag: string, exceptId?: string): Promise<void> {
    if (isBuiltinMergeField(tag.toLowerCase())) {
      throw new AppError('VALIDATION_ERROR', `The tag "${tag}" is a built-in merge field name; choose another tag`, {
        details: [{ path: 'tag', code: 'reserved', message: `{{${tag.toLowerCase()}}} is a built-in merge field` }],
      });
    }
    let q = tx.selectFrom('custom_fields').select('id').where('account_id', '=', accountId).where('tag_key', '=', tag.toLowerCase());
    if (exceptId) q = q.where('id', '!=', exceptId);
    const clash = await q.executeTakeFirst();
    if (clash) throw tagConflict(tag, clash.id);
  }

  async create(accountId: string, input: CreateFieldInput): Promise<CustomField> {
    const data = parseOrThrow(CreateFieldSchema, input);
    const now = this.d.clock.now();
    const row: CustomFieldsTable = {
      id: newId('fld'),
      account_id: accountId,
      name: data.name,
      tag: data.tag,
      tag_key: data.tag.toLowerCase(),
      created_at: now,
      updated_at: now,
    };
    try {
      await inTransaction(this.d.db, async (tx) => {
        await this.assertTagFree(tx, accountId, data.tag);
        await tx.insertInto('custom_fields').values(row).execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw tagConflict(data.tag);
      throw err;
    }
    return toField({ ...row, usage_count: 0 });
  }

  async update(accountId: string, fieldId: string, input: UpdateFieldInput): Promise<CustomField> {
    assertId('fld', fieldId, 'fieldId');
    const data = parseOrThrow(UpdateFieldSchema, input);
    try {
      await inTransaction(this.d.db, async (tx) => {
        await this.get(accountId, fieldId, tx);
        const patch: Partial<CustomFieldsTable> = { updated_at: this.d.clock.now() };
        if (data.name !== undefined) patch.name = data.name;
        if (data.tag !== undefined) {
          await this.assertTagFree(tx, accountId, data.tag, fieldId);
          patch.tag = data.tag;
          patch.tag_key = data.tag.toLowerCase();
        }
        await tx.updateTable('custom_fields').set(patch).where('id', '=', fieldId).where('account_id', '=', accountId).execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw tagConflict(data.tag ?? '');
      throw err;
    }
    return this.get(accountId, fieldId);
  }

  /**
   * Deletes a definition. While contacts hold values for it, this is refused with FIELD_IN_USE
   * (400, naming usageCount) unless force is true, which deletes the values too.
   */
  async delete(accountId: string, fieldId: string, opts: { force?: boolean } = {}): Promise<{ id: string; deleted: true; deletedValues: number }> {
    return inTransaction(this.d.db, async (tx) => {
      const field = await this.get(accountId, fieldId, tx);
      if (field.usageCount > 0 && !opts.force) {
        throw new AppError(
          'FIELD_IN_USE',
          `The custom field {{${field.tag}}} has values on ${field.usageCount} contact(s); delete with force=true to remove it and its values`,
          { extra: { usageCount: field.usageCount } },
        );
      }
      const res = await tx.deleteFrom('contact_field_values').where('field_id', '=', fieldId).where('account_id', '=', accountId).executeTakeFirst();
      await tx.deleteFrom('custom_fields').where('id', '=', fieldId).where('account_id', '=', accountId).execute();
      return { id: fieldId, deleted: true as const, deletedValues: Number(res.numDeletedRows) };
    });
  }

  // ---- per-contact values -------------------------------------------------------------------

  private async assertContact(tx: DbOrTx, accountId: string, contactId: string): Promise<void> {
    assertId('ct', contactId, 'contactId');
    const row = await tx.selectFrom('contacts').select('id').where('id', '=', contactId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Contact');
  }

  /** Values of many contacts at once (for lists with include=customFields), ordered by tag. */
  async valuesOf(accountId: string, contactIds: readonly string[], tx: DbOrTx = this.d.db): Promise<Map<string, ContactFieldValue[]>> {
    const out = new Map<string, ContactFieldValue[]>();
    for (const id of contactIds) out.set(id, []);
    for (let i = 0; i < contactIds.length; i += 500) {
      const chunk = contactIds.slice(i, i + 500);
      const rows = await tx
        .selectFrom('contact_field_values as v')
        .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
        .select(['v.contact_id', 'v.field_id', 'v.value', 'f.tag', 'f.name'])
        .where('v.account_id', '=', accountId)
        .where('v.contact_id', 'in', chunk)
        .orderBy('f.tag_key')
        .execute();
      for (const r of rows) out.get(r.contact_id)?.push({ fieldId: r.field_id, tag: r.tag, name: r.name, value: r.value });
    }
    return out;
  }

  async getValues(accountId: string, contactId: string): Promise<ContactFieldValues> {
    await this.assertContact(this.d.db, accountId, contactId);
    const values = await this.valuesOf(accountId, [contactId]);
    return { contactId, customFields: values.get(contactId) ?? [] };
  }

  /**
   * Loads the account's definitions once and returns a function resolving references by fieldId
   * or tag (tags case-insensitive). Unknown ones come back as problems at `${pathPrefix}[i]`.
   */
  async resolver(accountId: string, tx: DbOrTx = this.d.db): Promise<(items: readonly FieldValueInput[], pathPrefix: string) => FieldResolution> {
    const defs = await tx.selectFrom('custom_fields').select(['id', 'tag_key']).where('account_id', '=', accountId).execute();
    const byId = new Set(defs.map((d) => d.id));
    const byTag = new Map(defs.map((d) => [d.tag_key, d.id]));
    return (items, pathPrefix) => {
      const values: ResolvedFieldValue[] = [];
      const problems: ErrorDetail[] = [];
      items.forEach((item, i) => {
        const path = `${pathPrefix}[${i}]`;
        if (item.fieldId !== undefined) {
          if (byId.has(item.fieldId)) values.push({ fieldId: item.fieldId, value: item.value });
          else problems.push({ path: `${path}.fieldId`, code: 'not_found', message: `Custom field ${item.fieldId} not found` });
        } else if (item.tag !== undefined) {
          const id = byTag.get(item.tag.toLowerCase());
          if (id) values.push({ fieldId: id, value: item.value });
          else problems.push({ path: `${path}.tag`, code: 'not_found', message: `No custom field has the tag "${item.tag}"` });
        }
      });
      return { values, problems };
    };
  }

  /** Resolves references once; see resolver. */
  async resolve(accountId: string, items: readonly FieldValueInput[], pathPrefix: string, tx: DbOrTx = this.d.db): Promise<FieldResolution> {
    return (await this.resolver(accountId, tx))(items, pathPrefix);
  }

  /** Stored values of these contacts by contact id, then field id (provenance compares against them). */
  async currentValues(accountId: string, contactIds: readonly string[], tx: DbOrTx): Promise<Map<string, Map<string, string>>> {
    const out = new Map<string, Map<string, string>>();
    for (let i = 0; i < contactIds.length; i += 500) {
      const rows = await tx
        .selectFrom('contact_field_values')
        .select(['contact_id', 'field_id', 'value'])
        .where('account_id', '=', accountId)
        .where('contact_id', 'in', contactIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        let m = out.get(r.contact_id);
        if (!m) out.set(r.contact_id, (m = new Map<string, string>()));
        m.set(r.field_id, r.value);
      }
    }
    return out;
  }

  /**
   * Writes values of one contact and records who changed which (contacts.assistant_writes, through
   * the RecordContactWrites port). For writes that do not also update the contacts row.
   */
  private async writeValuesAs(accountId: string, contactId: string, values: readonly ResolvedFieldValue[], actor: Actor | undefined, tx: DbOrTx): Promise<void> {
    const current = (await this.currentValues(accountId, [contactId], tx)).get(contactId);
    const changed = changedFieldIds(current, values);
    await this.writeValues(accountId, contactId, values, tx);
    await this.d.recordContactWrites(tx, accountId, contactId, changed, actor, this.d.clock.now());
  }

  /** Writes resolved values of one contact (null deletes). The caller checked contact and fields. */
  async writeValues(accountId: string, contactId: string, values: readonly ResolvedFieldValue[], tx: DbOrTx): Promise<void> {
    const now = this.d.clock.now();
    for (const { fieldId, value } of values) {
      if (value === null) {
        await tx.deleteFrom('contact_field_values').where('contact_id', '=', contactId).where('field_id', '=', fieldId).where('account_id', '=', accountId).execute();
      } else {
        await tx
          .insertInto('contact_field_values')
          .values({ contact_id: contactId, field_id: fieldId, account_id: accountId, value, updated_at: now })
          .onConflict((oc) => oc.columns(['contact_id', 'field_id']).doUpdateSet({ value, updated_at: now }))
          .execute();
      }
    }
  }

  /** Removes every value of these contacts (contact deletion). */
  async deleteValuesOf(accountId: string, contactIds: readonly string[], tx: DbOrTx): Promise<void> {
    for (let i = 0; i < contactIds.length; i += 500) {
      await tx.deleteFrom('contact_field_values').where('account_id', '=', accountId).where('contact_id', 'in', contactIds.slice(i, i + 500)).execute();
    }
  }

  /**
   * PUT /{id}/fields: sets the listed values (by fieldId or tag), null deletes; others unchanged.
   * `actor` (absent: not approval-bound) decides what the contact's record of assistant writes keeps.
   */
  async setValues(accountId: string, contactId: string, input: SetFieldValuesInput, actor?: Actor): Promise<ContactFieldValues> {
    const data = parseOrThrow(SetFieldValuesSchema, input);
    await inTransaction(this.d.db, async (tx) => {
      await this.assertContact(tx, accountId, contactId);
      const { values, problems } = await this.resolve(accountId, data.customFields, 'customFields', tx);
      if (problems.length > 0) throw unknownFields(problems);
      await this.writeValuesAs(accountId, contactId, values, actor, tx);
    });
    return this.getValues(accountId, contactId);
  }

  /** PUT /{id}/fields/{fieldId}: sets one value; null deletes it. */
  async setValue(accountId: string, contactId: string, fieldId: string, input: { value: string | null }, actor?: Actor): Promise<OneFieldValue> {
    const data = parseOrThrow(SetOneFieldValueSchema, input);
    return inTransaction(this.d.db, async (tx) => {
      await this.assertContact(tx, accountId, contactId);
      const field = await this.get(accountId, fieldId, tx);
      await this.writeValuesAs(accountId, contactId, [{ fieldId, value: data.value }], actor, tx);
      return { contactId, fieldId, tag: field.tag, name: field.name, value: data.value };
    });
  }

  /** DELETE /{id}/fields/{fieldId}: idempotent; `deleted` says whether a value existed. */
  async deleteValue(accountId: string, contactId: string, fieldId: string, actor?: Actor): Promise<{ contactId: string; fieldId: string; deleted: boolean }> {
    return inTransaction(this.d.db, async (tx) => {
      await this.assertContact(tx, accountId, contactId);
      await this.get(accountId, fieldId, tx);
      const res = await tx
        .deleteFrom('contact_field_values')
        .where('contact_id', '=', contactId)
        .where('field_id', '=', fieldId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      const deleted = Number(res.numDeletedRows) > 0;
      if (deleted) await this.d.recordContactWrites(tx, accountId, contactId, [fieldId], actor, this.d.clock.now());
      return { contactId, fieldId, deleted };
    });
  }
}

/** The field ids whose stored value `values` change (`current`: field id → value; a null value deletes). */
export function changedFieldIds(current: ReadonlyMap<string, string> | undefined, values: readonly ResolvedFieldValue[]): string[] {
  const after = new Map(current);
  for (const { fieldId, value } of values) {
    if (value === null) after.delete(fieldId);
    else after.set(fieldId, value);
  }
  return [...new Set(values.map((v) => v.fieldId))].filter((id) => (after.get(id) ?? null) !== (current?.get(id) ?? null));
}

function tagConflict(tag: string, existingId?: string): AppError {
  return new AppError('CONFLICT', `A custom field with the tag "${tag}" already exists (tags are unique ignoring case)`, {
    details: [{ path: 'tag', code: 'duplicate', message: 'tag already in use' }],
    ...(existingId ? { extra: { existingFieldId: existingId } } : {}),
  });
}

/** Unknown field references in a body: the field is what is missing, so 404 with each path. */
export function unknownFields(problems: ErrorDetail[]): AppError {
  return new AppError('NOT_FOUND', `Custom field not found: ${problems[0]!.message}`, { details: problems });
}
