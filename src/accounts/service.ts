import { creditsToMilli, type PriceList } from '../billing/pricing.js';
import type { BillingService } from '../billing/service.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { fromBool, parseJson, toBool } from '../platform/db/sql.js';
import type { Selectable, Updateable } from 'kysely';
import type { AccountsTable } from './tables.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { DEFAULT_PRICES } from '../billing/default-prices.js';
import { parseOrThrow } from '../platform/validation.js';
import { AccountSettingsSchema, FORM_CONFIRMATION_LIMIT_DEFAULTS, type Account, type AccountSettingsInput, type CompanyProfile } from './schemas.js';
import { isValidIanaZone } from './timezone.js';
import type { WindowSpec } from '../schedule/quiet-hours.js';
import { readReplyTexts, replyLanguageOf, REPLY_KINDS, REPLY_LANGUAGES, type ConsentReplyTexts } from './reply-texts.js';

export interface CreateAccountInput {
  name: string;
  timezone?: string;
  credits?: number;
  companyProfile?: CompanyProfile;
}

/** Price list of one account (src/billing/pricing.ts decides what a message costs from it). */
export type { PriceList };

const toAccount = (row: Selectable<AccountsTable>): Account => ({
  id: row.id,
  name: row.name,
  timezone: row.timezone,
  approvalRequired: toBool(row.approval_required),
  credits: row.credits_milli / 1000,
  unsubscribeUrl: row.unsubscribe_url,
  companyProfile: parseJson<CompanyProfile>(row.company_profile, {}),
  formConfirmationLimits: {
    perFormPerHour: Number(row.form_confirmations_form_hour),
    perFormPerDay: Number(row.form_confirmations_form_day),
    perAccountPerHour: Number(row.form_confirmations_account_hour),
    perAccountPerDay: Number(row.form_confirmations_account_day),
  },
  optOutConfirmation: toBool(row.opt_out_confirmation),
  optOutConfirmationText: row.opt_out_confirmation_text,
  consentReplyLanguage: replyLanguageOf(row.consent_reply_language),
  consentReplyTexts: replyTextsOf(row),
  quietHours: toBool(row.quiet_hours),
  quietHoursWindows: parseJson<Record<string, WindowSpec>>(row.quiet_hours_windows, {}),
  active: toBool(row.active),
  createdAt: toIso(row.created_at)!,
});

/** The account's own reply texts, the English confirmation (opt_out_confirmation_text) among them. */
function replyTextsOf(row: Pick<Selectable<AccountsTable>, 'consent_reply_texts' | 'opt_out_confirmation_text'>): ConsentReplyTexts {
  const stored = readReplyTexts(row.consent_reply_texts);
  const { en: _ignored, ...confirmation } = stored.confirmation;
  return { confirmation: row.opt_out_confirmation_text ? { en: row.opt_out_confirmation_text, ...confirmation } : confirmation, help: stored.help };
}

export interface AccountsDeps {
  db: Db;
  clock: Clock;
  /** Writes balances for this service (a new account's credits, credits:set): src/billing/ is their only writer. */
  billing: Pick<BillingService, 'openAccount' | 'setCredits'>;
}

export class AccountsService {
  constructor(private readonly d: AccountsDeps) {}

  async create(input: CreateAccountInput, tx?: DbOrTx): Promise<Account> {
    const timezone = input.timezone ?? 'UTC';
    if (!isValidIanaZone(timezone)) throw new AppError('VALIDATION_ERROR', `Unknown time zone ${timezone}`);
    const credits = input.credits ?? 0;
    if (!Number.isFinite(credits) || credits < 0) throw new AppError('VALIDATION_ERROR', 'Credits must be a non-negative number');
    const row = {
      id: newId('acc'),
      name: input.name,
      timezone,
      approval_required: 1,
      unsubscribe_url: null,
      company_profile: JSON.stringify(input.companyProfile ?? {}),
      active: 1,
      created_at: this.d.clock.now(),
      form_confirmations_form_hour: FORM_CONFIRMATION_LIMIT_DEFAULTS.perFormPerHour,
      form_confirmations_form_day: FORM_CONFIRMATION_LIMIT_DEFAULTS.perFormPerDay,
      form_confirmations_account_hour: FORM_CONFIRMATION_LIMIT_DEFAULTS.perAccountPerHour,
      form_confirmations_account_day: FORM_CONFIRMATION_LIMIT_DEFAULTS.perAccountPerDay,
      opt_out_confirmation: 1,
      opt_out_confirmation_text: null,
      quiet_hours: 0,
      quiet_hours_windows: null,
      consent_reply_language: null,
      consent_reply_texts: null,
    };
    // The balance starts at 0 and the starting credits are a ledger entry, in the same transaction.
    const write = async (t: DbOrTx) => {
      await t.insertInto('accounts').values(row).execute();
      await t
        .insertInto('prices')
        .values(Object.entries(DEFAULT_PRICES).map(([country, p]) => ({ account_id: row.id, country, rcs_price_milli: p.rcs, sms_price_milli: p.sms })))
        .execute();
      await this.d.billing.openAccount(t, row.id, credits);
    };
    if (tx) await write(tx);
    else await inTransaction(this.d.db, write);
    return toAccount({ ...row, credits_milli: creditsToMilli(credits) });
  }

  /** Inside a transaction pass `tx`: SQLite has one connection, so a query on `db` would wait for the transaction forever. */
  async get(id: string, tx: DbOrTx = this.d.db): Promise<Account> {
    const row = await tx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Account');
    return toAccount(row);
  }

  async list(): Promise<Account[]> {
    const rows = await this.d.db.selectFrom('accounts').selectAll().orderBy('id').execute();
    return rows.map(toAccount);
  }

  /** 400 VALIDATION_ERROR for input the settings schema refuses (the console validates first; other callers may not). */
  async updateSettings(id: string, raw: AccountSettingsInput): Promise<Account> {
    const input = parseOrThrow(AccountSettingsSchema, raw, 'Settings');
    const patch: Updateable<AccountsTable> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.timezone !== undefined) patch.timezone = input.timezone;
    if (input.approvalRequired !== undefined) patch.approval_required = fromBool(input.approvalRequired);
    if (input.unsubscribeUrl !== undefined) patch.unsubscribe_url = input.unsubscribeUrl;
    if (input.companyProfile !== undefined) patch.company_profile = JSON.stringify(input.companyProfile);
    const limits = input.formConfirmationLimits;
    if (limits?.perFormPerHour !== undefined) patch.form_confirmations_form_hour = limits.perFormPerHour;
    if (limits?.perFormPerDay !== undefined) patch.form_confirmations_form_day = limits.perFormPerDay;
    if (limits?.perAccountPerHour !== undefined) patch.form_confirmations_account_hour = limits.perAccountPerHour;
    if (limits?.perAccountPerDay !== undefined) patch.form_confirmations_account_day = limits.perAccountPerDay;
    if (input.optOutConfirmation !== undefined) patch.opt_out_confirmation = fromBool(input.optOutConfirmation);
    if (input.optOutConfirmationText !== undefined) patch.opt_out_confirmation_text = input.optOutConfirmationText === null || input.optOutConfirmationText === '' ? null : input.optOutConfirmationText;
    if (input.consentReplyLanguage !== undefined) patch.consent_reply_language = input.consentReplyLanguage === null || input.consentReplyLanguage === 'en' ? null : input.consentReplyLanguage;
    if (input.quietHours !== undefined) patch.quiet_hours = fromBool(input.quietHours);
    if (input.quietHoursWindows !== undefined) {
      const w = input.quietHoursWindows;
      patch.quiet_hours_windows = w === null || Object.keys(w).length === 0 ? null : JSON.stringify(Object.fromEntries(Object.keys(w).sort().map((k) => [k, w[k]!])));
    }
    const texts = input.consentReplyTexts;
    const write = async (t: DbOrTx) => {
      if (texts !== undefined) {
        // Per language: a text sets it, null or blank removes it, a language not named keeps its text.
        await lockForTransaction(t, 'accountReplyTexts', [id]);
        const row = await t.selectFrom('accounts').select('consent_reply_texts').where('id', '=', id).executeTakeFirst();
        if (!row) throw notFound('Account');
        const next = readReplyTexts(row.consent_reply_texts);
        const merged: Record<string, Record<string, string>> = {};
        for (const kind of REPLY_KINDS) {
          const own: Record<string, string> = { ...next[kind] };
          if (kind === 'confirmation') delete own.en;
          for (const lang of REPLY_LANGUAGES) {
            const v = texts[kind]?.[lang];
            if (v === undefined) continue;
            // The English confirmation is opt_out_confirmation_text (issue #28's setting, same meaning).
            if (kind === 'confirmation' && lang === 'en') patch.opt_out_confirmation_text = v === null || v === '' ? null : v;
            else if (v === null || v === '') delete own[lang];
            else own[lang] = v;
          }
          merged[kind] = Object.fromEntries(REPLY_LANGUAGES.filter((l) => own[l] !== undefined).map((l) => [l, own[l]!]));
        }
        patch.consent_reply_texts = Object.keys(merged.confirmation!).length + Object.keys(merged.help!).length === 0 ? null : JSON.stringify(merged);
      }
      if (Object.keys(patch).length > 0) {
        const res = await t.updateTable('accounts').set(patch).where('id', '=', id).executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) throw notFound('Account');
      }
    };
    // Read, merge and write in one transaction, so two changes of different languages both stay.
    if (texts !== undefined) await inTransaction(this.d.db, write);
    else await write(this.d.db);
    return this.get(id);
  }

  /** Sets the balance (an operator's `credits:set`); the billing ledger records it as an adjustment with the reason. */
  async setCredits(id: string, credits: number, reason = 'Balance set by an operator'): Promise<Account> {
    await this.d.billing.setCredits(id, credits, reason);
    return this.get(id);
  }

  async priceList(accountId: string, tx: DbOrTx = this.d.db): Promise<PriceList> {
    const rows = await tx.selectFrom('prices').selectAll().where('account_id', '=', accountId).execute();
    return new Map(rows.map((r) => [r.country, { rcs: r.rcs_price_milli, sms: r.sms_price_milli }]));
  }

  /** Sets (or with null removes) one country's prices, in credits. */
  async setPrice(accountId: string, country: string, price: { rcs: number; sms: number } | null): Promise<void> {
    const cc = country.toUpperCase();
    if (!/^[A-Z]{2}$/.test(cc)) throw new AppError('VALIDATION_ERROR', `Country must be an ISO 3166-1 alpha-2 code, got ${country}`);
    await this.get(accountId);
    if (price === null) {
      await this.d.db.deleteFrom('prices').where('account_id', '=', accountId).where('country', '=', cc).execute();
      return;
    }
    for (const v of [price.rcs, price.sms]) {
      if (!Number.isFinite(v) || v < 0) throw new AppError('VALIDATION_ERROR', 'Prices must be non-negative numbers');
    }
    const values = { account_id: accountId, country: cc, rcs_price_milli: Math.round(price.rcs * 1000), sms_price_milli: Math.round(price.sms * 1000) };
    await this.d.db
      .insertInto('prices')
      .values(values)
      .onConflict((oc) => oc.columns(['account_id', 'country']).doUpdateSet({ rcs_price_milli: values.rcs_price_milli, sms_price_milli: values.sms_price_milli }))
      .execute();
  }
}
