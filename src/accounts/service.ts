import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { fromBool, parseJson, toBool } from '../platform/db/sql.js';
import type { AccountsTable } from '../platform/db/tables/foundation.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { DEFAULT_PRICES, type PriceEntry } from './default-prices.js';
import type { Account, AccountSettingsInput, CompanyProfile } from './schemas.js';
import { isValidIanaZone } from './timezone.js';

export interface CreateAccountInput {
  name: string;
  timezone?: string;
  credits?: number;
  companyProfile?: CompanyProfile;
}

/** Price list of one account: ISO country → prices in 1/1000 credit. */
export type PriceList = Map<string, PriceEntry>;

const toAccount = (row: AccountsTable): Account => ({
  id: row.id,
  name: row.name,
  timezone: row.timezone,
  approvalRequired: toBool(row.approval_required),
  credits: row.credits_milli / 1000,
  unsubscribeUrl: row.unsubscribe_url,
  companyProfile: parseJson<CompanyProfile>(row.company_profile, {}),
  active: toBool(row.active),
  createdAt: toIso(row.created_at)!,
});

export class AccountsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateAccountInput, tx: DbOrTx = this.db): Promise<Account> {
    const timezone = input.timezone ?? 'UTC';
    if (!isValidIanaZone(timezone)) throw new AppError('VALIDATION_ERROR', `Unknown time zone ${timezone}`);
    const row: AccountsTable = {
      id: newId('acc'),
      name: input.name,
      timezone,
      approval_required: 1,
      credits_milli: Math.round((input.credits ?? 0) * 1000),
      unsubscribe_url: null,
      company_profile: JSON.stringify(input.companyProfile ?? {}),
      active: 1,
      created_at: this.clock.now(),
    };
    await tx.insertInto('accounts').values(row).execute();
    await tx
      .insertInto('prices')
      .values(Object.entries(DEFAULT_PRICES).map(([country, p]) => ({ account_id: row.id, country, rcs_price_milli: p.rcs, sms_price_milli: p.sms })))
      .execute();
    return toAccount(row);
  }

  /** Inside a transaction pass `tx`: SQLite has one connection, so a query on `db` would wait for the transaction forever. */
  async get(id: string, tx: DbOrTx = this.db): Promise<Account> {
    const row = await tx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Account');
    return toAccount(row);
  }

  async list(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('id').execute();
    return rows.map(toAccount);
  }

  async updateSettings(id: string, input: AccountSettingsInput): Promise<Account> {
    const patch: Partial<AccountsTable> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.timezone !== undefined) patch.timezone = input.timezone;
    if (input.approvalRequired !== undefined) patch.approval_required = fromBool(input.approvalRequired);
    if (input.unsubscribeUrl !== undefined) patch.unsubscribe_url = input.unsubscribeUrl;
    if (input.companyProfile !== undefined) patch.company_profile = JSON.stringify(input.companyProfile);
    if (Object.keys(patch).length > 0) {
      const res = await this.db.updateTable('accounts').set(patch).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound('Account');
    }
    return this.get(id);
  }

  async setCredits(id: string, credits: number): Promise<Account> {
    if (!Number.isFinite(credits) || credits < 0) throw new AppError('VALIDATION_ERROR', 'Credits must be a non-negative number');
    const res = await this.db.updateTable('accounts').set({ credits_milli: Math.round(credits * 1000) }).where('id', '=', id).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw notFound('Account');
    return this.get(id);
  }

  async priceList(accountId: string, tx: DbOrTx = this.db): Promise<PriceList> {
    const rows = await tx.selectFrom('prices').selectAll().where('account_id', '=', accountId).execute();
    return new Map(rows.map((r) => [r.country, { rcs: r.rcs_price_milli, sms: r.sms_price_milli }]));
  }

  /** Sets (or with null removes) one country's prices, in credits. */
  async setPrice(accountId: string, country: string, price: { rcs: number; sms: number } | null): Promise<void> {
    const cc = country.toUpperCase();
    if (!/^[A-Z]{2}$/.test(cc)) throw new AppError('VALIDATION_ERROR', `Country must be an ISO 3166-1 alpha-2 code, got ${country}`);
    await this.get(accountId);
    if (price === null) {
      await this.db.deleteFrom('prices').where('account_id', '=', accountId).where('country', '=', cc).execute();
      return;
    }
    for (const v of [price.rcs, price.sms]) {
      if (!Number.isFinite(v) || v < 0) throw new AppError('VALIDATION_ERROR', 'Prices must be non-negative numbers');
    }
    const values = { account_id: accountId, country: cc, rcs_price_milli: Math.round(price.rcs * 1000), sms_price_milli: Math.round(price.sms * 1000) };
    await this.db
      .insertInto('prices')
      .values(values)
      .onConflict((oc) => oc.columns(['account_id', 'country']).doUpdateSet({ rcs_price_milli: values.rcs_price_milli, sms_price_milli: values.sms_price_milli }))
      .execute();
  }
}
