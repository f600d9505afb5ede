import { sql } from 'kysely';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { AccountsService } from '../accounts/service.js';
import type { ContactsService } from '../contacts/service.js';
import type { FieldsService } from '../fields/service.js';
import type { GroupsService } from '../groups/service.js';
import { usableSender } from '../messaging/prepare.js';
import type { SendService } from '../messaging/send-service.js';
import { countryInPriceList, countryReach, normalizePhone } from '../phone/index.js';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx, type Tx } from '../platform/db/database.js';
import { OPT_OUT_STANDS, type ConsentRecorder } from '../suppression/schemas.js';
import { sortKey } from '../platform/db/sort-key.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { isUniqueViolation } from '../platform/db/sql-errors.js';
import { parseJson } from '../platform/db/sql.js';
import type { FormSubmissionsTable, FormsTable } from './tables.js';
import { AppError, isAppError, notFound } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';
import { parseOrThrow } from '../platform/validation.js';
import { findForbiddenCharacter } from '../content/characters.js';
import type { EmitTarget, WebhooksService } from '../webhooks/service.js';
import { parseSendBody } from '../messaging/prepare.js';
import { SendSmsRequestSchema } from '../messaging/schemas.js';
import { placeholderPattern } from '../merge/placeholders.js';
import {
  CONFIRMATION_ACCOUNT_PLACEHOLDERS,
  CONFIRMATION_LIMIT_NAMES,
  CreateFormSchema,
  DEFAULT_CONFIRMATION_MESSAGE,
  ListFormsQuerySchema,
  describeConfirmationLimit,
  type ConfirmationLimitName,
  ListSubmissionsQuerySchema,
  SLUG_PATTERN,
  UpdateFormSchema,
  type ConfirmView,
  type CreateFormInput,
  type Form,
  type FormFields,
  type ListSubmissionsQuery,
  type PublicForm,
  type PublicSubmission,
  type Submission,
  type SubmitResult,
  type SubmissionData,
  type UpdateFormInput,
} from './schemas.js';

/** A confirmation link works this long. */
export const CONFIRM_TOKEN_TTL_MS = 7 * 24 * 3_600_000;
/**
 * Submit-once throttle: while a submission of the same form and number is PENDING and its
 * confirmation SMS went out less than this long ago, a new submission sends no new SMS
 * (`confirmationSent: false`); the link already sent confirms the newest data.
 */
export const CONFIRMATION_RESEND_AFTER_MS = 60 * 60_000;
const CUSTOM_VALUE_MAX = 500;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The console shows a form's last cap hit this long. */
export const CONFIRMATION_LIMIT_HIT_SHOWN_MS = DAY_MS;
/** {{submitted_first_name}} merges only a plain name: letters and marks, single spaces, hyphens and apostrophes between them. */
const PLAIN_NAME = /^[\p{L}\p{M}]+(?:[ '’-][\p{L}\p{M}]+)*$/u;
const PLAIN_NAME_MAX = 40;

/** A cap that held back a confirmation SMS (stored on the form as JSON, `at` in epoch ms). */
interface LimitHit {
  limit: ConfirmationLimitName;
  max: number;
  at: number;
}

/**
 * The text of one confirmation SMS (issue #27). The form's own placeholders are filled in here: {{confirm_link}},
 * {{form_name}} (braces removed, so a name cannot bring a placeholder along) and {{submitted_first_name}} (the first
 * name typed into this submission, only when it is a plain name: a link, digits or braces typed as a name would
 * otherwise reach any number). The account's placeholders (company fields, {{today}}) stay for the send path's
 * merge. Every other placeholder — only in messages saved before the rule, which refuses them now — is removed, and
 * removed again until none is left (removing one can join the braces around it into another), so nothing the send
 * path would fill from the recipient's contact record remains.
 */
export function confirmationText(message: string, values: { link: string; formName: string; firstName: string | null }): { text: string; removed: string[] } {
  const first = values.firstName?.trim() ?? '';
  const own: Record<string, string> = {
    confirm_link: values.link,
    form_name: values.formName.replace(/[{}]/g, ''),
    submitted_first_name: first.length <= PLAIN_NAME_MAX && PLAIN_NAME.test(first) ? first : '',
  };
  const removed: string[] = [];
  const drop = (whole: string, name: string) => {
    if (CONFIRMATION_ACCOUNT_PLACEHOLDERS.has(name)) return whole;
    removed.push(name);
    return '';
  };
  let text = message.replace(placeholderPattern(), (whole: string, name: string) => (Object.hasOwn(own, name) ? own[name]! : drop(whole, name)));
  for (let next = text.replace(placeholderPattern(), drop); next !== text; next = text.replace(placeholderPattern(), drop)) text = next;
  return { text, removed };
}
/** Shown on the form: control characters cannot be merged into the messages this contact gets. */
const PRINTABLE_ONLY = 'Please use only ordinary printable characters.';

/** A visitor's mistake on the public form, by field (shown next to it). */
export class FormInputError extends Error {
  constructor(readonly fieldErrors: Record<string, string>) {
    super(Object.values(fieldErrors).join(' '));
    this.name = 'FormInputError';
  }
}

export interface FormsDeps {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  accounts: AccountsService;
  contacts: ContactsService;
  fields: FieldsService;
  groups: GroupsService;
  send: SendService;
  webhooks: WebhooksService;
  /** Opt-in confirmation links' tokens (stored masked, revealed at hand-over). */
  links: LinkTokens;
  /** The consent record: a confirmed opt-in is written to it in the confirming transaction. */
  consent: Pick<ConsentRecorder, 'record' | 'optedOut'>;
}

/** The address book's own email rule, so a confirmed submission can always be written to the contact. */
const EMAIL = z.email();

function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return base.length >= 3 ? base : `form${base ? `-${base}` : ''}`;
}

/**
 * Opt-in forms (spec §3.6; docs/webhooks.md "Forms"): definitions per account (REST /api/v1/forms,
 * console), the public page /f/<slug>, submissions and double opt-in. Contacts are created and
 * updated through ContactsService and GroupsService (their rules, country check included); the
 * confirmation SMS goes through SendService.sendSms like every other send (merged, priced,
 * charged, logged). form_submission and form_optin_confirmed are written to the webhook outbox in
 * the transaction that records the submission or the confirmation.
 */
export class FormsService {
  constructor(private readonly d: FormsDeps) {}

  // ---- definitions -----------------------------------------------------------------------------

  private publicUrl(slug: string): string {
    return `${this.d.config.publicUrl}/f/${slug}`;
  }

  private async row(q: DbOrTx, accountId: string, id: string): Promise<FormsTable> {
    assertId('frm', id, 'id');
    const row = await q.selectFrom('forms').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Form');
    return row;
  }

  private async present(rows: readonly FormsTable[]): Promise<Form[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const counts = await this.d.db
      .selectFrom('form_submissions')
      .select((eb) => ['form_id', 'status', eb.fn.countAll<number>().as('n')])
      .where('form_id', 'in', ids)
      .groupBy(['form_id', 'status'])
      .execute();
    const hookUrl = await this.d.webhooks.urlsOf(rows[0]!.account_id, rows.flatMap((r) => (r.webhook_id ? [r.webhook_id] : [])));
    return rows.map((r) => {
      const fields = parseJson<FormFields>(r.fields, { firstName: 'optional', email: 'optional', customFields: [] });
      const n = (status: string) => Number(counts.find((c) => c.form_id === r.id && c.status === status)?.n ?? 0);
      return {
        id: r.id,
        name: r.name,
        slug: r.slug,
        url: this.publicUrl(r.slug),
        title: r.title,
        description: r.description,
        fields: { firstName: fields.firstName, email: fields.email, customFields: fields.customFields.map((f) => ({ fieldId: f.fieldId, label: f.label ?? '', required: f.required })) },
        groups: parseJson<string[]>(r.group_ids, []),
        doubleOptIn: r.double_opt_in === 1,
        confirmation: r.sender_id ? { sendernameId: r.sender_id, message: r.confirmation_message ?? DEFAULT_CONFIRMATION_MESSAGE } : null,
        applyData: r.apply_data === 1,
        consentText: r.consent_text,
        webhook: r.webhook_id && hookUrl.has(r.webhook_id) ? { id: r.webhook_id, url: hookUrl.get(r.webhook_id)! } : null,
        active: r.active === 1,
        submissions: { pending: n('PENDING'), confirmed: n('CONFIRMED') },
        confirmationLimitHit: this.recentLimitHit(r),
        createdAt: toIso(r.created_at)!,
        updatedAt: toIso(r.updated_at)!,
      };
    });
  }

  /** The form's last cap hit, when it is less than a day old (console warning, REST `confirmationLimitHit`). */
  private recentLimitHit(r: FormsTable): Form['confirmationLimitHit'] {
    const hit = parseJson<Partial<LimitHit> | null>(r.confirmation_limit_hit, null);
    if (!hit || typeof hit.at !== 'number' || typeof hit.max !== 'number' || !CONFIRMATION_LIMIT_NAMES.includes(hit.limit as ConfirmationLimitName)) return null;
    if (hit.at <= this.d.clock.now() - CONFIRMATION_LIMIT_HIT_SHOWN_MS) return null;
    return { limit: hit.limit!, max: hit.max, at: toIso(hit.at)! };
  }

  /** Custom fields and groups must be the account's; labels default to the field names. */
  private async checkReferences(q: DbOrTx, accountId: string, fields: FormFields, groups: readonly string[]): Promise<FormFields> {
    const fieldIds = fields.customFields.map((f) => f.fieldId);
    if (new Set(fieldIds).size !== fieldIds.length) throw new AppError('VALIDATION_ERROR', 'fields.customFields: a field is listed twice', { details: [{ path: 'fields.customFields', code: 'duplicate', message: 'each field once' }] });
    const names = await this.d.fields.namesOf(accountId, fieldIds, q);
    const details = fields.customFields.flatMap((f, i) => (names.has(f.fieldId) ? [] : [{ path: `fields.customFields[${i}].fieldId`, code: 'not_found', message: `no custom field ${f.fieldId} on this account` }]));
    if (details.length) throw new AppError('NOT_FOUND', `Custom field not found: ${details[0]!.message}`, { details });
    await this.d.groups.assertGroups(accountId, groups, 'groups', q);
    return { ...fields, customFields: fields.customFields.map((f) => ({ ...f, label: f.label ?? names.get(f.fieldId)! })) };
  }

  private async freeSlug(q: DbOrTx, wanted: string | undefined, name: string, exceptId?: string): Promise<string> {
    const taken = async (slug: string) => {
      let qb = q.selectFrom('forms').select('id').where('slug', '=', slug);
      if (exceptId) qb = qb.where('id', '!=', exceptId);
      return (await qb.executeTakeFirst()) !== undefined;
    };
    if (wanted !== undefined) {
      if (await taken(wanted)) throw new AppError('CONFLICT', `The slug "${wanted}" is taken; choose another`, { details: [{ path: 'slug', code: 'duplicate', message: 'slug already used' }] });
      return wanted;
    }
    const base = slugify(name);
    for (let i = 0; i < 5; i++) {
      const candidate = i === 0 && SLUG_PATTERN.test(base) ? base : `${base.slice(0, 50)}-${randomToken(4).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`;
      if (SLUG_PATTERN.test(candidate) && !(await taken(candidate))) return candidate;
    }
    throw new AppError('CONFLICT', 'Could not find a free slug; give one');
  }

  private async senderId(q: DbOrTx, accountId: string, idOrName: string): Promise<string> {
    return (await usableSender(q, accountId, idOrName, 'SMS', 'confirmation.sendernameId', true)).id;
  }

  /** POST /api/v1/forms. 400 invalid, 404 unknown field or group, 409 slug taken. */
  async create(accountId: string, input: CreateFormInput): Promise<Form> {
    const data = parseOrThrow(CreateFormSchema, input);
    const row = await inTransaction(this.d.db, async (tx) => {
      const fields = await this.checkReferences(tx, accountId, data.fields, data.groups);
      const slug = await this.freeSlug(tx, data.slug, data.name);
      const now = this.d.clock.now();
      const row: FormsTable = {
        id: newId('frm', now),
        account_id: accountId,
        name: data.name,
        slug,
        title: data.title ?? null,
        description: data.description ?? null,
        fields: JSON.stringify(fields),
        group_ids: JSON.stringify([...new Set(data.groups)]),
        double_opt_in: data.doubleOptIn ? 1 : 0,
        sender_id: data.confirmation ? await this.senderId(tx, accountId, data.confirmation.sendernameId) : null,
        confirmation_message: data.confirmation?.message ?? null,
        apply_data: data.applyData ? 1 : 0,
        consent_text: data.consentText ?? null,
        webhook_id: data.webhookUrl ? await this.d.webhooks.formEndpoint(tx, accountId, data.webhookUrl) : null,
        active: data.active ? 1 : 0,
        created_at: now,
        updated_at: now,
        confirmation_limit_hit: null,
      };
      await tx.insertInto('forms').values(row).execute();
      return row;
    });
    return (await this.present([row]))[0]!;
  }

  async list(accountId: string, rawQuery: unknown): Promise<CursorPage<Form>> {
    const q = parseOrThrow(ListFormsQuerySchema, rawQuery ?? {}, 'Query');
    const page = await keysetPage(this.d.db.selectFrom('forms').selectAll().where('account_id', '=', accountId), {
      scope: { kind: 'forms', sort: 'createdAt', order: 'desc' },
      sortExpr: sql.ref('created_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: await this.present(page.rows), pagination: page.pagination };
  }

  async get(accountId: string, id: string): Promise<Form> {
    return (await this.present([await this.row(this.d.db, accountId, id)]))[0]!;
  }

  /** PUT /api/v1/forms/{id}: partial; submissions already made keep what they were made with. */
  async update(accountId: string, id: string, input: UpdateFormInput): Promise<Form> {
    const data = parseOrThrow(UpdateFormSchema, input);
    const row = await inTransaction(this.d.db, async (tx) => {
      const current = await this.row(tx, accountId, id);
      const next: FormsTable = { ...current, updated_at: this.d.clock.now() };
      if (data.name !== undefined) next.name = data.name;
      if (data.slug !== undefined && data.slug !== current.slug) next.slug = await this.freeSlug(tx, data.slug, next.name, id);
      if (data.title !== undefined) next.title = data.title;
      if (data.description !== undefined) next.description = data.description;
      if (data.fields !== undefined || data.groups !== undefined) {
        const fields = data.fields ?? parseJson<FormFields>(current.fields, { firstName: 'optional', email: 'optional', customFields: [] });
        const groups = data.groups ?? parseJson<string[]>(current.group_ids, []);
        next.fields = JSON.stringify(await this.checkReferences(tx, accountId, fields, groups));
        next.group_ids = JSON.stringify([...new Set(groups)]);
      }
      if (data.doubleOptIn !== undefined) next.double_opt_in = data.doubleOptIn ? 1 : 0;
      if (data.confirmation !== undefined) {
        next.sender_id = data.confirmation ? await this.senderId(tx, accountId, data.confirmation.sendernameId) : null;
        next.confirmation_message = data.confirmation?.message ?? null;
      }
      if (next.double_opt_in === 1 && !next.sender_id) {
        throw new AppError('VALIDATION_ERROR', 'confirmation: is required when doubleOptIn is true (sendernameId of an SMS sender)', { details: [{ path: 'confirmation', code: 'required', message: 'required with doubleOptIn' }] });
      }
      if (data.applyData !== undefined) next.apply_data = data.applyData ? 1 : 0;
      if (data.consentText !== undefined) next.consent_text = data.consentText;
      if (data.webhookUrl !== undefined) next.webhook_id = data.webhookUrl ? await this.d.webhooks.formEndpoint(tx, accountId, data.webhookUrl) : null;
      if (data.active !== undefined) next.active = data.active ? 1 : 0;
      // The cap marker is the submissions' to write (a concurrent one may have just set it).
      const { id: _id, account_id: _acc, created_at: _c, confirmation_limit_hit: _hit, ...patch } = next;
      await tx.updateTable('forms').set(patch).where('id', '=', id).where('account_id', '=', accountId).execute();
      return next;
    });
    return (await this.present([row]))[0]!;
  }

  /** DELETE: the form and its submissions; contacts it created stay. */
  async delete(accountId: string, id: string): Promise<{ id: string; deleted: true }> {
    await inTransaction(this.d.db, async (tx) => {
      await this.row(tx, accountId, id);
      await tx.deleteFrom('forms').where('id', '=', id).where('account_id', '=', accountId).execute();
    });
    return { id, deleted: true };
  }

  private toSubmission(r: FormSubmissionsTable): Submission {
    return {
      id: r.id,
      formId: r.form_id,
      status: r.status,
      contact: { id: r.contact_id, phone: `+${r.phone}`, action: r.contact_action },
      data: parseJson<SubmissionData>(r.data, { phone: `+${r.phone}`, firstName: null, email: null, customFields: [] }),
      confirmationSent: r.confirmation_sent === 1,
      confirmationNote: r.confirmation_note,
      dataApplied: r.data_applied === 1,
      submittedAt: toIso(r.submitted_at)!,
      confirmedAt: toIso(r.confirmed_at),
    };
  }

  /** GET /api/v1/forms/{id}/submissions: newest first. */
  async submissions(accountId: string, id: string, rawQuery: ListSubmissionsQuery): Promise<CursorPage<Submission>> {
    await this.row(this.d.db, accountId, id);
    const q = parseOrThrow(ListSubmissionsQuerySchema, rawQuery ?? {}, 'Query');
    let qb = this.d.db.selectFrom('form_submissions').selectAll().where('account_id', '=', accountId).where('form_id', '=', id);
    if (q.status) qb = qb.where('status', '=', q.status);
    const page = await keysetPage(qb, {
      scope: { kind: 'form_submissions', sort: 'submittedAt', order: 'desc' },
      sortExpr: sql.ref('submitted_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: (page.rows as FormSubmissionsTable[]).map((r) => this.toSubmission(r)), pagination: page.pagination };
  }

  // ---- the public page -------------------------------------------------------------------------

  /** The form behind /f/<slug>, or null when there is none or it is closed. */
  async publicForm(slug: string): Promise<PublicForm | null> {
    if (!SLUG_PATTERN.test(slug)) return null;
    const row = await this.d.db.selectFrom('forms').selectAll().where('slug', '=', slug).executeTakeFirst();
    if (!row || row.active !== 1) return null;
    const account = await this.d.accounts.get(row.account_id);
    if (!account.active) return null;
    const fields = parseJson<FormFields>(row.fields, { firstName: 'optional', email: 'optional', customFields: [] });
    return {
      id: row.id,
      accountId: row.account_id,
      accountName: account.name,
      name: row.name,
      slug: row.slug,
      title: row.title ?? row.name,
      description: row.description,
      consentText: row.consent_text ?? `I agree to receive messages from ${account.name} on this number. I can unsubscribe at any time by replying STOP.`,
      doubleOptIn: row.double_opt_in === 1,
      firstName: fields.firstName,
      email: fields.email,
      customFields: fields.customFields.map((f) => ({ fieldId: f.fieldId, label: f.label ?? f.fieldId, required: f.required })),
    };
  }

  /** Checks what the visitor typed; FormInputError names the fields. */
  private async readInput(form: PublicForm, input: PublicSubmission): Promise<{ e164: string; digits: string; data: SubmissionData }> {
    const errors: Record<string, string> = {};
    const phone = normalizePhone(input.phone ?? '');
    let e164 = '';
    let digits = '';
    if (!phone.ok) errors.phone = phone.message;
    else {
      e164 = phone.e164;
      digits = phone.digits;
      const prices = await this.d.accounts.priceList(form.accountId);
      if (!countryInPriceList(phone.country, prices)) errors.phone = `Numbers from ${phone.country} cannot sign up to this form.`;
      else if (form.doubleOptIn && !countryReach(phone.country, prices).sms) errors.phone = `We cannot send the confirmation SMS to numbers from ${phone.country}.`;
    }
    const text = (v: string | undefined, max: number) => {
      const t = (v ?? '').trim();
      return t === '' ? null : t.slice(0, max + 1);
    };
    const firstName = form.firstName === 'off' ? null : text(input.firstName, 100);
    if (form.firstName === 'required' && !firstName) errors.firstName = 'Please enter your first name.';
    else if (firstName && firstName.length > 100) errors.firstName = 'At most 100 characters.';
    else if (firstName && findForbiddenCharacter(firstName)) errors.firstName = PRINTABLE_ONLY;
    const email = form.email === 'off' ? null : text(input.email, 254);
    if (form.email === 'required' && !email) errors.email = 'Please enter your email address.';
    else if (email && (email.length > 254 || !EMAIL.safeParse(email).success)) errors.email = 'This is not an email address.';
    const customFields: SubmissionData['customFields'] = [];
    for (const f of form.customFields) {
      const v = text(input.custom?.[f.fieldId], CUSTOM_VALUE_MAX);
      if (f.required && !v) errors[`cf_${f.fieldId}`] = `Please fill in ${f.label}.`;
      else if (v && v.length > CUSTOM_VALUE_MAX) errors[`cf_${f.fieldId}`] = `At most ${CUSTOM_VALUE_MAX} characters.`;
      else if (v && findForbiddenCharacter(v)) errors[`cf_${f.fieldId}`] = PRINTABLE_ONLY;
      else if (v) customFields.push({ id: f.fieldId, label: f.label, value: v });
    }
    if (Object.keys(errors).length > 0) throw new FormInputError(errors);
    return { e164, digits, data: { phone: e164, firstName, email, customFields } };
  }

  /** The webhook of a form's events: its own, or the account's subscribed endpoints. */
  private target(form: FormsTable): EmitTarget {
    return form.webhook_id ? { kind: 'endpoint', endpointId: form.webhook_id } : { kind: 'subscribed' };
  }

  private eventBody(form: FormsTable, s: FormSubmissionsTable): Record<string, unknown> {
    return {
      form: { id: form.id, name: form.name, slug: form.slug },
      submission: { id: s.id, action: s.contact_action, submittedAt: toIso(s.submitted_at) },
      optIn: { status: s.status, confirmationSent: s.confirmation_sent === 1, confirmedAt: toIso(s.confirmed_at), dataApplied: s.data_applied === 1 },
      contact: { id: s.contact_id, phone: `+${s.phone}`, optInStatus: s.status },
      data: parseJson<SubmissionData>(s.data, { phone: `+${s.phone}`, firstName: null, email: null, customFields: [] }),
    };
  }

  /**
   * POST /f/<slug>: one transaction records the submission (PENDING) with the number's contact (created, disabled
   * until confirmed, when it has none), accepts the confirmation SMS unless the submit-once throttle holds it back,
   * and writes form_submission to the outbox; a single opt-in form is confirmed in the same transaction
   * (form_optin_confirmed follows). The SMS is handed to the carrier after the commit. The same data submitted again
   * for the same number while its submission is pending and recent is that submission: counted once.
   */
  async submit(slug: string, input: PublicSubmission, clientAddress: string | null = null): Promise<SubmitResult> {
    const pub = await this.publicForm(slug);
    if (!pub) throw notFound('Form');
    const { e164, digits, data } = await this.readInput(pub, input);
    // Of identical submissions at the same moment one inserts; the others' inserts hit the unique key (migration
    // 019), roll back everything they did, and run once more, now finding that one's row.
    const outcome = await onceMoreIfDuplicate(() => this.record(pub.id, e164, digits, data, clientAddress));
    const { row, form } = outcome;
    let confirmationSent = row.confirmation_sent === 1;
    if (outcome.handOver) {
      const result = await this.d.send.handOver(outcome.handOver);
      if (result.failed) {
        // The carrier refused it at once: the link never arrives, so the throttle must not hold back the next try.
        confirmationSent = false;
        await this.d.db
          .updateTable('form_submissions')
          .set({ confirmation_sent: 0, token_hash: null, token_expires_at: null, confirmation_note: `The confirmation SMS failed: ${result.error ?? 'not sent'}` })
          .where('id', '=', row.id)
          .execute();
      }
    }
    if (form.double_opt_in !== 1) return { submissionId: row.id, status: 'CONFIRMED', confirmationSent: false, doubleOptIn: false, confirmationLimited: false };
    return { submissionId: row.id, status: 'PENDING', confirmationSent, doubleOptIn: true, confirmationLimited: outcome.limited };
  }

  /** The submission's transaction (submit); throws a unique violation when an identical one committed meanwhile. */
  private record(formId: string, e164: string, digits: string, data: SubmissionData, clientAddress: string | null): Promise<{ row: FormSubmissionsTable; form: FormsTable; handOver: string | null; limited: boolean }> {
    return inTransaction(this.d.db, async (tx) => {
      const form = await tx.selectFrom('forms').selectAll().where('id', '=', formId).executeTakeFirstOrThrow();
      const now = this.d.clock.now();
      const json = JSON.stringify(data);
      const same = await tx
        .selectFrom('form_submissions')
        .selectAll()
        .where('form_id', '=', form.id)
        .where('phone', '=', digits)
        .where('status', '=', 'PENDING')
        .where('data', '=', json)
        .where('submitted_at', '>', now - CONFIRMATION_RESEND_AFTER_MS)
        .orderBy('submitted_at', 'desc')
        .executeTakeFirst();
      if (same) {
        // The same data again while the first has no SMS (a cap or a refusal held it back): try its SMS once more,
        // so a visitor asked to try again later gets the link on the same submission.
        if (form.double_opt_in !== 1 || same.confirmation_message_id !== null) return { row: same, form, handOver: null, limited: false };
        const sms = await this.confirmationSms(tx, form, e164, digits, now, data);
        if (!sms.sent) {
          // Only while it still has none: a concurrent retry may have sent it meanwhile.
          await tx.updateTable('form_submissions').set({ confirmation_note: sms.note }).where('id', '=', same.id).where('confirmation_message_id', 'is', null).execute();
          return { row: same, form, handOver: null, limited: sms.limited };
        }
        const sent = {
          token_hash: sha256Hex(sms.sent.token),
          token_expires_at: now + CONFIRM_TOKEN_TTL_MS,
          confirmation_sent: 1,
          confirmation_message_id: sms.sent.messageId,
          confirmation_sent_at: now,
          confirmation_note: null,
        };
        await tx.updateTable('form_submissions').set(sent).where('id', '=', same.id).execute();
        return { row: { ...same, ...sent }, form, handOver: sms.sent.messageId, limited: false };
      }
      const dedupeKey = sha256Hex(json);
      // An identical pending submission older than the window no longer stands for this one: it gives up the key.
      await tx
        .updateTable('form_submissions')
        .set({ dedupe_key: null })
        .where('form_id', '=', form.id)
        .where('phone', '=', digits)
        .where('dedupe_key', '=', dedupeKey)
        .where('status', '=', 'PENDING')
        .where('submitted_at', '<=', now - CONFIRMATION_RESEND_AFTER_MS)
        .execute();
      const doubleOptIn = form.double_opt_in === 1;
      const contact = await this.d.contacts.ensureByPhone(tx, form.account_id, e164, doubleOptIn ? `Awaiting opt-in confirmation (form "${form.name}")` : null);
      const sms = doubleOptIn ? await this.confirmationSms(tx, form, e164, digits, now, data) : { sent: null, note: 'Single opt-in form: no confirmation needed', limited: false };
      const row: FormSubmissionsTable = {
        id: newId('sub', now),
        account_id: form.account_id,
        form_id: form.id,
        phone: digits,
        contact_id: contact.id,
        contact_action: contact.created ? 'created' : 'updated',
        data: json,
        status: 'PENDING',
        token_hash: sms.sent ? sha256Hex(sms.sent.token) : null,
        token_expires_at: sms.sent ? now + CONFIRM_TOKEN_TTL_MS : null,
        confirmation_sent: sms.sent ? 1 : 0,
        confirmation_message_id: sms.sent?.messageId ?? null,
        confirmation_sent_at: sms.sent ? now : null,
        confirmation_note: sms.note,
        data_applied: 0,
        submitted_at: now,
        confirmed_at: null,
        dedupe_key: dedupeKey,
      };
      await tx.insertInto('form_submissions').values(row).execute();
      await this.d.webhooks.emit(tx, form.account_id, 'form_submission', this.eventBody(form, row), this.target(form));
      if (!doubleOptIn) await this.confirmSubmission(tx, form, row, clientAddress);
      return { row, form, handOver: sms.sent?.messageId ?? null, limited: sms.limited };
    });
  }

  /**
   * The confirmation SMS of a double opt-in submission, accepted in the submission's transaction (a savepoint keeps a
   * refused send from leaving anything behind), or why none is sent: the throttle, no sender, a cap (`limited`: the
   * visitor is asked to try again later), or the send refused.
   */
  private async confirmationSms(
    tx: Tx,
    form: FormsTable,
    e164: string,
    digits: string,
    now: number,
    data: SubmissionData,
  ): Promise<{ sent: { messageId: string; token: string } | null; note: string | null; limited: boolean }> {
    // Check, then send: submissions of different data for one number on several instances take turns here, so
    // the second sees the first's SMS and sends none (locks.ts).
    await lockForTransaction(tx, 'formPhone', [`${form.id}|${digits}`]);
    const recent = await tx
      .selectFrom('form_submissions')
      .select('id')
      .where('form_id', '=', form.id)
      .where('phone', '=', digits)
      .where('status', '=', 'PENDING')
      .where('confirmation_sent', '=', 1)
      .where('submitted_at', '>', now - CONFIRMATION_RESEND_AFTER_MS)
      .executeTakeFirst();
    if (recent) return { sent: null, note: `A confirmation SMS went to this number less than ${CONFIRMATION_RESEND_AFTER_MS / 60_000} minutes ago; its link confirms this submission`, limited: false };
    if (!form.sender_id) return { sent: null, note: 'The form has no confirmation sender', limited: false };
    const hit = await this.limitHit(tx, form, now);
    if (hit) {
      await tx.updateTable('forms').set({ confirmation_limit_hit: JSON.stringify(hit) }).where('id', '=', form.id).execute();
      this.d.logger.warn({ formId: form.id, accountId: form.account_id, limit: hit.limit, max: hit.max }, 'form confirmation SMS held back by a cap');
      return { sent: null, note: `Not sent: the limit of ${describeConfirmationLimit(hit.limit, hit.max)} was reached (account settings); the visitor was asked to try again later`, limited: true };
    }
    // The stored text carries the link masked; its token is derived from the message id (platform/link-tokens.ts) and filled
    // in when the SMS is handed to the carrier.
    const link = this.d.links.maskedUrl(this.d.config.publicUrl, 'optin');
    const { text, removed } = confirmationText(form.confirmation_message ?? DEFAULT_CONFIRMATION_MESSAGE, { link, formName: form.name, firstName: data.firstName });
    if (removed.length > 0) this.d.logger.warn({ formId: form.id, removed }, 'form confirmation message saved before issue #27 uses placeholders a form may not; they were left empty');
    await sql`savepoint form_confirmation_sms`.execute(tx);
    try {
      const sent = await this.d.send.sendSms(
        form.account_id,
        // The text is built from stored form fields; it passes the send door like any body. Transactional: the visitor
        // has just asked for it, so the account's quiet hours do not hold it back (issue #28).
        parseSendBody(SendSmsRequestSchema, { phoneNumber: e164, message: text, sendernameId: form.sender_id, campaignName: `Form opt-in: ${form.name}`.slice(0, 100), skipDisabled: false, transactional: true }),
        { source: 'FORM', tx },
      );
      await sql`release savepoint form_confirmation_sms`.execute(tx);
      return { sent: { messageId: sent.messageId, token: this.d.links.token('optin', sent.messageId) }, note: null, limited: false };
    } catch (err) {
      // A refusal of the send (no credits, opted out, …) is recorded on the submission, not shown to the visitor.
      if (!isAppError(err)) throw err;
      await sql`rollback to savepoint form_confirmation_sms`.execute(tx);
      this.d.logger.info({ formId: form.id, code: err.code }, 'form confirmation SMS refused');
      return { sent: null, note: `The confirmation SMS was refused: ${err.message}`, limited: false };
    }
  }

  /**
   * The first cap on confirmation SMS this one would pass (account settings: per form and per account, per rolling
   * hour and day), or null. Counted in the database, in the submission's transaction, under a per-account lock
   * held to its end: submissions on several instances take turns, so the counts hold in total.
   */
  private async limitHit(tx: Tx, form: FormsTable, now: number): Promise<LimitHit | null> {
    await lockForTransaction(tx, 'formConfirmationCaps', [form.account_id]);
    const limits = (await this.d.accounts.get(form.account_id, tx)).formConfirmationLimits;
    const count = async (column: 'form_id' | 'account_id', id: string) => {
      const r = await tx
        .selectFrom('form_submissions')
        .select([sql<number | string>`count(*)`.as('day'), sql<number | string | null>`sum(case when confirmation_sent_at > ${now - HOUR_MS} then 1 else 0 end)`.as('hour')])
        .where(column, '=', id)
        .where('confirmation_sent_at', 'is not', null)
        .where('confirmation_sent_at', '>', now - DAY_MS)
        .executeTakeFirstOrThrow();
      return { hour: Number(r.hour ?? 0), day: Number(r.day) };
    };
    const hit = (limit: ConfirmationLimitName): LimitHit => ({ limit, max: limits[limit], at: now });
    const perForm = await count('form_id', form.id);
    if (perForm.hour >= limits.perFormPerHour) return hit('perFormPerHour');
    if (perForm.day >= limits.perFormPerDay) return hit('perFormPerDay');
    const perAccount = await count('account_id', form.account_id);
    if (perAccount.hour >= limits.perAccountPerHour) return hit('perAccountPerHour');
    if (perAccount.day >= limits.perAccountPerDay) return hit('perAccountPerDay');
    return null;
  }

  private async byToken(token: string): Promise<{ sub: FormSubmissionsTable; form: FormsTable; accountName: string } | null> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
    const sub = await this.d.db.selectFrom('form_submissions').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
    if (!sub) return null;
    const form = await this.d.db.selectFrom('forms').selectAll().where('id', '=', sub.form_id).executeTakeFirst();
    if (!form) return null;
    const account = await this.d.accounts.get(sub.account_id);
    if (!account.active) return null;
    return { sub, form, accountName: account.name };
  }

  private viewOf(x: { sub: FormSubmissionsTable; form: FormsTable; accountName: string }, state: ConfirmView['state']): ConfirmView {
    return { state, formName: x.form.name, accountName: x.accountName, phoneEnding: x.sub.phone.slice(-4) };
  }

  /** GET /f/confirm/<token>: what the page shows; changes nothing (link scanners open links too). */
  async confirmView(token: string): Promise<ConfirmView | null> {
    const x = await this.byToken(token);
    if (!x) return null;
    if (x.sub.status === 'CONFIRMED') return this.viewOf(x, 'already');
    if ((x.sub.token_expires_at ?? 0) < this.d.clock.now()) return this.viewOf(x, 'expired');
    return this.viewOf(x, 'confirm');
  }

  /**
   * POST /f/confirm/<token>: confirms the number's pending opt-in for the form (idempotent), in one transaction.
   * `clientAddress` (the confirming request's address) goes on the consent record.
   */
  async confirm(token: string, clientAddress: string | null = null): Promise<ConfirmView | null> {
    const x = await this.byToken(token);
    if (!x) return null;
    return inTransaction(this.d.db, async (tx) => {
      const fresh = await tx.selectFrom('form_submissions').selectAll().where('id', '=', x.sub.id).executeTakeFirstOrThrow();
      if (fresh.status === 'CONFIRMED') return this.viewOf(x, 'already');
      if ((fresh.token_expires_at ?? 0) < this.d.clock.now()) return this.viewOf(x, 'expired');
      // The newest pending submission of the number carries the data to apply (a later one may have been throttled
      // and has no link of its own).
      const latest = await tx
        .selectFrom('form_submissions')
        .selectAll()
        .where('form_id', '=', fresh.form_id)
        .where('phone', '=', fresh.phone)
        .where('status', '=', 'PENDING')
        // Through (form_id, phone, submitted_at), not every newer submission of the form.
        .orderBy(sortKey('submitted_at', { afterFilter: true }), 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const done = await this.confirmSubmission(tx, x.form, latest, clientAddress, fresh);
      return this.viewOf(x, done ? 'confirmed' : 'already');
    });
  }

  /**
   * Confirms `sub` and every older PENDING submission of the same form and number, inside the caller's transaction.
   * The conditional update decides who confirms: only the call that moves `sub` from PENDING activates the contact
   * (with the data and groups when the form applies data) and fires form_optin_confirmed, so it fires once.
   * Returns whether this call confirmed it.
   */
  private async confirmSubmission(tx: Tx, form: FormsTable, sub: FormSubmissionsTable, clientAddress: string | null, linked: FormSubmissionsTable = sub): Promise<boolean> {
    const now = this.d.clock.now();
    const res = await tx
      .updateTable('form_submissions')
      .set({ status: 'CONFIRMED', confirmed_at: now })
      .where('id', '=', sub.id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return false;
    const data = parseJson<SubmissionData>(sub.data, { phone: `+${sub.phone}`, firstName: null, email: null, customFields: [] });
    const contact = await this.d.contacts.applyOptIn(
      tx,
      form.account_id,
      `+${sub.phone}`,
      form.apply_data === 1
        ? { firstName: data.firstName, email: data.email, customFields: data.customFields.map((f) => ({ fieldId: f.id, value: f.value })), groupIds: parseJson<string[]>(form.group_ids, []) }
        : null,
    );
    if (form.apply_data === 1 && !contact.applied) this.d.logger.warn({ formId: form.id, submissionId: sub.id }, 'form data could not be applied to the contact');
    const applied = contact.applied ? 1 : 0;
    await tx.updateTable('form_submissions').set({ data_applied: applied, contact_id: contact.id }).where('id', '=', sub.id).execute();
    // Older pending submissions of the number are settled by the same confirmation (no event of their own).
    await tx
      .updateTable('form_submissions')
      .set({ status: 'CONFIRMED', confirmed_at: now })
      .where('form_id', '=', form.id)
      .where('phone', '=', sub.phone)
      .where('status', '=', 'PENDING')
      .where('submitted_at', '<=', sub.submitted_at)
      .execute();
    const double = form.double_opt_in === 1;
    // A form opt-in does not lift an earlier opt-out of the number (only START does): the record says so.
    const stillOut = (await this.d.consent.optedOut(tx, form.account_id, [sub.phone])).size > 0;
    await this.d.consent.record(tx, {
      accountId: form.account_id,
      phone: sub.phone,
      contactId: contact.id,
      kind: 'opt_in',
      source: 'form',
      formId: form.id,
      formName: form.name,
      submissionId: sub.id,
      clientAddress,
      // The confirmation SMS whose link was used (double opt-in).
      senderId: double ? form.sender_id : null,
      messageId: double ? linked.confirmation_message_id : null,
      note: [
        double
          ? `Double opt-in: submitted ${new Date(sub.submitted_at).toISOString()}, confirmed by the link in the confirmation SMS`
          : `Single opt-in form: submitted ${new Date(sub.submitted_at).toISOString()}, no confirmation asked`,
        ...(stillOut ? [OPT_OUT_STANDS] : []),
      ].join('. '),
      at: now,
    });
    const confirmed: FormSubmissionsTable = { ...sub, status: 'CONFIRMED', confirmed_at: now, data_applied: applied, contact_id: contact.id };
    await this.d.webhooks.emit(tx, form.account_id, 'form_optin_confirmed', this.eventBody(form, confirmed), this.target(form));
    return true;
  }
}

/** Runs `attempt` again once when it fails on a unique key: a concurrent identical write committed first. */
async function onceMoreIfDuplicate<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return attempt();
  }
}
