/**
 * Budgets per credential (issue #29): an API key or a connected OAuth app may carry two limits, credits per UTC
 * day and recipients per send. A send (and the dry run of its preview) is charged against its credential's
 * counter for the day in the transaction that debits the account (SendService.persist → chargeBudget), by one
 * conditional upsert: on PostgreSQL the counter row stays locked until that transaction ends and the condition
 * is evaluated on its latest version, so sends through any number of instances cannot pass the last credit
 * together. Refunds of failed or cancelled messages give credits back to the account, not budget back to the
 * credential (docs/decisions.md "Budgets per credential").
 */
import { sql } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { AppError, notFound } from '../platform/errors.js';
import type { ErrorExtraOf } from '../platform/error-fields.js';
import { actorOf, type Principal } from '../platform/permissions.js';
import { creditsToMilli, milliToCredits } from './pricing.js';
import type { DailyUsage } from './schemas.js';

export const DAY_MS = 86_400_000;
/** The most recipients a send can have (a batch, spec §4.1): a higher limit would be no limit. */
export const MAX_RECIPIENTS_LIMIT = 10_000;
/** A daily budget above this is a typo, not a budget. */
export const MAX_DAILY_CREDITS = 1_000_000_000;

/** The UTC day number of an instant (what credential_spend.day holds). */
export const utcDay = (ms: number): number => Math.floor(ms / DAY_MS);
/** The next 00:00 UTC after `ms`: when the daily budget resets. */
export const nextUtcMidnight = (ms: number): number => (utcDay(ms) + 1) * DAY_MS;

/** The credential a send is charged to: an API key (`key_…`) or an OAuth client (its client_id). */
export interface Spender {
  id: string;
  kind: 'key' | 'app';
  /** `key "Assistant"`, `app "Claude Desktop"`. */
  label: string;
}

/** The credential of a caller with a budget, as actorOf names it: an API key or an OAuth client (a console session has none). */
export function spenderOf(principal: Principal): Spender | undefined {
  if (principal.via === 'session') return undefined;
  const actor = actorOf(principal);
  return { id: actor.credentialId, kind: principal.via === 'oauth' ? 'app' : 'key', label: actor.label };
}

export interface CredentialLimits {
  /** Credits per UTC day; null: no limit. */
  dailyCredits: number | null;
  /** Recipients per send; null: no limit. */
  maxRecipients: number | null;
}

/** A credential's limits with what it used today, for lists and the share page. */
export interface BudgetStatus extends CredentialLimits {
  creditsUsedToday: number;
  messagesToday: number;
  /** dailyCredits − used (never below 0); null without a daily limit. */
  creditsLeftToday: number | null;
  /** ISO 8601: the next 00:00 UTC. */
  resetsAt: string;
}

/** What the console's lists show per credential: limits, today's use and the last 30 days. */
export interface BudgetOverview extends BudgetStatus {
  last30: { credits: number; messages: number };
}

/** Days the console's per-credential chart and totals cover. */
export const USAGE_DAYS = 30;

/** A limit change: a number sets it, null clears it, undefined leaves it as it is. */
export interface LimitsChange {
  dailyCredits?: number | null;
  maxRecipients?: number | null;
}

const NO_LIMITS: CredentialLimits = { dailyCredits: null, maxRecipients: null };

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `${path}: ${message}`, { details: [{ path, code: 'invalid_limit', message }] });
}

/** Checks a limit change at its door (CLI, console): numbers in range, credits with at most 3 decimals. */
export function checkLimits(change: LimitsChange): void {
  const d = change.dailyCredits;
  if (d !== undefined && d !== null) {
    if (typeof d !== 'number' || !Number.isFinite(d) || d < 0 || d > MAX_DAILY_CREDITS) throw invalid('dailyCredits', `must be a number of credits from 0 to ${MAX_DAILY_CREDITS}, or none`);
    if (Math.abs(creditsToMilli(d) - d * 1000) > 1e-6) throw invalid('dailyCredits', 'has at most 3 decimals (1/1000 credit)');
  }
  const r = change.maxRecipients;
  if (r !== undefined && r !== null && (typeof r !== 'number' || !Number.isInteger(r) || r < 1 || r > MAX_RECIPIENTS_LIMIT)) {
    throw invalid('maxRecipients', `must be a whole number from 1 to ${MAX_RECIPIENTS_LIMIT}, or none`);
  }
}

/**
 * A limit as typed by a person (CLI flag, console field): "" or "none" clears it, a number sets it. Returns
 * undefined for a field that was not given.
 */
export function parseLimitInput(raw: string | undefined, path: 'dailyCredits' | 'maxRecipients'): number | null | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim().toLowerCase();
  if (t === '' || t === 'none') return null;
  if (!/^\d+(\.\d+)?$/.test(t)) throw invalid(path, `"${raw.slice(0, 40)}" is not a number (or "none" to remove the limit)`);
  const n = Number(t);
  checkLimits({ [path]: n });
  return n;
}

function exceeded(message: string, extra: Omit<ErrorExtraOf<'BUDGET_EXCEEDED'>, 'nextStep'>, nextStep: string): AppError {
  return new AppError('BUDGET_EXCEEDED', message, { extra: { ...extra, nextStep } });
}

/**
 * Charges a send to its credential, in the transaction that debits the account: refuses with 403
 * BUDGET_EXCEEDED when it goes to more recipients than the credential may reach per send or costs more than is
 * left of its credits today; otherwise adds the cost and the messages to today's counter (also for credentials
 * without limits: the console's per-credential chart reads the counters).
 */
export async function chargeBudget(tx: DbOrTx, c: { accountId: string; spender: Spender; amountMilli: number; recipients: number }, now: number): Promise<void> {
  const row = await tx
    .selectFrom('credential_limits')
    .select(['daily_credits_milli', 'max_recipients'])
    .where('account_id', '=', c.accountId)
    .where('credential_id', '=', c.spender.id)
    .executeTakeFirst();
  const resetsAt = new Date(nextUtcMidnight(now)).toISOString();
  const max = row?.max_recipients ?? null;
  if (max !== null && c.recipients > max) {
    throw exceeded(
      `This send goes to ${c.recipients} recipients but ${c.spender.label} may reach at most ${max} per send. Nothing was sent or charged.`,
      { limit: 'maxRecipients', maxRecipients: max, recipients: c.recipients, credential: c.spender.label },
      `Split the recipients into sends of at most ${max}, or ask the user to raise this credential's recipient limit in the console.`,
    );
  }
  const limit = row?.daily_credits_milli ?? null;
  const day = utcDay(now);
  const t = sql.table('credential_spend');
  const fits = limit === null ? null : sql<boolean>`${t}.spent_milli + ${c.amountMilli} <= ${limit}`;
  const res =
    limit !== null && c.amountMilli > limit
      ? null
      : await tx
          .insertInto('credential_spend')
          .values({ account_id: c.accountId, credential_id: c.spender.id, day, spent_milli: c.amountMilli, messages: c.recipients })
          .onConflict((oc) => {
            const update = oc.columns(['account_id', 'credential_id', 'day']).doUpdateSet({
              spent_milli: sql<number>`${t}.spent_milli + ${c.amountMilli}`,
              messages: sql<number>`${t}.messages + ${c.recipients}`,
            });
            return fits ? update.where(fits) : update;
          })
          .executeTakeFirst();
  if (res && Number(res.numInsertedOrUpdatedRows ?? 0n) > 0) return;
  const spent = await tx
    .selectFrom('credential_spend')
    .select('spent_milli')
    .where('account_id', '=', c.accountId)
    .where('credential_id', '=', c.spender.id)
    .where('day', '=', day)
    .executeTakeFirst();
  const used = Number(spent?.spent_milli ?? 0);
  const left = Math.max(0, (limit ?? 0) - used);
  throw exceeded(
    `This send costs ${milliToCredits(c.amountMilli)} credits but ${c.spender.label} has ${milliToCredits(left)} of its ${milliToCredits(limit ?? 0)} credits per day left; the budget resets at ${resetsAt} (00:00 UTC). Nothing was sent or charged.`,
    {
      limit: 'dailyCredits',
      dailyCredits: milliToCredits(limit ?? 0),
      creditsUsedToday: milliToCredits(used),
      creditsLeftToday: milliToCredits(left),
      creditsRequired: milliToCredits(c.amountMilli),
      resetsAt,
      credential: c.spender.label,
    },
    `Tell the user this credential's daily budget is used up (${milliToCredits(left)} of ${milliToCredits(limit ?? 0)} credits left until ${resetsAt}); send to fewer recipients, wait for the reset, or ask the user to raise the limit in the console. Do not retry before then.`,
  );
}

export interface BudgetsDeps {
  db: Db;
  clock: Clock;
}

/**
 * The limits and counters as people set and read them: the CLI, the console's API keys and Connected apps
 * pages, the share page. Writes only credential_limits; the counters are written by chargeBudget alone.
 */
export class BudgetsService {
  constructor(private readonly d: BudgetsDeps) {}

  /**
   * Changes a credential's limits (a number sets one, null clears it, undefined keeps it). The credential must
   * be this account's: an API key of the account, or an OAuth client that holds or held a token for it;
   * anything else is a 404.
   */
  async setLimits(accountId: string, credential: { id: string; kind: 'key' | 'app' }, change: LimitsChange): Promise<CredentialLimits> {
    checkLimits(change);
    await this.assertCredential(accountId, credential);
    const current = (await this.limits(accountId)).get(credential.id) ?? NO_LIMITS;
    const next: CredentialLimits = {
      dailyCredits: change.dailyCredits === undefined ? current.dailyCredits : change.dailyCredits,
      maxRecipients: change.maxRecipients === undefined ? current.maxRecipients : change.maxRecipients,
    };
    if (next.dailyCredits === null && next.maxRecipients === null) {
      await this.d.db.deleteFrom('credential_limits').where('account_id', '=', accountId).where('credential_id', '=', credential.id).execute();
      return next;
    }
    const values = {
      daily_credits_milli: next.dailyCredits === null ? null : creditsToMilli(next.dailyCredits),
      max_recipients: next.maxRecipients,
      updated_at: this.d.clock.now(),
    };
    await this.d.db
      .insertInto('credential_limits')
      .values({ account_id: accountId, credential_id: credential.id, kind: credential.kind, ...values })
      .onConflict((oc) => oc.columns(['account_id', 'credential_id']).doUpdateSet(values))
      .execute();
    return next;
  }

  /** Every credential of the account that has limits, by credential id. */
  async limits(accountId: string): Promise<Map<string, CredentialLimits>> {
    const rows = await this.d.db.selectFrom('credential_limits').select(['credential_id', 'daily_credits_milli', 'max_recipients']).where('account_id', '=', accountId).execute();
    return new Map(
      rows.map((r) => [r.credential_id, { dailyCredits: r.daily_credits_milli === null ? null : milliToCredits(Number(r.daily_credits_milli)), maxRecipients: r.max_recipients === null ? null : Number(r.max_recipients) }]),
    );
  }

  /** Limits and today's use of every credential of the account that has either, by credential id. */
  async statuses(accountId: string): Promise<Map<string, BudgetStatus>> {
    const now = this.d.clock.now();
    const [limits, spent] = await Promise.all([
      this.limits(accountId),
      this.d.db.selectFrom('credential_spend').select(['credential_id', 'spent_milli', 'messages']).where('account_id', '=', accountId).where('day', '=', utcDay(now)).execute(),
    ]);
    const used = new Map(spent.map((s) => [s.credential_id, { milli: Number(s.spent_milli), messages: Number(s.messages) }]));
    const out = new Map<string, BudgetStatus>();
    for (const id of new Set([...limits.keys(), ...used.keys()])) out.set(id, statusOf(limits.get(id) ?? NO_LIMITS, used.get(id), now));
    return out;
  }

  /** One credential's limits and today's use. */
  async status(accountId: string, credentialId: string): Promise<BudgetStatus> {
    return (await this.statuses(accountId)).get(credentialId) ?? statusOf(NO_LIMITS, undefined, this.d.clock.now());
  }

  /**
   * The last `days` UTC days of one credential, oldest first, in the Credits chart's shape: credits charged at
   * accept and messages accepted (under the key ACCEPTED: the counters do not follow each message's status).
   */
  async daily(accountId: string, credentialId: string, days: number): Promise<DailyUsage[]> {
    const today = utcDay(this.d.clock.now());
    const rows = await this.d.db
      .selectFrom('credential_spend')
      .select(['day', 'spent_milli', 'messages'])
      .where('account_id', '=', accountId)
      .where('credential_id', '=', credentialId)
      .where('day', '>', today - days)
      .execute();
    const byDay = new Map(rows.map((r) => [Number(r.day), r]));
    const out: DailyUsage[] = [];
    for (let d = today - days + 1; d <= today; d++) {
      const r = byDay.get(d);
      out.push({ day: new Date(d * DAY_MS).toISOString().slice(0, 10), spent: milliToCredits(Number(r?.spent_milli ?? 0)), messages: r && Number(r.messages) > 0 ? { ACCEPTED: Number(r.messages) } : {} });
    }
    return out;
  }

  /** Credits and messages of the last `days` UTC days per credential of the account (the lists' 30-day column). */
  async totals(accountId: string, days: number): Promise<Map<string, { credits: number; messages: number }>> {
    const today = utcDay(this.d.clock.now());
    const rows = await this.d.db
      .selectFrom('credential_spend')
      .select(['credential_id', (eb) => eb.fn.sum<number>('spent_milli').as('milli'), (eb) => eb.fn.sum<number>('messages').as('messages')])
      .where('account_id', '=', accountId)
      .where('day', '>', today - days)
      .groupBy('credential_id')
      .execute();
    return new Map(rows.map((r) => [r.credential_id, { credits: milliToCredits(Number(r.milli)), messages: Number(r.messages) }]));
  }

  /** The overview of each of `credentialIds` (with or without limits or use), by credential id. */
  async overview(accountId: string, credentialIds: readonly string[]): Promise<Record<string, BudgetOverview>> {
    const [statuses, totals] = await Promise.all([this.statuses(accountId), this.totals(accountId, USAGE_DAYS)]);
    const now = this.d.clock.now();
    const out: Record<string, BudgetOverview> = {};
    for (const id of credentialIds) out[id] = { ...(statuses.get(id) ?? statusOf(NO_LIMITS, undefined, now)), last30: totals.get(id) ?? { credits: 0, messages: 0 } };
    return out;
  }

  private async assertCredential(accountId: string, credential: { id: string; kind: 'key' | 'app' }): Promise<void> {
    if (credential.kind === 'key') {
      const key = await this.d.db.selectFrom('api_keys').select('id').where('id', '=', credential.id).where('account_id', '=', accountId).executeTakeFirst();
      if (!key) throw notFound('API key');
      return;
    }
    const token = await this.d.db.selectFrom('oauth_tokens').select('id').where('client_id', '=', credential.id).where('account_id', '=', accountId).limit(1).executeTakeFirst();
    if (!token) throw notFound('Connected app');
  }
}

function statusOf(limits: CredentialLimits, used: { milli: number; messages: number } | undefined, now: number): BudgetStatus {
  const usedMilli = used?.milli ?? 0;
  return {
    ...limits,
    creditsUsedToday: milliToCredits(usedMilli),
    messagesToday: used?.messages ?? 0,
    creditsLeftToday: limits.dailyCredits === null ? null : milliToCredits(Math.max(0, creditsToMilli(limits.dailyCredits) - usedMilli)),
    resetsAt: new Date(nextUtcMidnight(now)).toISOString(),
  };
}
