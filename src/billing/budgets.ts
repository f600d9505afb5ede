/**
 * Budgets per credential (issue #29, #42): an API key or a connected OAuth app may carry two limits, credits per
 * day of the account's time zone and recipients per send. A send (and the dry run of its preview) is charged
 * against its credential's counter for the day in the transaction that debits the account (SendService.persist →
 * chargeBudget); a person's approval of a preview holds the preview's credits against the same budget
 * (holdBudget) until it is sent, rejected or expires, so what is approved can go. Both first lock the day's
 * counter row (an upsert: on PostgreSQL the row stays locked until the transaction ends), then read the day's
 * spend and the live holds with fresh statements, then write: approvals and sends through any number of
 * instances are serialised per credential and cannot pass the last credit together. Refunds of failed or
 * cancelled messages give credits back to the account, not budget back to the credential (docs/decisions.md
 * "Budgets per credential", "Budgets: the account's day, holds of approved previews").
 */
import { sql } from 'kysely';
import { DateTime } from 'luxon';
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

/** The instant in the account's zone (UTC when the zone is unknown to the runtime). */
const inZone = (ms: number, zone: string): DateTime => {
  const d = DateTime.fromMillis(ms, { zone });
  return d.isValid ? d : DateTime.fromMillis(ms, { zone: 'utc' });
};
/**
 * The account-local calendar date of an instant as a day number, days from 1970-01-01 to that date (what
 * credential_spend.day holds): the budget's day is the account's day.
 */
export const localDay = (ms: number, zone: string): number => {
  const d = inZone(ms, zone);
  return Math.floor(Date.UTC(d.year, d.month - 1, d.day) / DAY_MS);
};
/** The next local midnight after `ms` in the account's zone (DST-aware): when the daily budget resets. */
export const nextLocalMidnight = (ms: number, zone: string): number => inZone(ms, zone).startOf('day').plus({ days: 1 }).toMillis();
/** A day number as its date (YYYY-MM-DD). */
const dayDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

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
  /** Credits per day of the account's time zone; null: no limit. */
  dailyCredits: number | null;
  /** Recipients per send; null: no limit. */
  maxRecipients: number | null;
}

/** A credential's limits with what it used today, for lists and the share page. */
export interface BudgetStatus extends CredentialLimits {
  creditsUsedToday: number;
  messagesToday: number;
  /** Credits held by approved previews that were not sent yet and have not expired. */
  creditsHeld: number;
  /** dailyCredits − used − held (never below 0); null without a daily limit. */
  creditsLeftToday: number | null;
  /** ISO 8601 UTC: the next midnight of the account's time zone. */
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

/** The account's time zone (accounts.timezone, read only): the budget's day is the account's day. */
export async function accountZone(db: DbOrTx, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('timezone').where('id', '=', accountId).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}

interface Charge {
  accountId: string;
  spender: Spender;
  amountMilli: number;
  recipients: number;
  /** The account's time zone (accounts.timezone). */
  zone: string;
}

function overRecipients(c: Charge, max: number, what: 'send' | 'approve'): AppError {
  return exceeded(
    what === 'send'
      ? `This send goes to ${c.recipients} recipients but ${c.spender.label} may reach at most ${max} per send. Nothing was sent or charged.`
      : `This preview goes to ${c.recipients} recipients but ${c.spender.label} may reach at most ${max} per send, so it could not be sent. Nothing was approved.`,
    { limit: 'maxRecipients', maxRecipients: max, recipients: c.recipients, credential: c.spender.label },
    `Split the recipients into sends of at most ${max}, or ask the user to raise this credential's recipient limit in the console.`,
  );
}

/**
 * Locks the credential's counter row of `day` until the transaction ends (an upsert that changes nothing: on
 * PostgreSQL the row lock; on SQLite the write lock), so what is read next — the day's spend and the live holds,
 * each by a statement of its own and so seeing what a transaction that held the lock before committed — cannot
 * change before this transaction writes.
 */
async function lockDay(tx: DbOrTx, accountId: string, credentialId: string, day: number): Promise<void> {
  const t = sql.table('credential_spend');
  await tx
    .insertInto('credential_spend')
    .values({ account_id: accountId, credential_id: credentialId, day, spent_milli: 0, messages: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'credential_id', 'day']).doUpdateSet({ spent_milli: sql<number>`${t}.spent_milli` }))
    .execute();
}

/** The day's spend and the credits held by live holds of the credential (read after lockDay). */
async function useOf(tx: DbOrTx, accountId: string, credentialId: string, day: number, now: number): Promise<{ used: number; held: number }> {
  const [spent, held] = await Promise.all([
    tx.selectFrom('credential_spend').select('spent_milli').where('account_id', '=', accountId).where('credential_id', '=', credentialId).where('day', '=', day).executeTakeFirst(),
    tx
      .selectFrom('budget_holds')
      .select((eb) => eb.fn.sum<number>('credits_milli').as('milli'))
      .where('account_id', '=', accountId)
      .where('credential_id', '=', credentialId)
      .where('expires_at', '>', now)
      .executeTakeFirst(),
  ]);
  return { used: Number(spent?.spent_milli ?? 0), held: Number(held?.milli ?? 0) };
}

function overCredits(c: Charge, limit: number, use: { used: number; held: number }, resetsAt: string, what: 'send' | 'approve'): AppError {
  const left = Math.max(0, limit - use.used - use.held);
  const heldNote = use.held > 0 ? ` (${milliToCredits(use.held)} of them held by approved previews not sent yet)` : '';
  const head =
    what === 'send'
      ? `This send costs ${milliToCredits(c.amountMilli)} credits but ${c.spender.label} has ${milliToCredits(left)} of its ${milliToCredits(limit)} credits per day left`
      : `This preview costs ${milliToCredits(c.amountMilli)} credits but ${c.spender.label} has ${milliToCredits(left)} of its ${milliToCredits(limit)} credits per day left`;
  const tail = what === 'send' ? 'Nothing was sent or charged.' : 'It cannot be approved until then: nothing was approved.';
  return exceeded(
    `${head}${heldNote}; the budget resets at ${resetsAt} (midnight in the account's time zone). ${tail}`,
    {
      limit: 'dailyCredits',
      dailyCredits: milliToCredits(limit),
      creditsUsedToday: milliToCredits(use.used),
      creditsHeld: milliToCredits(use.held),
      creditsLeftToday: milliToCredits(left),
      creditsRequired: milliToCredits(c.amountMilli),
      resetsAt,
      credential: c.spender.label,
    },
    `Tell the user this credential's daily budget is used up or held by approved previews (${milliToCredits(left)} of ${milliToCredits(limit)} credits left until ${resetsAt}); send to fewer recipients, wait for the reset, or ask the user to raise the limit in the console. Do not retry before then.`,
  );
}

async function limitsRow(tx: DbOrTx, accountId: string, credentialId: string) {
  return tx.selectFrom('credential_limits').select(['daily_credits_milli', 'max_recipients']).where('account_id', '=', accountId).where('credential_id', '=', credentialId).executeTakeFirst();
}

/**
 * Charges a send to its credential, in the transaction that debits the account: refuses with 403
 * BUDGET_EXCEEDED when it goes to more recipients than the credential may reach per send or costs more than is
 * left of its credits today, counting what approved previews hold (the send of a held preview releases its hold
 * first: releaseHold); otherwise adds the cost and the messages to today's counter (also for credentials
 * without limits: the console's per-credential chart reads the counters).
 */
export async function chargeBudget(tx: DbOrTx, c: Charge, now: number): Promise<void> {
  const row = await limitsRow(tx, c.accountId, c.spender.id);
  const max = row?.max_recipients ?? null;
  if (max !== null && c.recipients > max) throw overRecipients(c, max, 'send');
  const limit = row?.daily_credits_milli ?? null;
  const day = localDay(now, c.zone);
  const t = sql.table('credential_spend');
  if (limit !== null) {
    const resetsAt = new Date(nextLocalMidnight(now, c.zone)).toISOString();
    if (c.amountMilli > limit) throw overCredits(c, limit, { used: 0, held: 0 }, resetsAt, 'send');
    await lockDay(tx, c.accountId, c.spender.id, day);
    const use = await useOf(tx, c.accountId, c.spender.id, day, now);
    if (use.used + use.held + c.amountMilli > limit) throw overCredits(c, limit, use, resetsAt, 'send');
  }
  await tx
    .insertInto('credential_spend')
    .values({ account_id: c.accountId, credential_id: c.spender.id, day, spent_milli: c.amountMilli, messages: c.recipients })
    .onConflict((oc) =>
      oc.columns(['account_id', 'credential_id', 'day']).doUpdateSet({
        spent_milli: sql<number>`${t}.spent_milli + ${c.amountMilli}`,
        messages: sql<number>`${t}.messages + ${c.recipients}`,
      }),
    )
    .execute();
}

/**
 * A person approves a preview: its estimated credits and recipients are held against the daily budget of the
 * credential that made it, or the approval is refused with 403 BUDGET_EXCEEDED when the preview could not be
 * sent (more recipients than a send may have, or more credits than are left today after the spend and the other
 * live holds). Runs in the approval's transaction; approving again replaces the preview's hold. Without a daily
 * limit nothing is held.
 */
export async function holdBudget(tx: DbOrTx, c: Charge & { previewId: string; expiresAt: number }, now: number): Promise<void> {
  const row = await limitsRow(tx, c.accountId, c.spender.id);
  const max = row?.max_recipients ?? null;
  if (max !== null && c.recipients > max) throw overRecipients(c, max, 'approve');
  await releaseHold(tx, c.previewId);
  const limit = row?.daily_credits_milli ?? null;
  if (limit === null) return;
  const day = localDay(now, c.zone);
  await lockDay(tx, c.accountId, c.spender.id, day);
  // Holds past their preview's expiry count no more; they go when the credential holds again.
  await tx.deleteFrom('budget_holds').where('account_id', '=', c.accountId).where('credential_id', '=', c.spender.id).where('expires_at', '<=', now).execute();
  const use = await useOf(tx, c.accountId, c.spender.id, day, now);
  if (use.used + use.held + c.amountMilli > limit) throw overCredits(c, limit, use, new Date(nextLocalMidnight(now, c.zone)).toISOString(), 'approve');
  await tx
    .insertInto('budget_holds')
    .values({ preview_id: c.previewId, account_id: c.accountId, credential_id: c.spender.id, credits_milli: c.amountMilli, recipients: c.recipients, created_at: now, expires_at: c.expiresAt })
    .execute();
}

/** The preview was sent (its send is charged instead), rejected or expired: it holds nothing any more. */
export async function releaseHold(tx: DbOrTx, previewId: string): Promise<void> {
  await tx.deleteFrom('budget_holds').where('preview_id', '=', previewId).execute();
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

  /** Limits, today's use and holds of every credential of the account that has any, by credential id. */
  async statuses(accountId: string): Promise<Map<string, BudgetStatus>> {
    const now = this.d.clock.now();
    const zone = await accountZone(this.d.db, accountId);
    const [limits, spent, holds] = await Promise.all([
      this.limits(accountId),
      this.d.db.selectFrom('credential_spend').select(['credential_id', 'spent_milli', 'messages']).where('account_id', '=', accountId).where('day', '=', localDay(now, zone)).execute(),
      this.d.db
        .selectFrom('budget_holds')
        .select(['credential_id', (eb) => eb.fn.sum<number>('credits_milli').as('milli')])
        .where('account_id', '=', accountId)
        .where('expires_at', '>', now)
        .groupBy('credential_id')
        .execute(),
    ]);
    const used = new Map(spent.map((s) => [s.credential_id, { milli: Number(s.spent_milli), messages: Number(s.messages) }]));
    const held = new Map(holds.map((h) => [h.credential_id, Number(h.milli)]));
    const out = new Map<string, BudgetStatus>();
    for (const id of new Set([...limits.keys(), ...used.keys(), ...held.keys()])) out.set(id, statusOf(limits.get(id) ?? NO_LIMITS, used.get(id), held.get(id) ?? 0, now, zone));
    return out;
  }

  /** The credits a preview's approval holds now (0: none, or expired). */
  async holdOf(accountId: string, previewId: string): Promise<number> {
    const row = await this.d.db.selectFrom('budget_holds').select('credits_milli').where('account_id', '=', accountId).where('preview_id', '=', previewId).where('expires_at', '>', this.d.clock.now()).executeTakeFirst();
    return milliToCredits(Number(row?.credits_milli ?? 0));
  }

  /** One credential's limits and today's use. */
  async status(accountId: string, credentialId: string): Promise<BudgetStatus> {
    return (await this.statuses(accountId)).get(credentialId) ?? statusOf(NO_LIMITS, undefined, 0, this.d.clock.now(), await accountZone(this.d.db, accountId));
  }

  /**
   * The last `days` days (of the account's time zone) of one credential, oldest first, in the Credits chart's shape: credits charged at
   * accept and messages accepted (under the key ACCEPTED: the counters do not follow each message's status).
   */
  async daily(accountId: string, credentialId: string, days: number): Promise<DailyUsage[]> {
    const today = localDay(this.d.clock.now(), await accountZone(this.d.db, accountId));
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
      out.push({ day: dayDate(d), spent: milliToCredits(Number(r?.spent_milli ?? 0)), messages: r && Number(r.messages) > 0 ? { ACCEPTED: Number(r.messages) } : {} });
    }
    return out;
  }

  /** Credits and messages of the last `days` days per credential of the account (the lists' 30-day column). */
  async totals(accountId: string, days: number): Promise<Map<string, { credits: number; messages: number }>> {
    const today = localDay(this.d.clock.now(), await accountZone(this.d.db, accountId));
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
    const [statuses, totals, zone] = await Promise.all([this.statuses(accountId), this.totals(accountId, USAGE_DAYS), accountZone(this.d.db, accountId)]);
    const now = this.d.clock.now();
    const out: Record<string, BudgetOverview> = {};
    for (const id of credentialIds) out[id] = { ...(statuses.get(id) ?? statusOf(NO_LIMITS, undefined, 0, now, zone)), last30: totals.get(id) ?? { credits: 0, messages: 0 } };
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

function statusOf(limits: CredentialLimits, used: { milli: number; messages: number } | undefined, heldMilli: number, now: number, zone: string): BudgetStatus {
  const usedMilli = used?.milli ?? 0;
  return {
    ...limits,
    creditsUsedToday: milliToCredits(usedMilli),
    messagesToday: used?.messages ?? 0,
    creditsHeld: milliToCredits(heldMilli),
    creditsLeftToday: limits.dailyCredits === null ? null : milliToCredits(Math.max(0, creditsToMilli(limits.dailyCredits) - usedMilli - heldMilli)),
    resetsAt: new Date(nextLocalMidnight(now, zone)).toISOString(),
  };
}
