import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { BudgetsService } from '../billing/budgets.js';
import { limitsOfForm } from '../billing/limits-form.js';
import { AppError, isAppError } from '../platform/errors.js';
import { field, fieldList } from '../platform/http/form-fields.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { PERMISSIONS, PermissionSchema, permissionDescription, type Permission } from '../platform/permissions.js';
import { listTimezones } from '../schedule/timezones.js';
import { formatWindowLines, parseWindowLines } from '../schedule/quiet-hours.js';
import type { ApiKeysService } from './api-keys.js';
import { ApiKeysPage } from './api-keys-page.js';
import { REPLY_KINDS, REPLY_LANGUAGES } from './reply-texts.js';
import { AccountSettingsSchema, COMPANY_FIELDS, FORM_CONFIRMATION_LIMIT_DEFAULTS, type CompanyField, type CompanyProfile, type FormConfirmationLimitName } from './schemas.js';
import type { AccountsService } from './service.js';
import { assertSessionCsrf } from './session-middleware.js';
import { limitInput, replyInput, SettingsPage, type SettingsForm } from './settings-page.js';
import { loggedIn } from '../platform/http/logged-in.js';

/*
 * The account's own console pages: its API keys (/console/api-keys) and its settings (/console/settings). Each is a
 * router mounted at its path behind the console frame's requireLogin (src/app.ts); every POST carries the session's
 * CSRF token, every query is scoped to the session's account.
 */

const who = (req: Request) => {
  const s = loggedIn(req);
  return { user: { email: s.user.email, csrfToken: s.csrfToken }, accountId: s.accountId, userId: s.user.id };
};

// ---- API keys ------------------------------------------------------------------------------

/** Fixed confirmations selected by ?done=…; nothing from the request is echoed. */
const KEY_NOTICES: Record<string, string> = {
  'key-revoked': 'The API key was revoked. Requests with it now get 401.',
  'limits-saved': 'Limits saved. They hold from the next send or preview.',
};
const PERMISSION_CHOICES = PERMISSIONS.map((p) => ({ value: p, description: permissionDescription(p) }));

export interface ApiKeysConsoleDeps {
  accounts: Pick<AccountsService, 'get'>;
  apiKeys: Pick<ApiKeysService, 'list' | 'create' | 'revoke'>;
  /** Budgets per key: their limits and use (issue #29). */
  budgets: Pick<BudgetsService, 'overview' | 'setLimits'>;
  logger: Logger;
}

/** The API keys page (/console/api-keys): the keys with their budgets, create (the secret shown once), limits, revoke. */
export function apiKeysConsole({ accounts, apiKeys, budgets, logger }: ApiKeysConsoleDeps): Router {
  const router = Router();

  const keysPage = async (
    req: Request,
    res: Response,
    extra: { created?: Awaited<ReturnType<typeof apiKeys.create>>; error?: string; limitsError?: string; form?: { name: string; permissions: string[]; sendsNeedApproval: boolean; dailyCredits: string; maxRecipients: string } } = {},
    status = 200,
  ) => {
    const { user, accountId } = who(req);
    const [account, keys] = await Promise.all([accounts.get(accountId), apiKeys.list(accountId)]);
    const keyBudgets = await budgets.overview(accountId, keys.filter((k) => k.revokedAt === null).map((k) => k.id));
    sendPage(
      res,
      h(ApiKeysPage, {
        user,
        accountName: account.name,
        timezone: account.timezone,
        keys,
        budgets: keyBudgets,
        limitsError: extra.limitsError,
        permissions: PERMISSION_CHOICES,
        created: extra.created,
        error: extra.error,
        form: extra.form,
        notice: typeof req.query.done === 'string' ? KEY_NOTICES[req.query.done] : undefined,
      }),
      status,
    );
  };

  router.get('/', (req, res) => keysPage(req, res));

  router.post('/', async (req, res) => {
    const s = assertSessionCsrf(req);
    const name = field(req, 'name');
    const chosen = fieldList(req, 'permissions');
    const permissions = chosen.filter((p): p is Permission => PermissionSchema.safeParse(p).success);
    const sendsNeedApproval = field(req, 'sendsNeedApproval') !== '';
    const limitFields = { dailyCredits: field(req, 'dailyCredits'), maxRecipients: field(req, 'maxRecipients') };
    try {
      if (permissions.length !== chosen.length) throw new AppError('VALIDATION_ERROR', 'Unknown permission');
      // Checked before the key exists: a refused limit creates nothing.
      const limits = limitsOfForm(req);
      const created = await apiKeys.create(s.accountId, name, permissions, { sendsNeedApproval });
      if (limits.dailyCredits !== null || limits.maxRecipients !== null) await budgets.setLimits(s.accountId, { id: created.info.id, kind: 'key' }, limits);
      logger.info({ accountId: s.accountId, userId: s.user.id, keyId: created.info.id, sendsNeedApproval, limits }, 'api key created in console');
      // The secret is rendered into this response only (no redirect: nothing keeps it for a later page).
      await keysPage(req, res, { created }, 201);
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await keysPage(req, res, { error: err.message, form: { name, permissions: chosen, sendsNeedApproval, ...limitFields } }, 400);
    }
  });

  router.post('/:id/limits', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('key', id)) throw new AppError('NOT_FOUND', 'API key not found');
    try {
      const limits = await budgets.setLimits(s.accountId, { id, kind: 'key' }, limitsOfForm(req));
      logger.info({ accountId: s.accountId, userId: s.user.id, keyId: id, limits }, 'api key limits changed in console');
      res.redirect(303, '/console/api-keys?done=limits-saved');
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await keysPage(req, res, { limitsError: err.message }, 400);
    }
  });

  router.post('/:id/revoke', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('key', id)) throw new AppError('NOT_FOUND', 'API key not found');
    await apiKeys.revoke(s.accountId, id);
    logger.info({ accountId: s.accountId, userId: s.user.id, keyId: id }, 'api key revoked in console');
    res.redirect(303, '/console/api-keys?done=key-revoked');
  });

  return router;
}

// ---- Settings ------------------------------------------------------------------------------

const SETTINGS_NOTICES: Record<string, string> = { 'settings-saved': 'Settings saved.' };

const COMPANY_LABELS: Record<CompanyField, string> = {
  company_name: 'Company name',
  company_email: 'Company email',
  company_phone: 'Company phone',
  company_website: 'Website',
  company_address: 'Address',
  company_city: 'City',
  company_country: 'Country',
  contact_person: 'Contact person',
  business_first_name: 'Business contact first name',
  business_last_name: 'Business contact last name',
  gdpr_email: 'Privacy (GDPR) email',
  gdpr_phone: 'Privacy (GDPR) phone',
};
const COMPANY_FORM_FIELDS = COMPANY_FIELDS.map((f) => ({ field: f, label: COMPANY_LABELS[f] }));
const LIMIT_NAMES = Object.keys(FORM_CONFIRMATION_LIMIT_DEFAULTS) as FormConfirmationLimitName[];

export interface SettingsConsoleDeps {
  accounts: Pick<AccountsService, 'get' | 'updateSettings'>;
  /** Today's time zones (their offsets) for the time zone choice. */
  clock: Clock;
  logger: Logger;
}

/** The settings page (/console/settings): name, time zone, approval, company profile, form and opt-out limits, quiet hours. */
export function settingsConsole({ accounts, clock, logger }: SettingsConsoleDeps): Router {
  const router = Router();
  const timezoneNames = (now: number) => listTimezones(now).map((z) => z.timeZone);

  router.get('/', async (req, res) => {
    const { user, accountId } = who(req);
    const account = await accounts.get(accountId);
    const form: SettingsForm = {
      name: account.name,
      timezone: account.timezone,
      approvalRequired: account.approvalRequired,
      unsubscribeUrl: account.unsubscribeUrl ?? '',
      companyProfile: account.companyProfile,
      formConfirmationLimits: Object.fromEntries(LIMIT_NAMES.map((k) => [k, String(account.formConfirmationLimits[k])])) as SettingsForm['formConfirmationLimits'],
      optOutConfirmation: account.optOutConfirmation,
      optOutConfirmationText: account.optOutConfirmationText ?? '',
      consentReplyLanguage: account.consentReplyLanguage,
      replyTexts: { confirmation: account.consentReplyTexts.confirmation, help: account.consentReplyTexts.help },
      quietHours: account.quietHours,
      quietHoursWindows: formatWindowLines(account.quietHoursWindows),
    };
    const notice = typeof req.query.done === 'string' ? SETTINGS_NOTICES[req.query.done] : undefined;
    sendPage(res, h(SettingsPage, { user, accountName: account.name, form, timezones: timezoneNames(clock.now()), companyFields: COMPANY_FORM_FIELDS, notice }));
  });

  router.post('/', async (req, res) => {
    const s = assertSessionCsrf(req);
    const companyProfile: CompanyProfile = {};
    for (const f of COMPANY_FIELDS) {
      const v = field(req, `profile_${f}`).trim();
      if (v !== '') companyProfile[f] = v;
    }
    // Typed as text; an empty box leaves that limit as it is, anything that is no whole number is refused by the schema.
    const formConfirmationLimits = Object.fromEntries(LIMIT_NAMES.map((k) => [k, field(req, limitInput(k)).trim()])) as SettingsForm['formConfirmationLimits'];
    // The reply texts the page posted (a language's box that is not in the body leaves that text as it is).
    const posted = (name: string) => typeof (req.body as Record<string, unknown> | undefined)?.[name] === 'string';
    const replyTexts: SettingsForm['replyTexts'] = { confirmation: {}, help: {} };
    for (const kind of REPLY_KINDS) {
      for (const lang of REPLY_LANGUAGES) {
        const name = replyInput(kind, lang);
        if (name !== 'optOutConfirmationText' && posted(name)) replyTexts[kind][lang] = field(req, name).trim();
      }
    }
    const form: SettingsForm = {
      name: field(req, 'name').trim(),
      timezone: field(req, 'timezone').trim(),
      approvalRequired: field(req, 'approvalRequired') === 'on',
      unsubscribeUrl: field(req, 'unsubscribeUrl').trim(),
      companyProfile,
      formConfirmationLimits,
      optOutConfirmation: field(req, 'optOutConfirmation') === 'on',
      optOutConfirmationText: field(req, 'optOutConfirmationText').trim(),
      consentReplyLanguage: field(req, 'consentReplyLanguage').trim() || 'en',
      replyTexts,
      quietHours: field(req, 'quietHours') === 'on',
      quietHoursWindows: field(req, 'quietHoursWindows').trim(),
    };
    const windows = parseWindowLines(form.quietHoursWindows);
    const parsed = AccountSettingsSchema.safeParse({
      name: form.name,
      timezone: form.timezone,
      approvalRequired: form.approvalRequired,
      unsubscribeUrl: form.unsubscribeUrl === '' ? null : form.unsubscribeUrl,
      companyProfile,
      formConfirmationLimits: Object.fromEntries(LIMIT_NAMES.flatMap((k) => (formConfirmationLimits[k] === '' ? [] : [[k, Number(formConfirmationLimits[k])]]))),
      optOutConfirmation: form.optOutConfirmation,
      optOutConfirmationText: form.optOutConfirmationText === '' ? null : form.optOutConfirmationText,
      // Not posted: kept, like a reply text's box.
      consentReplyLanguage: posted('consentReplyLanguage') ? form.consentReplyLanguage : undefined,
      consentReplyTexts: Object.fromEntries(REPLY_KINDS.map((k) => [k, Object.fromEntries(Object.entries(replyTexts[k]).map(([l, v]) => [l, v === '' ? null : v]))])),
      quietHours: form.quietHours,
      quietHoursWindows: windows.windows,
    });
    if (!parsed.success || windows.errors.length > 0) {
      const account = await accounts.get(s.accountId);
      const errors = [
        ...windows.errors.map((message) => ({ field: 'quietHoursWindows', message })),
        ...(parsed.success ? [] : parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message }))),
      ];
      return sendPage(
        res,
        h(SettingsPage, { user: { email: s.user.email, csrfToken: s.csrfToken }, accountName: account.name, form, timezones: timezoneNames(clock.now()), companyFields: COMPANY_FORM_FIELDS, errors }),
        400,
      );
    }
    await accounts.updateSettings(s.accountId, parsed.data);
    logger.info({ accountId: s.accountId, userId: s.user.id, approvalRequired: parsed.data.approvalRequired, formConfirmationLimits: parsed.data.formConfirmationLimits, quietHours: parsed.data.quietHours, quietHoursWindows: parsed.data.quietHoursWindows }, 'account settings changed in console');
    res.redirect(303, '/console/settings?done=settings-saved');
  });

  return router;
}
