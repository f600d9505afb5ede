import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { ApiKeysService } from '../accounts/api-keys.js';
import type { AccountsService } from '../accounts/service.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { SendersService } from '../senders/service.js';
import type { OAuthService } from '../../oauth/service.js';
import { parseLimitInput, USAGE_DAYS, type BudgetsService, type LimitsChange } from '../billing/budgets.js';
import { UsagePage } from '../billing/budget-page.js';
import { assertSessionCsrf, requireLogin } from '../accounts/session-middleware.js';
import { AccountSettingsSchema, COMPANY_FIELDS, FORM_CONFIRMATION_LIMIT_DEFAULTS, type CompanyField, type CompanyProfile, type FormConfirmationLimitName } from '../accounts/schemas.js';
import { AppError, isAppError } from '../platform/errors.js';
import { sendPage, type PageLocalValues } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { PERMISSIONS, PermissionSchema, type Permission } from '../platform/permissions.js';
import { listTimezones } from '../schedule/timezones.js';
import { formatWindowLines, parseWindowLines } from '../schedule/quiet-hours.js';
import { scopeDescription } from '../../oauth/constants.js';
import { ApiKeysPage } from '../accounts/api-keys-page.js';
import { AppsPage } from '../../oauth/apps-page.js';
import { OverviewPage } from './overview-page.js';
import { SendersPage, type ConsentWordsError } from '../senders/console-page.js';
import { limitInput, SettingsPage, type SettingsForm } from '../accounts/settings-page.js';
import { WebhooksPlaceholderPage } from '../webhooks/console-page.js';
import type { ConsoleSources } from './sources.js';
import { field, fieldList } from '../platform/http/form-fields.js';

/** Fixed confirmations selected by ?done=…; nothing from the request is echoed. */
const NOTICES: Record<string, string> = {
  'key-revoked': 'The API key was revoked. Requests with it now get 401.',
  'app-revoked': 'The app’s access was revoked. It has to be authorized again to connect.',
  'settings-saved': 'Settings saved.',
  'consent-words-saved': 'The sender’s consent words were saved. Replies from now on are read with them.',
  'limits-saved': 'Limits saved. They hold from the next send or preview.',
};
const noticeOf = (req: Request): string | undefined => (typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined);

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
const PERMISSION_CHOICES = PERMISSIONS.map((p) => ({ value: p, description: scopeDescription(p) }));

/** What the console's own pages use; other areas' pages come in as ConsoleSources. */
export interface ConsoleDeps {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  senders: SendersService;
  oauth: OAuthService;
  /** Budgets per credential: the keys' and apps' limits and use (issue #29). */
  budgets: BudgetsService;
  clock: Clock;
  logger: Logger;
}

/** The limits fields of a console form: empty is no limit. Throws VALIDATION_ERROR naming the field. */
function limitsOf(req: Request): LimitsChange {
  return { dailyCredits: parseLimitInput(field(req, 'dailyCredits'), 'dailyCredits') ?? null, maxRecipients: parseLimitInput(field(req, 'maxRecipients'), 'maxRecipients') ?? null };
}

/**
 * The account console (/console/*) for logged-in people: overview (pending previews, batch
 * progress, recent messages — data from ConsoleSources), API keys, connected OAuth apps, senders
 * (read-only), webhooks (ConsoleSources.webhooks) and settings. Every POST carries the session's
 * CSRF token; every query is scoped to the session's account.
 */
export function consoleRoutes({ accounts, apiKeys, senders, oauth, budgets, clock, logger }: ConsoleDeps, sources: ConsoleSources = {}): Router {
  const router = Router();
  router.use('/console', requireLogin);
  // The count beside the Approvals tab, on every console page (read by ConsoleFrame through sendPage).
  if (sources.approvalsWaiting) {
    const waiting = sources.approvalsWaiting;
    router.use('/console', async (req, res, next) => {
      (res.locals as { page?: PageLocalValues }).page = { approvalsWaiting: await waiting(req.session!.accountId) };
      next();
    });
  }

  const who = (req: Request) => {
    const s = req.session!;
    return { user: { email: s.user.email, csrfToken: s.csrfToken }, accountId: s.accountId, userId: s.user.id };
  };

  router.get('/console', async (req, res) => {
    const { user, accountId } = who(req);
    const [account, keys, apps, senderList, pendingPreviews, recentMessages, batchJobs] = await Promise.all([
      accounts.get(accountId),
      apiKeys.list(accountId),
      oauth.connectedApps.list(accountId),
      senders.list(accountId),
      sources.pendingPreviews ? sources.pendingPreviews(accountId) : Promise.resolve(null),
      sources.recentMessages ? sources.recentMessages(accountId) : Promise.resolve(null),
      sources.batchJobs ? sources.batchJobs(accountId) : Promise.resolve(null),
    ]);
    sendPage(
      res,
      h(OverviewPage, {
        user,
        account: { name: account.name, credits: account.credits, timezone: account.timezone, approvalRequired: account.approvalRequired },
        counts: { activeKeys: keys.filter((k) => k.revokedAt === null).length, connectedApps: apps.length, senders: senderList.length },
        pendingPreviews,
        recentMessages,
        batchJobs,
      }),
    );
  });

  // ---- API keys ----------------------------------------------------------------------------
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
        notice: noticeOf(req),
      }),
      status,
    );
  };

  router.get('/console/api-keys', (req, res) => keysPage(req, res));

  router.post('/console/api-keys', async (req, res) => {
    const s = assertSessionCsrf(req);
    const name = field(req, 'name');
    const chosen = fieldList(req, 'permissions');
    const permissions = chosen.filter((p): p is Permission => PermissionSchema.safeParse(p).success);
    const sendsNeedApproval = field(req, 'sendsNeedApproval') !== '';
    const limitFields = { dailyCredits: field(req, 'dailyCredits'), maxRecipients: field(req, 'maxRecipients') };
    try {
      if (permissions.length !== chosen.length) throw new AppError('VALIDATION_ERROR', 'Unknown permission');
      // Checked before the key exists: a refused limit creates nothing.
      const limits = limitsOf(req);
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

  router.post('/console/api-keys/:id/limits', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('key', id)) throw new AppError('NOT_FOUND', 'API key not found');
    try {
      const limits = await budgets.setLimits(s.accountId, { id, kind: 'key' }, limitsOf(req));
      logger.info({ accountId: s.accountId, userId: s.user.id, keyId: id, limits }, 'api key limits changed in console');
      res.redirect(303, '/console/api-keys?done=limits-saved');
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await keysPage(req, res, { limitsError: err.message }, 400);
    }
  });

  router.post('/console/api-keys/:id/revoke', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('key', id)) throw new AppError('NOT_FOUND', 'API key not found');
    await apiKeys.revoke(s.accountId, id);
    logger.info({ accountId: s.accountId, userId: s.user.id, keyId: id }, 'api key revoked in console');
    res.redirect(303, '/console/api-keys?done=key-revoked');
  });

  // ---- Connected OAuth apps ----------------------------------------------------------------
  const appsPage = async (req: Request, res: Response, limitsError?: string, status = 200) => {
    const { user, accountId } = who(req);
    const [account, apps] = await Promise.all([accounts.get(accountId), oauth.connectedApps.list(accountId)]);
    const appBudgets = await budgets.overview(accountId, [...new Set(apps.map((a) => a.clientId))]);
    sendPage(res, h(AppsPage, { user, accountName: account.name, timezone: account.timezone, apps, budgets: appBudgets, limitsError, notice: noticeOf(req) }), status);
  };

  router.get('/console/apps', (req, res) => appsPage(req, res));

  router.post('/console/apps/limits', async (req, res) => {
    const s = assertSessionCsrf(req);
    const clientId = field(req, 'client_id');
    if (!clientId || clientId.length > 2000) throw new AppError('NOT_FOUND', 'Connected app not found');
    try {
      const limits = await budgets.setLimits(s.accountId, { id: clientId, kind: 'app' }, limitsOf(req));
      logger.info({ accountId: s.accountId, userId: s.user.id, clientId, limits }, 'oauth app limits changed in console');
      res.redirect(303, '/console/apps?done=limits-saved');
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await appsPage(req, res, err.message, 400);
    }
  });

  // ---- One credential's last 30 days (issue #29) -------------------------------------------
  router.get('/console/usage', async (req, res) => {
    const { user, accountId } = who(req);
    const id = typeof req.query.credential === 'string' ? req.query.credential : '';
    const [account, keys, apps] = await Promise.all([accounts.get(accountId), apiKeys.list(accountId), oauth.connectedApps.list(accountId)]);
    const key = isId('key', id) ? keys.find((k) => k.id === id) : undefined;
    const app = key ? undefined : apps.find((a) => a.clientId === id);
    // Another account's key or app, or none: not found, as everywhere.
    if (!key && !app) throw new AppError('NOT_FOUND', 'No API key or connected app of this account has this id');
    const [overview, days] = await Promise.all([budgets.overview(accountId, [id]), budgets.daily(accountId, id, USAGE_DAYS)]);
    sendPage(
      res,
      h(UsagePage, {
        user,
        accountName: account.name,
        active: key ? 'api-keys' : 'apps',
        label: key ? `key “${key.name}”` : `app “${app!.clientName ?? 'Unnamed app'}”`,
        backHref: key ? '/console/api-keys' : '/console/apps',
        budget: overview[id]!,
        days,
      }),
    );
  });

  router.post('/console/apps/revoke', async (req, res) => {
    const s = assertSessionCsrf(req);
    const clientId = field(req, 'client_id');
    const userId = field(req, 'user_id');
    if (!clientId || !isId('usr', userId)) throw new AppError('NOT_FOUND', 'Connected app not found');
    const n = await oauth.connectedApps.revoke(s.accountId, clientId, userId);
    logger.info({ accountId: s.accountId, userId: s.user.id, clientId, tokens: n }, 'oauth app revoked in console');
    res.redirect(303, '/console/apps?done=app-revoked');
  });

  // ---- Senders (approved by the operator) and their consent words ------------------------------
  const sendersPage = async (req: Request, res: Response, error?: ConsentWordsError, status = 200) => {
    const { user, accountId } = who(req);
    const [account, list, consentWords] = await Promise.all([accounts.get(accountId), senders.list(accountId), senders.consentWordsOf(accountId)]);
    sendPage(res, h(SendersPage, { user, accountName: account.name, timezone: account.timezone, senders: list, consentWords, error, notice: noticeOf(req) }), status);
  };

  router.get('/console/senders', (req, res) => sendersPage(req, res));

  router.post('/console/senders/:id/consent-words', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('snd', id)) throw new AppError('NOT_FOUND', 'Sender not found');
    const typed = { optOut: field(req, 'optOut'), optIn: field(req, 'optIn'), help: field(req, 'help') };
    const lines = (v: string) => v.split(/\r?\n/);
    try {
      await senders.setConsentWords(s.accountId, id, { optOut: lines(typed.optOut), optIn: lines(typed.optIn), help: lines(typed.help) });
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await sendersPage(req, res, { senderId: id, typed, problems: (err.details ?? []).map((d) => d.message) }, 400);
      return;
    }
    logger.info({ accountId: s.accountId, userId: s.user.id, senderId: id }, 'consent words of a sender saved in console');
    res.redirect(303, `/console/senders?done=consent-words-saved#consent-${id}`);
  });

  // ---- Webhooks (filled by the webhooks area) ----------------------------------------------
  if (sources.webhooks) {
    router.use('/console/webhooks', sources.webhooks);
  } else {
    router.get('/console/webhooks', async (req, res) => {
      const { user, accountId } = who(req);
      const account = await accounts.get(accountId);
      sendPage(res, h(WebhooksPlaceholderPage, { user, accountName: account.name }));
    });
  }

  // ---- Approvals inbox (filled by the previews area) ------------------------------------------
  if (sources.approvals) router.use('/console/approvals', sources.approvals);

  // ---- Opt-in forms (filled by the forms area) -----------------------------------------------
  if (sources.forms) router.use('/console/forms', sources.forms);

  // ---- Settings ----------------------------------------------------------------------------
  const LIMIT_NAMES = Object.keys(FORM_CONFIRMATION_LIMIT_DEFAULTS) as FormConfirmationLimitName[];
  const timezoneNames = (now: number) => listTimezones(now).map((z) => z.timeZone);

  router.get('/console/settings', async (req, res) => {
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
      quietHours: account.quietHours,
      quietHoursWindows: formatWindowLines(account.quietHoursWindows),
    };
    sendPage(res, h(SettingsPage, { user, accountName: account.name, form, timezones: timezoneNames(clock.now()), companyFields: COMPANY_FORM_FIELDS, notice: noticeOf(req) }));
  });

  router.post('/console/settings', async (req, res) => {
    const s = assertSessionCsrf(req);
    const companyProfile: CompanyProfile = {};
    for (const f of COMPANY_FIELDS) {
      const v = field(req, `profile_${f}`).trim();
      if (v !== '') companyProfile[f] = v;
    }
    // Typed as text; an empty box leaves that limit as it is, anything that is no whole number is refused by the schema.
    const formConfirmationLimits = Object.fromEntries(LIMIT_NAMES.map((k) => [k, field(req, limitInput(k)).trim()])) as SettingsForm['formConfirmationLimits'];
    const form: SettingsForm = {
      name: field(req, 'name').trim(),
      timezone: field(req, 'timezone').trim(),
      approvalRequired: field(req, 'approvalRequired') === 'on',
      unsubscribeUrl: field(req, 'unsubscribeUrl').trim(),
      companyProfile,
      formConfirmationLimits,
      optOutConfirmation: field(req, 'optOutConfirmation') === 'on',
      optOutConfirmationText: field(req, 'optOutConfirmationText').trim(),
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
