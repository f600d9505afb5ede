import { sql } from 'kysely';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { AccountsService } from '../accounts/service.js';
import type { ContactsService } from '../contacts/service.js';
import type { GroupsService } from '../groups/service.js';
import { usableSender } from '../messaging/prepare.js';
import type { SendService } from '../messaging/send-service.js';
import { countryInPriceList, countryReach, normalizePhone } from '../phone/index.js';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { FormSubmissionsTable, FormsTable } from '../platform/db/tables/webhooks-forms.js';
import { AppError, isAppError, notFound } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import type { LinkTokens } from '../messaging/link-tokens.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';
import { parseOrThrow } from '../platform/validation.js';
import { findForbiddenCharacter } from '../content/characters.js';
import type { EmitTarget, WebhooksService } from '../webhooks/service.js';
import {
  CONFIRM_LINK_PLACEHOLDER,
  CreateFormSchema,
  DEFAULT_CONFIRMATION_MESSAGE,
  FORM_NAME_PLACEHOLDER,
  ListFormsQuerySchema,
  ListSubmissionsQuerySchema,
  SLUG_PATTERN,
  UpdateFormSchema,
  type CreateFormInput,
  type FieldModeValue,
  type Form,
  type FormFields,
  type ListSubmissionsQuery,
  type Submission,
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
/** Shown on the form: control characters cannot be merged into the messages this contact gets. */
const PRINTABLE_ONLY = 'Please use only ordinary printable characters.';

/** What the public page needs to render a form. */
export interface PublicForm {
  id: string;
  accountId: string;
  accountName: string;
  name: string;
  slug: string;
  title: string;
  description: string | null;
  consentText: string;
  doubleOptIn: boolean;
  firstName: FieldModeValue;
  email: FieldModeValue;
  customFields: Array<{ fieldId: string; label: string; required: boolean }>;
}

/** What a visitor typed, as posted by the public page (field names of the HTML form). */
export interface PublicSubmission {
  phone: string;
  firstName?: string | undefined;
  email?: string | undefined;
  /** By fieldId. */
  custom?: Record<string, string | undefined>;
}

export interface SubmitResult {
  submissionId: string;
  status: 'PENDING' | 'CONFIRMED';
  confirmationSent: boolean;
  doubleOptIn: boolean;
}

export interface ConfirmView {
  state: 'confirm' | 'confirmed' | 'already' | 'expired';
  formName: string;
  accountName: string;
  phoneEnding: string;
}

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
  groups: GroupsService;
  send: SendService;
  webhooks: WebhooksService;
  /** Opt-in confirmation links' tokens (stored masked, revealed at hand-over). */
  links: LinkTokens;
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
  private readonly locks = new Map<string, Promise<unknown>>();

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
    const webhookIds = rows.flatMap((r) => (r.webhook_id ? [r.webhook_id] : []));
    const hooks = webhookIds.length ? await this.d.db.selectFrom('webhook_endpoints').select(['id', 'url']).where('id', 'in', webhookIds).execute() : [];
    const hookUrl = new Map(hooks.map((h) => [h.id, h.url]));
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
        createdAt: toIso(r.created_at)!,
        updatedAt: toIso(r.updated_at)!,
      };
    });
  }

  /** Custom fields and groups must be the account's; labels default to the field names. */
  private async checkReferences(q: DbOrTx, accountId: string, fields: FormFields, groups: readonly string[]): Promise<FormFields> {
    const fieldIds = fields.customFields.map((f) => f.fieldId);
    if (new Set(fieldIds).size !== fieldIds.length) throw new AppError('VALIDATION_ERROR', 'fields.customFields: a field is listed twice', { details: [{ path: 'fields.customFields', code: 'duplicate', message: 'each field once' }] });
    const defs = fieldIds.length ? await q.selectFrom('custom_fields').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', fieldIds).execute() : [];
    const names = new Map(defs.map((d) => [d.id, d.name]));
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
      const { id: _id, account_id: _acc, created_at: _c, ...patch } = next;
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
    const row = await this.d.db
      .selectFrom('forms')
      .innerJoin('accounts', 'accounts.id', 'forms.account_id')
      .selectAll('forms')
      .select(['accounts.name as account_name', 'accounts.active as account_active'])
      .where('forms.slug', '=', slug)
      .executeTakeFirst();
    if (!row || row.active !== 1 || row.account_active !== 1) return null;
    const fields = parseJson<FormFields>(row.fields, { firstName: 'optional', email: 'optional', customFields: [] });
    return {
      id: row.id,
      accountId: row.account_id,
      accountName: row.account_name,
      name: row.name,
      slug: row.slug,
      title: row.title ?? row.name,
      description: row.description,
      consentText: row.consent_text ?? `I agree to receive messages from ${row.account_name} on this number. I can unsubscribe at any time by replying STOP.`,
      doubleOptIn: row.double_opt_in === 1,
      firstName: fields.firstName,
      email: fields.email,
      customFields: fields.customFields.map((f) => ({ fieldId: f.fieldId, label: f.label ?? f.fieldId, required: f.required })),
    };
  }

  /** One submission at a time per form and number (the throttle and contact creation must not race). */
  private async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
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

  /** The contact of the number: an existing one, or a new one (disabled until confirmed with double opt-in). */
  private async contactFor(form: FormsTable, e164: string): Promise<{ id: string; action: 'created' | 'updated' }> {
    const existing = await this.findContact(form.account_id, e164);
    if (existing) return { id: existing, action: 'updated' };
    try {
      const created = await this.d.contacts.create(form.account_id, { phone: e164 });
      if (form.double_opt_in === 1) {
        await this.d.contacts.bulkDisable(form.account_id, { contactIds: [created.id], reason: `Awaiting opt-in confirmation (form "${form.name}")`.slice(0, 500) });
      }
      return { id: created.id, action: 'created' };
    } catch (err) {
      // Created by someone else a moment ago.
      if (isAppError(err) && err.code === 'CONFLICT') {
        const again = await this.findContact(form.account_id, e164);
        if (again) return { id: again, action: 'updated' };
      }
      throw err;
    }
  }

  private async findContact(accountId: string, e164: string): Promise<string | null> {
    try {
      return (await this.d.contacts.get(accountId, e164)).id;
    } catch (err) {
      if (isAppError(err) && err.code === 'NOT_FOUND') return null;
      throw err;
    }
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
   * POST /f/<slug>: records a submission (PENDING), creating the contact when the number has none,
   * sends the confirmation SMS unless the submit-once throttle holds it back, and fires
   * form_submission. A single opt-in form is confirmed at once (form_optin_confirmed follows).
   */
  async submit(slug: string, input: PublicSubmission): Promise<SubmitResult> {
    const pub = await this.publicForm(slug);
    if (!pub) throw notFound('Form');
    const { e164, digits, data } = await this.readInput(pub, input);
    return this.exclusive(`${pub.id}:${digits}`, async () => {
      const form = await this.d.db.selectFrom('forms').selectAll().where('id', '=', pub.id).executeTakeFirstOrThrow();
      const contact = await this.contactFor(form, e164);
      const now = this.d.clock.now();
      const id = newId('sub', now);
      let token: string | null = null;
      let confirmationSent = false;
      let note: string | null = null;
      let messageId: string | null = null;
      if (form.double_opt_in === 1) {
        const recent = await this.d.db
          .selectFrom('form_submissions')
          .select('id')
          .where('form_id', '=', form.id)
          .where('phone', '=', digits)
          .where('status', '=', 'PENDING')
          .where('confirmation_sent', '=', 1)
          .where('submitted_at', '>', now - CONFIRMATION_RESEND_AFTER_MS)
          .executeTakeFirst();
        if (recent) {
          note = `A confirmation SMS went to this number less than ${CONFIRMATION_RESEND_AFTER_MS / 60_000} minutes ago; its link confirms this submission`;
        } else if (!form.sender_id) {
          note = 'The form has no confirmation sender';
        } else {
          // The stored text carries the link masked; its token is derived from the message id
          // (link-tokens.ts) and filled in when the SMS is handed to the carrier.
          const link = this.d.links.maskedUrl(this.d.config.publicUrl, 'optin');
          const text = (form.confirmation_message ?? DEFAULT_CONFIRMATION_MESSAGE).split(FORM_NAME_PLACEHOLDER).join(form.name).split(CONFIRM_LINK_PLACEHOLDER).join(link);
          try {
            const sent = await this.d.send.sendSms(
              form.account_id,
              { phoneNumber: e164, message: text, sendernameId: form.sender_id, campaignName: `Form opt-in: ${form.name}`.slice(0, 100), skipDisabled: false },
              { source: 'FORM' },
            );
            messageId = sent.messageId;
            confirmationSent = sent.success;
            token = this.d.links.token('optin', sent.messageId);
            if (!sent.success) note = `The confirmation SMS failed: ${'error' in sent && sent.error ? sent.error : 'not sent'}`;
          } catch (err) {
            if (!isAppError(err)) throw err;
            note = `The confirmation SMS was refused: ${err.message}`;
            this.d.logger.info({ formId: form.id, code: err.code }, 'form confirmation SMS refused');
          }
          if (!confirmationSent) token = null;
        }
      } else {
        note = 'Single opt-in form: no confirmation needed';
      }
      const row: FormSubmissionsTable = {
        id,
        account_id: form.account_id,
        form_id: form.id,
        phone: digits,
        contact_id: contact.id,
        contact_action: contact.action,
        data: JSON.stringify(data),
        status: 'PENDING',
        token_hash: token ? sha256Hex(token) : null,
        token_expires_at: token ? now + CONFIRM_TOKEN_TTL_MS : null,
        confirmation_sent: confirmationSent ? 1 : 0,
        confirmation_message_id: messageId,
        confirmation_note: note,
        data_applied: 0,
        submitted_at: now,
        confirmed_at: null,
      };
      await inTransaction(this.d.db, async (tx) => {
        await tx.insertInto('form_submissions').values(row).execute();
        await this.d.webhooks.emit(tx, form.account_id, 'form_submission', this.eventBody(form, row), this.target(form));
      });
      if (form.double_opt_in !== 1) {
        await this.confirmSubmission(form, row);
        return { submissionId: id, status: 'CONFIRMED', confirmationSent: false, doubleOptIn: false };
      }
      return { submissionId: id, status: 'PENDING', confirmationSent, doubleOptIn: true };
    });
  }

  private async byToken(token: string): Promise<{ sub: FormSubmissionsTable; form: FormsTable; accountName: string } | null> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
    const sub = await this.d.db.selectFrom('form_submissions').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
    if (!sub) return null;
    const form = await this.d.db.selectFrom('forms').selectAll().where('id', '=', sub.form_id).executeTakeFirst();
    const account = await this.d.db.selectFrom('accounts').select(['name', 'active']).where('id', '=', sub.account_id).executeTakeFirst();
    if (!form || !account || account.active !== 1) return null;
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

  /** POST /f/confirm/<token>: confirms the number's pending opt-in for the form (idempotent). */
  async confirm(token: string): Promise<ConfirmView | null> {
    const x = await this.byToken(token);
    if (!x) return null;
    return this.exclusive(`${x.form.id}:${x.sub.phone}`, async () => {
      const fresh = await this.d.db.selectFrom('form_submissions').selectAll().where('id', '=', x.sub.id).executeTakeFirstOrThrow();
      if (fresh.status === 'CONFIRMED') return this.viewOf(x, 'already');
      if ((fresh.token_expires_at ?? 0) < this.d.clock.now()) return this.viewOf(x, 'expired');
      // The newest pending submission of the number carries the data to apply (a later one may
      // have been throttled and has no link of its own).
      const latest = await this.d.db
        .selectFrom('form_submissions')
        .selectAll()
        .where('form_id', '=', fresh.form_id)
        .where('phone', '=', fresh.phone)
        .where('status', '=', 'PENDING')
        .orderBy('submitted_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const done = await this.confirmSubmission(x.form, latest);
      return this.viewOf(x, done ? 'confirmed' : 'already');
    });
  }

  /**
   * Confirms `sub` (and every other PENDING submission of the same form and number): activates the
   * contact, applies the data and groups when the form says so, then — in one transaction — sets
   * CONFIRMED and fires form_optin_confirmed. Only the call that moves the submission from
   * PENDING fires the event, so it fires once. Returns whether this call confirmed it.
   */
  private async confirmSubmission(form: FormsTable, sub: FormSubmissionsTable): Promise<boolean> {
    const data = parseJson<SubmissionData>(sub.data, { phone: `+${sub.phone}`, firstName: null, email: null, customFields: [] });
    let applied = form.apply_data === 1;
    let contactId: string;
    try {
      contactId = await this.applyToContact(form, sub, data, applied);
    } catch (err) {
      // Data the address book refuses (rules changed since the submission) must not block the
      // opt-in itself: the contact is activated and the event says dataApplied: false.
      if (!applied || !isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      this.d.logger.warn({ formId: form.id, submissionId: sub.id, err: err.message }, 'form data could not be applied to the contact');
      applied = false;
      contactId = await this.applyToContact(form, sub, data, false);
    }
    const now = this.d.clock.now();
    return inTransaction(this.d.db, async (tx) => {
      const res = await tx
        .updateTable('form_submissions')
        .set({ status: 'CONFIRMED', confirmed_at: now, data_applied: applied ? 1 : 0, contact_id: contactId })
        .where('id', '=', sub.id)
        .where('status', '=', 'PENDING')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      // Older pending submissions of the number are settled by the same confirmation (no event of their own).
      await tx
        .updateTable('form_submissions')
        .set({ status: 'CONFIRMED', confirmed_at: now })
        .where('form_id', '=', form.id)
        .where('phone', '=', sub.phone)
        .where('status', '=', 'PENDING')
        .where('submitted_at', '<=', sub.submitted_at)
        .execute();
      const confirmed: FormSubmissionsTable = { ...sub, status: 'CONFIRMED', confirmed_at: now, data_applied: applied ? 1 : 0, contact_id: contactId };
      await this.d.webhooks.emit(tx, form.account_id, 'form_optin_confirmed', this.eventBody(form, confirmed), this.target(form));
      return true;
    });
  }

  /**
   * Activates the contact and (applyData) writes name, email, custom fields and groups through the
   * address book's services. Idempotent, so a crash before the confirmation commits is repaired by
   * confirming again. A contact deleted meanwhile is created again. Returns the contact id.
   */
  private async applyToContact(form: FormsTable, sub: FormSubmissionsTable, data: SubmissionData, applyData: boolean): Promise<string> {
    const accountId = form.account_id;
    let values: Array<{ fieldId: string; value: string }> = [];
    let groupIds: string[] = [];
    if (applyData) {
      const ids = data.customFields.map((f) => f.id);
      const existing = ids.length ? new Set((await this.d.db.selectFrom('custom_fields').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute()).map((r) => r.id)) : new Set<string>();
      values = data.customFields.filter((f) => existing.has(f.id)).map((f) => ({ fieldId: f.id, value: f.value }));
      const wanted = parseJson<string[]>(form.group_ids, []);
      groupIds = wanted.length ? (await this.d.db.selectFrom('contact_groups').select('id').where('account_id', '=', accountId).where('id', 'in', wanted).execute()).map((r) => r.id) : [];
    }
    const patch = {
      disabled: false,
      ...(applyData && data.firstName ? { firstName: data.firstName } : {}),
      ...(applyData && data.email ? { email: data.email } : {}),
      ...(values.length ? { customFields: values } : {}),
    };
    let contactId = sub.contact_id;
    try {
      await this.d.contacts.update(accountId, contactId, patch);
    } catch (err) {
      if (!isAppError(err) || err.code !== 'NOT_FOUND') throw err;
      contactId = (await this.findContact(accountId, `+${sub.phone}`)) ?? (await this.d.contacts.create(accountId, { phone: `+${sub.phone}` })).id;
      await this.d.contacts.update(accountId, contactId, patch);
    }
    for (const g of groupIds) await this.d.groups.addContacts(accountId, g, { contactIds: [contactId] });
    return contactId;
  }
}
