import { sql } from 'kysely';
import { SMS_MAX_LENGTH } from '../content/limits.js';
import { placeholderWarnings, validateContent } from '../content/index.js';
import type { Issue } from '../content/issues.js';
import { findForbiddenCharacter, forbiddenCharacterMessage, INVALID_CHARACTER_CODE } from '../content/characters.js';
import { isUniqueViolation } from '../platform/db/sql-errors.js';
import type { FieldsService } from '../fields/service.js';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import { escapeLike, fromBool, parseJson, toBool } from '../platform/db/sql.js';
import type { TemplateGroupsTable, TemplatesTable } from './tables.js';
import { AppError, notFound, type ErrorDetail } from '../platform/errors.js';
import { assertId, isId, newId } from '../platform/ids.js';
import { keysetPage, pagePagination, type CursorPage, type PagedList } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import {
  AssignTemplatesSchema,
  CreateTemplateGroupSchema,
  CreateTemplateSchema,
  ListTemplateGroupsQuerySchema,
  ListTemplatesQuerySchema,
  RenameTemplateGroupSchema,
  UpdateTemplateSchema,
  type AssignResult,
  type AssignTemplatesInput,
  type CreateTemplateGroupInput,
  type CreateTemplateInput,
  type ListTemplateGroupsOptions,
  type ListTemplatesOptions,
  type RenameTemplateGroupInput,
  type Template,
  type TemplateGroup,
  type UpdateTemplateInput,
} from './schemas.js';
import { isRecord } from '../platform/guards.js';

type TemplateType = TemplatesTable['type'];
type ContentValue = string | Record<string, unknown>;

export interface TemplateWriteResult {
  template: Template;
  /** Content warnings of the validator (unknown merge field, ignored field, …). */
  warnings: ErrorDetail[];
}

export interface TemplateGroupList extends CursorPage<TemplateGroup> {
  /** Templates of the account that are in no group. */
  ungroupedTemplateCount: number;
}

const toTemplate = (row: TemplatesTable): Template => ({
  id: row.id,
  name: row.name,
  type: row.type,
  content: row.content,
  parsedContent: row.type === 'RCS' ? parseJson<Record<string, unknown>>(row.content, {}) : null,
  rcsMessageType: (row.rcs_message_type as Template['rcsMessageType']) ?? null,
  context: row.context,
  isDefault: toBool(row.is_default),
  templateGroupId: row.template_group_id,
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!,
});

type GroupRow = TemplateGroupsTable & { template_count: number | string | bigint };
const toGroup = (row: GroupRow): TemplateGroup => ({
  id: row.id,
  templateGroupId: row.id,
  name: row.name,
  templateCount: Number(row.template_count),
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!,
});

const invalid = (message: string, details: ErrorDetail[]): AppError => new AppError('VALIDATION_ERROR', message, { details });

export interface TemplatesDeps {
  db: Db;
  clock: Clock;
  /** The account's custom field tags, which a template's merge fields are checked against beside the built-in ones. */
  fields: Pick<FieldsService, 'tags'>;
}

/**
 * Templates and template groups (§2.11, §4.6): the only writer of templates and template_groups.
 * RCS content is checked by the same validator as a send; SMS content by its length.
 */
export class TemplatesService {
  constructor(private readonly d: TemplatesDeps) {}

  // ---- content rules -------------------------------------------------------------------------

  /**
   * Checks the final (type, content, rcsMessageType) of a template and returns the stored content
   * text and the warnings. Errors are a 400 VALIDATION_ERROR carrying the validator's details.
   */
  private async checkContent(accountId: string, type: TemplateType, content: ContentValue, rcsMessageType: string | null, tx: DbOrTx): Promise<{ text: string; warnings: ErrorDetail[] }> {
    const tags = await this.d.fields.tags(accountId, tx);
    if (type === 'SMS') {
      if (rcsMessageType !== null) {
        throw invalid('rcsMessageType is only for RCS templates', [{ path: 'rcsMessageType', code: 'not_allowed', message: 'only allowed when type is RCS' }]);
      }
      if (typeof content !== 'string') {
        throw invalid('SMS template content must be a string', [{ path: 'content', code: 'invalid_type', message: 'must be the SMS text (a string) for type SMS' }]);
      }
      if (content.trim() === '') throw invalid('content: the SMS text is empty', [{ path: 'content', code: 'empty', message: 'must not be empty' }]);
      if (content.length > SMS_MAX_LENGTH) {
        throw invalid(`content: at most ${SMS_MAX_LENGTH} characters`, [{ path: 'content', code: 'too_long', message: `at most ${SMS_MAX_LENGTH} characters (got ${content.length})` }]);
      }
      const bad = findForbiddenCharacter(content);
      if (bad) throw invalid(`content: ${forbiddenCharacterMessage('the SMS text', bad)}`, [{ path: 'content', code: INVALID_CHARACTER_CODE, message: forbiddenCharacterMessage('content', bad) }]);
      return { text: content, warnings: placeholderWarnings(content, 'content', tags, 'sms') };
    }
    if (rcsMessageType === null) {
      throw invalid('rcsMessageType is required for RCS templates', [{ path: 'rcsMessageType', code: 'required', message: 'required when type is RCS' }]);
    }
    if (!isRecord(content)) {
      throw invalid('RCS template content must be an object', [{ path: 'content', code: 'invalid_type', message: 'must be the RCS content object for type RCS' }]);
    }
    const result = validateContent(rcsMessageType, content, { knownMergeFields: tags });
    const mapPath = (i: Issue): ErrorDetail => ({ path: i.path === 'messageType' ? 'rcsMessageType' : i.path, code: i.code, message: i.message });
    if (!result.valid) {
      const details = result.errors.map(mapPath);
      throw invalid(`RCS content is invalid for ${rcsMessageType}: ${details[0]!.path}: ${details[0]!.message}`, details);
    }
    return { text: JSON.stringify(content), warnings: result.warnings.map(mapPath) };
  }

  private async assertGroup(tx: DbOrTx, accountId: string, groupId: string, path = 'templateGroupId'): Promise<void> {
    const row = await tx.selectFrom('template_groups').select('id').where('id', '=', groupId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) {
      throw new AppError('NOT_FOUND', 'Template group not found', { details: [{ path, code: 'not_found', message: `Template group ${groupId} not found` }] });
    }
  }

  /** One default per account, type and context: setting it clears the previous one. */
  private async clearDefault(tx: DbOrTx, accountId: string, type: TemplateType, context: TemplatesTable['context'], exceptId: string): Promise<void> {
    await tx
      .updateTable('templates')
      .set({ is_default: 0 })
      .where('account_id', '=', accountId)
      .where('type', '=', type)
      .where('context', '=', context)
      .where('is_default', '=', 1)
      .where('id', '!=', exceptId)
      .execute();
  }

  // ---- templates -----------------------------------------------------------------------------

  async create(accountId: string, input: CreateTemplateInput): Promise<TemplateWriteResult> {
    const data = parseOrThrow(CreateTemplateSchema, input);
    return inTransaction(this.d.db, async (tx) => {
      const { text, warnings } = await this.checkContent(accountId, data.type, data.content, data.rcsMessageType ?? null, tx);
      if (data.templateGroupId) await this.assertGroup(tx, accountId, data.templateGroupId);
      const now = this.d.clock.now();
      const row: TemplatesTable = {
        id: newId('tpl'),
        account_id: accountId,
        name: data.name,
        name_key: data.name.toLowerCase(),
        type: data.type,
        content: text,
        rcs_message_type: data.type === 'RCS' ? data.rcsMessageType! : null,
        context: data.context,
        is_default: fromBool(data.isDefault),
        template_group_id: data.templateGroupId ?? null,
        created_at: now,
        updated_at: now,
      };
      if (data.isDefault) await this.clearDefault(tx, accountId, row.type, row.context, row.id);
      await tx.insertInto('templates').values(row).execute();
      return { template: toTemplate(row), warnings };
    });
  }

  private async row(tx: DbOrTx, accountId: string, templateId: string): Promise<TemplatesTable> {
    assertId('tpl', templateId, 'templateId');
    const row = await tx.selectFrom('templates').selectAll().where('id', '=', templateId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Template');
    return row;
  }

  async get(accountId: string, templateId: string): Promise<Template> {
    return toTemplate(await this.row(this.d.db, accountId, templateId));
  }

  /**
   * Partial update. The final type, content and rcsMessageType are validated together whenever one
   * of them changes: a new rcsMessageType alone re-validates (re-wraps) the stored content for that
   * type; switching type needs content of the new kind.
   */
  async update(accountId: string, templateId: string, input: UpdateTemplateInput): Promise<TemplateWriteResult> {
    assertId('tpl', templateId, 'templateId');
    const data = parseOrThrow(UpdateTemplateSchema, input);
    return inTransaction(this.d.db, async (tx) => {
      const current = await this.row(tx, accountId, templateId);
      const next: TemplatesTable = { ...current, updated_at: this.d.clock.now() };
      let warnings: ErrorDetail[] = [];
      if (data.type !== undefined || data.content !== undefined || data.rcsMessageType !== undefined) {
        const type = data.type ?? current.type;
        let content: ContentValue | undefined = data.content;
        if (content === undefined) {
          if (type !== current.type) {
            throw invalid(`Changing the type to ${type} needs new content`, [{ path: 'content', code: 'required', message: `give ${type === 'SMS' ? 'the SMS text' : 'the RCS content object'}` }]);
          }
          content = type === 'RCS' ? parseJson<Record<string, unknown>>(current.content, {}) : current.content;
        }
        const rcsMessageType = type === 'SMS' ? (data.rcsMessageType ?? null) : data.rcsMessageType === undefined ? current.rcs_message_type : data.rcsMessageType;
        const checked = await this.checkContent(accountId, type, content, rcsMessageType, tx);
        warnings = checked.warnings;
        next.type = type;
        next.content = checked.text;
        next.rcs_message_type = type === 'RCS' ? rcsMessageType : null;
      }
      if (data.name !== undefined) {
        next.name = data.name;
        next.name_key = data.name.toLowerCase();
      }
      if (data.context !== undefined) next.context = data.context;
      if (data.templateGroupId !== undefined) {
        if (data.templateGroupId !== null) await this.assertGroup(tx, accountId, data.templateGroupId);
        next.template_group_id = data.templateGroupId;
      }
      if (data.isDefault !== undefined) next.is_default = fromBool(data.isDefault);
      if (toBool(next.is_default)) await this.clearDefault(tx, accountId, next.type, next.context, templateId);
      const { id: _id, account_id: _acc, created_at: _created, ...patch } = next;
      await tx.updateTable('templates').set(patch).where('id', '=', templateId).where('account_id', '=', accountId).execute();
      return { template: toTemplate(next), warnings };
    });
  }

  async delete(accountId: string, templateId: string): Promise<{ id: string; deleted: true }> {
    await this.row(this.d.db, accountId, templateId);
    await this.d.db.deleteFrom('templates').where('id', '=', templateId).where('account_id', '=', accountId).execute();
    return { id: templateId, deleted: true };
  }

  /** Page-based list (§4.6): {data, pagination: {page, limit, total, totalPages}}. */
  async list(accountId: string, options: ListTemplatesOptions = {}): Promise<PagedList<Template>> {
    const q = parseOrThrow(ListTemplatesQuerySchema, options, 'Query');
    let base = this.d.db.selectFrom('templates').where('templates.account_id', '=', accountId);
    if (q.type) base = base.where('type', '=', q.type);
    if (q.rcsMessageType) base = base.where('rcs_message_type', '=', q.rcsMessageType);
    if (q.context) base = base.where('context', '=', q.context);
    if (q.templateGroupId !== undefined) {
      if (q.templateGroupId === 'none') base = base.where('template_group_id', 'is', null);
      else {
        if (!isId('tg', q.templateGroupId)) {
          throw invalid('templateGroupId must be a template group id (tg_…) or none', [{ path: 'templateGroupId', code: 'invalid_id', message: 'a tg_… id or none' }]);
        }
        await this.assertGroup(this.d.db, accountId, q.templateGroupId);
        base = base.where('template_group_id', '=', q.templateGroupId);
      }
    }
    if (q.search) base = base.where(sql<boolean>`templates.name_key like ${`%${escapeLike(q.search.toLowerCase())}%`} escape '\\'`);
    const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const total = Number(totalRow.n);
    const order = q.order ?? (q.sort === 'name' ? 'asc' : 'desc');
    const sortColumn = q.sort === 'name' ? 'name_key' : q.sort === 'updatedAt' ? 'updated_at' : 'created_at';
    const rows = await base
      .selectAll('templates')
      .orderBy(sortColumn, order)
      .orderBy('id', order)
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute();
    return { data: rows.map(toTemplate), pagination: pagePagination(q.page, q.limit, total) };
  }

  // ---- template groups -----------------------------------------------------------------------

  private groupsQuery(tx: DbOrTx, accountId: string) {
    return tx
      .selectFrom('template_groups')
      .selectAll('template_groups')
      .select((eb) =>
        eb
          .selectFrom('templates')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('templates.template_group_id', '=', 'template_groups.id')
          .as('template_count'),
      )
      .where('template_groups.account_id', '=', accountId);
  }

  /** Groups by name (case-insensitive), with templateCount, plus ungroupedTemplateCount. */
  async listGroups(accountId: string, options: ListTemplateGroupsOptions = {}): Promise<TemplateGroupList> {
    const opts = parseOrThrow(ListTemplateGroupsQuerySchema, options, 'Query');
    const { rows, pagination } = await keysetPage(this.groupsQuery(this.d.db, accountId), {
      scope: { kind: 'template-groups', sort: 'name', order: 'asc' },
      sortExpr: sql.ref('template_groups.name_key'),
      idExpr: sql.ref('template_groups.id'),
      limit: opts.limit,
      cursor: opts.cursor,
    });
    const ungrouped = await this.d.db
      .selectFrom('templates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('template_group_id', 'is', null)
      .executeTakeFirstOrThrow();
    return { data: rows.map((r) => toGroup(r as GroupRow)), ungroupedTemplateCount: Number(ungrouped.n), pagination };
  }

  async getGroup(accountId: string, groupId: string, tx: DbOrTx = this.d.db): Promise<TemplateGroup> {
    assertId('tg', groupId, 'templateGroupId');
    const row = await this.groupsQuery(tx, accountId).where('template_groups.id', '=', groupId).executeTakeFirst();
    if (!row) throw notFound('Template group');
    return toGroup(row as GroupRow);
  }

  private async assertGroupNameFree(tx: DbOrTx, accountId: string, name: string, exceptId?: string): Promise<void> {
    let q = tx.selectFrom('template_groups').select('id').where('account_id', '=', accountId).where('name_key', '=', name.toLowerCase());
    if (exceptId) q = q.where('id', '!=', exceptId);
    const clash = await q.executeTakeFirst();
    if (clash) throw groupNameConflict(name, clash.id);
  }

  async createGroup(accountId: string, input: CreateTemplateGroupInput): Promise<TemplateGroup> {
    const data = parseOrThrow(CreateTemplateGroupSchema, input);
    const now = this.d.clock.now();
    const row: TemplateGroupsTable = { id: newId('tg'), account_id: accountId, name: data.name, name_key: data.name.toLowerCase(), created_at: now, updated_at: now };
    try {
      await inTransaction(this.d.db, async (tx) => {
        await this.assertGroupNameFree(tx, accountId, data.name);
        await tx.insertInto('template_groups').values(row).execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw groupNameConflict(data.name);
      throw err;
    }
    return toGroup({ ...row, template_count: 0 });
  }

  async renameGroup(accountId: string, groupId: string, input: RenameTemplateGroupInput): Promise<TemplateGroup> {
    assertId('tg', groupId, 'templateGroupId');
    const data = parseOrThrow(RenameTemplateGroupSchema, input);
    try {
      await inTransaction(this.d.db, async (tx) => {
        await this.getGroup(accountId, groupId, tx);
        await this.assertGroupNameFree(tx, accountId, data.name, groupId);
        await tx
          .updateTable('template_groups')
          .set({ name: data.name, name_key: data.name.toLowerCase(), updated_at: this.d.clock.now() })
          .where('id', '=', groupId)
          .where('account_id', '=', accountId)
          .execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw groupNameConflict(data.name);
      throw err;
    }
    return this.getGroup(accountId, groupId);
  }

  /** Deletes the group; its templates stay and become ungrouped. */
  async deleteGroup(accountId: string, groupId: string): Promise<{ id: string; deleted: true; ungroupedTemplates: number }> {
    return inTransaction(this.d.db, async (tx) => {
      await this.getGroup(accountId, groupId, tx);
      const res = await tx
        .updateTable('templates')
        .set({ template_group_id: null })
        .where('account_id', '=', accountId)
        .where('template_group_id', '=', groupId)
        .executeTakeFirst();
      await tx.deleteFrom('template_groups').where('id', '=', groupId).where('account_id', '=', accountId).execute();
      return { id: groupId, deleted: true as const, ungroupedTemplates: Number(res.numUpdatedRows) };
    });
  }

  /**
   * Moves templates into a group, or out of any group with templateGroupId null (a template is in
   * at most one group). Ids that are not templates of the account are reported, not fatal; an
   * unknown group is a 404.
   */
  async assign(accountId: string, input: AssignTemplatesInput): Promise<AssignResult> {
    const data = parseOrThrow(AssignTemplatesSchema, input);
    const ids = [...new Set(data.templateIds)];
    return inTransaction(this.d.db, async (tx) => {
      if (data.templateGroupId !== null) await this.assertGroup(tx, accountId, data.templateGroupId);
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await tx.selectFrom('templates').select('id').where('account_id', '=', accountId).where('id', 'in', ids.slice(i, i + 500)).execute();
        for (const r of rows) found.add(r.id);
      }
      const valid = ids.filter((id) => found.has(id));
      for (let i = 0; i < valid.length; i += 500) {
        await tx
          .updateTable('templates')
          .set({ template_group_id: data.templateGroupId, updated_at: this.d.clock.now() })
          .where('account_id', '=', accountId)
          .where('id', 'in', valid.slice(i, i + 500))
          .execute();
      }
      return { templateGroupId: data.templateGroupId, requestedCount: ids.length, assignedCount: valid.length, notFoundIds: ids.filter((id) => !found.has(id)) };
    });
  }
}

function groupNameConflict(name: string, existingId?: string): AppError {
  return new AppError('CONFLICT', `A template group named "${name}" already exists (names are unique ignoring case)`, {
    details: [{ path: 'name', code: 'duplicate', message: 'name already in use' }],
    ...(existingId ? { extra: { existingTemplateGroupId: existingId } } : {}),
  });
}
