import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import type { FieldsService } from '../fields/service.js';
import type { GroupsService } from '../groups/service.js';
import type { Logger } from '../platform/logger.js';
import type { SendersService } from '../senders/service.js';
import { assertSessionCsrf } from '../accounts/session-middleware.js';
import { AppError, isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { FormDetailPage, FormsPage, type EditorChoices, type FormEditorValues } from './console-page.js';
import { DEFAULT_CONFIRMATION_MESSAGE, type CreateFormInput, type Form, type UpdateFormInput } from './schemas.js';
import type { FormsService } from './service.js';
import { field, fieldList } from '../platform/http/form-fields.js';
import { loggedIn } from '../platform/http/logged-in.js';

const NOTICES: Record<string, string> = { created: 'Form created.', saved: 'Form saved.', deleted: 'The form was deleted.' };

const EMPTY: FormEditorValues = {
  name: '',
  slug: '',
  title: '',
  description: '',
  firstName: 'optional',
  email: 'optional',
  customFields: [],
  groups: [],
  doubleOptIn: true,
  sendernameId: '',
  message: '',
  applyData: true,
  consentText: '',
  webhookUrl: '',
  active: true,
};

function valuesOf(f: Form): FormEditorValues {
  return {
    name: f.name,
    slug: f.slug,
    title: f.title ?? '',
    description: f.description ?? '',
    firstName: f.fields.firstName,
    email: f.fields.email,
    customFields: f.fields.customFields.map((c) => ({ fieldId: c.fieldId, required: c.required })),
    groups: f.groups,
    doubleOptIn: f.doubleOptIn,
    sendernameId: f.confirmation?.sendernameId ?? '',
    message: f.confirmation?.message ?? '',
    applyData: f.applyData,
    consentText: f.consentText ?? '',
    webhookUrl: f.webhook?.url ?? '',
    active: f.active,
  };
}

function valuesFrom(req: Request): FormEditorValues {
  const required = new Set(fieldList(req, 'cfreq'));
  return {
    name: field(req, 'name').trim(),
    slug: field(req, 'slug').trim(),
    title: field(req, 'title').trim(),
    description: field(req, 'description').trim(),
    firstName: field(req, 'firstName') || 'optional',
    email: field(req, 'email') || 'optional',
    customFields: fieldList(req, 'cf').map((id) => ({ fieldId: id, required: required.has(id) })),
    groups: fieldList(req, 'groups'),
    doubleOptIn: field(req, 'doubleOptIn') === 'on',
    sendernameId: field(req, 'sendernameId'),
    message: field(req, 'message').trim(),
    applyData: field(req, 'applyData') === 'on',
    consentText: field(req, 'consentText').trim(),
    webhookUrl: field(req, 'webhookUrl').trim(),
    active: field(req, 'active') === 'on',
  };
}

function inputOf(v: FormEditorValues): CreateFormInput & UpdateFormInput {
  const nul = (s: string) => (s === '' ? null : s);
  return {
    name: v.name,
    ...(v.slug ? { slug: v.slug } : {}),
    title: nul(v.title),
    description: nul(v.description),
    fields: { firstName: v.firstName as 'off', email: v.email as 'off', customFields: v.customFields },
    groups: v.groups,
    doubleOptIn: v.doubleOptIn,
    ...(v.sendernameId ? { confirmation: { sendernameId: v.sendernameId, ...(v.message ? { message: v.message } : {}) } } : {}),
    applyData: v.applyData,
    consentText: nul(v.consentText),
    webhookUrl: nul(v.webhookUrl),
    active: v.active,
  };
}

const problemOf = (err: unknown): string => {
  if (!isAppError(err) || !['VALIDATION_ERROR', 'CONFLICT', 'NOT_FOUND', 'SENDER_NOT_APPROVED'].includes(err.code)) throw err;
  const d = err.details?.[0];
  return d ? `${d.path ? `${d.path}: ` : ''}${d.message}` : err.message;
};

/**
 * The console's forms pages (mounted at /console/forms behind the console frame's requireLogin, src/app.ts):
 * list, create, edit, submissions, delete. Every POST carries the session's CSRF token.
 */
export function formsConsole({ accounts, forms, fields, groups, senders, logger }: { accounts: AccountsService; forms: FormsService; fields: FieldsService; groups: GroupsService; senders: SendersService; logger: Logger }): Router {
  const router = Router();

  const who = (req: Request) => {
    const s = loggedIn(req);
    return { user: { email: s.user.email, csrfToken: s.csrfToken }, accountId: s.accountId };
  };
  const choicesFor = async (accountId: string): Promise<EditorChoices> => {
    const [f, g, s] = await Promise.all([fields.list(accountId, { limit: 200 }), groups.list(accountId, { limit: 200 }), senders.list(accountId, 'SMS')]);
    return {
      fields: f.data.map((x) => ({ id: x.id, name: x.name, tag: x.tag })),
      groups: g.data.map((x) => ({ id: x.id, name: x.name })),
      senders: s.filter((x) => x.status === 'APPROVED').map((x) => ({ id: x.id, name: x.name })),
      defaultMessage: DEFAULT_CONFIRMATION_MESSAGE,
    };
  };
  const notice = (req: Request) => (typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined);
  const idOf = (req: Request): string => {
    const id = String(req.params.id);
    if (!isId('frm', id)) throw new AppError('NOT_FOUND', 'Form not found');
    return id;
  };

  const listPage = async (req: Request, res: Response, values: FormEditorValues = EMPTY, error?: string, status = 200) => {
    const { user, accountId } = who(req);
    const [account, list, choices] = await Promise.all([accounts.get(accountId), forms.list(accountId, { limit: 200 }), choicesFor(accountId)]);
    sendPage(res, h(FormsPage, { user, accountName: account.name, timezone: account.timezone, forms: list.data, choices, values, error, notice: notice(req) }), status);
  };

  const detailPage = async (req: Request, res: Response, id: string, values?: FormEditorValues, error?: string, status = 200) => {
    const { user, accountId } = who(req);
    const [account, form, subs, choices] = await Promise.all([accounts.get(accountId), forms.get(accountId, id), forms.submissions(accountId, id, { limit: 50 }), choicesFor(accountId)]);
    sendPage(
      res,
      h(FormDetailPage, { user, accountName: account.name, timezone: account.timezone, form, submissions: subs.data, choices, values: values ?? valuesOf(form), error, notice: notice(req) }),
      status,
    );
  };

  router.get('/', (req, res) => listPage(req, res));

  router.post('/', async (req, res) => {
    const s = assertSessionCsrf(req);
    const values = valuesFrom(req);
    let created: Form;
    try {
      created = await forms.create(s.accountId, inputOf(values));
    } catch (err) {
      return listPage(req, res, values, problemOf(err), 400);
    }
    logger.info({ accountId: s.accountId, userId: s.user.id, formId: created.id }, 'form created in console');
    res.redirect(303, `/console/forms/${created.id}?done=created`);
  });

  router.get('/:id', (req, res) => detailPage(req, res, idOf(req)));

  router.post('/:id', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    const values = valuesFrom(req);
    try {
      const input = inputOf(values);
      await forms.update(s.accountId, id, { ...input, ...(values.sendernameId ? {} : { confirmation: null }), ...(values.slug ? {} : { slug: undefined }) });
    } catch (err) {
      return detailPage(req, res, id, values, problemOf(err), 400);
    }
    res.redirect(303, `/console/forms/${id}?done=saved`);
  });

  router.post('/:id/delete', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    await forms.delete(s.accountId, id);
    res.redirect(303, '/console/forms?done=deleted');
  });

  return router;
}
