import type { Config } from '../config.js';
import type { AccountsService, PriceList } from '../accounts/service.js';
import type { Account } from '../accounts/schemas.js';
import { contentSummary, correctStopKeywords, findForbiddenIn, forbiddenCharacterMessage, INVALID_CHARACTER_CODE, normalizeContent, type Content, type MessageType } from '../content/index.js';
import type { ContactDirectory } from '../contacts/directory.js';
import type { MergeContext } from '../merge/index.js';
import { containsUnsubscribePlaceholder } from '../merge/placeholders.js';
import type { Clock } from '../platform/clock.js';
import { executeBulk, insertRowsAsJson } from '../platform/db/bulk.js';
import { inTransaction, type Db, type Tx } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { MessagesTable } from './tables.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import { analyzeSms } from '../sms/index.js';
import { companyValues, mergeContextFor, mergeRcs, mergeSmsText, todayFor, type MergeBase } from './compose.js';
import type { Dispatcher } from './dispatcher.js';
import { scheduleFor, usableSender, type ScheduleOk } from './prepare.js';
import { instantIn } from '../schedule/index.js';
import { chargeBudget, releaseHold, type Spender } from '../billing/budgets.js';
import { debitSend } from '../billing/ledger.js';
import { milliToCredits, priceMessage } from '../billing/pricing.js';
import type { ConversationPricing } from './pricing.js';
import { resolveRecipients, type Recipient, type RecipientThrottle } from './recipients.js';
import {
  type BatchResponse,
  type SendBatchRequest,
  type SendMessageRequest,
  type SendSmsRequest,
  type RejectedRecipient,
} from './schemas.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import { issueUnsubscribeLink } from './unsubscribe.js';
import { checkMergedMessage, INVALID_MERGED_CONTENT, mergeRejection, rcsMergePlan, smsMergePlan, type MergePlan } from './merge-checks.js';
import { compareFingerprints, MergeAudit, staleError, type CollectedMergeValues, type MergeFingerprint } from './merge-audit.js';
import { ONE_OFF_MESSAGE_DEFAULTS } from './message-row.js';
import { QuietPlan, type QuietDue, type QuietHoursSummary } from './quiet-hours.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

/**
 * FORM: a form's double opt-in confirmation SMS (src/forms). SYSTEM: an automatic answer to a keyword (HELP's company
 * details, an opt-out's confirmation; src/inbound), free and exempt from the opt-out check (queueSystemText).
 */
export type MessageSource = 'API_MESSAGE' | 'DIRECT_MESSAGE' | 'MCP' | 'FORM' | 'SYSTEM';

/** An automatic answer to a person's keyword, from the sender the keyword was sent to (queueSystemText). */
export interface SystemText {
  accountId: string;
  sender: SendersTable;
  /** Digits with country code. */
  phone: string;
  country: string;
  contactId: string | null;
  text: string;
  /** Kept as the log's campaign name, so the answers can be told apart: 'help-reply', 'opt-out-confirmation'. */
  kind: 'help-reply' | 'opt-out-confirmation';
  at: number;
}

export interface SendOptions {
  source?: MessageSource;
  /**
   * Run every step — validation, recipients, merge, pricing, credit check — inside the
   * transaction, then roll it back and return the estimate instead of sending (MCP previews).
   */
  dryRun?: boolean;
  /**
   * The send of an approved preview: the merge fingerprint the preview stored. Recomputed here,
   * from the data this send merges, and compared before anything is debited or written; any
   * difference refuses the send with PREVIEW_STALE (DESIGN §6).
   */
  expectMerge?: MergeFingerprint;
  /** The send of a preview: its id, kept on every message (messages.preview_id), so the log names its approver. */
  previewId?: string;
  /**
   * sendSms only: accept the message inside the caller's transaction (opt-in forms record it together with the
   * submission). It is not handed to the carrier then: the caller calls handOver(messageId) after its commit.
   */
  tx?: Tx;
  /**
   * The credential the send is charged to (billing/budgets.ts spenderOf): its limits are checked and its day's
   * counter moved in the transaction that debits the account — in a preview's dry run too, which rolls back.
   * Absent (forms, automatic answers): no credential's budget.
   */
  spender?: Spender;
}

/** What a send would do, from a dry run (nothing is written). */
export interface SendEstimate {
  dryRun: true;
  channel: 'RCS' | 'SMS';
  accepted: number;
  duplicates: number;
  rejected: RejectedRecipient[];
  creditsEstimated: number;
  /** First recipients (at most 5) with their merged message, so people see the real message. */
  samples: EstimateSample[];
  sms?: { segments: number; encoding: 'GSM-7' | 'Unicode' };
  schedule?: { scheduleTime: string; localScheduleTime: string; effectiveTimezone: string; timezoneSource: 'request' | 'account' };
  /** `empty_merge_value` warnings: fields that are empty for some of the recipients. */
  mergeWarnings?: ErrorDetail[];
  /** What was merged per recipient; the preview stores it and its send compares (not for display). */
  mergeFingerprint?: MergeFingerprint;
  /** Every per-recipient merged value (dry runs): the preview lists them for the person (previews/merge-report.ts). */
  mergeValues?: CollectedMergeValues;
  /** Quiet hours: how many recipients would be deferred and until when, or that the send is transactional. */
  quietHours?: QuietHoursSummary;
  /** Recipients under consent review (marketing paused) that this transactional send still reaches (issue #42). */
  underReview?: number;
}

/** One recipient's message as it would go out, after merging. */
export interface EstimateSample {
  phoneNumber: string;
  /** SMS: the merged body. RCS: the merged flat summary. */
  text: string;
  fallbackText: string | null;
  creditsCost: number;
  /** RCS: the messageType and the merged, normalized content this recipient gets; null for SMS. */
  messageType: MessageType | null;
  content: Content | null;
}

/** Thrown inside the transaction to roll a dry run back with its result. */
class DryRunRollback extends Error {
  constructor(readonly estimate: SendEstimate) {
    super('dry run');
  }
}

async function runOrEstimate<T>(work: () => Promise<T>): Promise<T | SendEstimate> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DryRunRollback) return err.estimate;
    throw err;
  }
}

function estimateOf(channel: 'RCS' | 'SMS', rows: { message: MessagesTable }[], res: { rejected: RejectedRecipient[]; duplicates: number; underReview?: number }, schedule: ScheduleOk | null, audit: MergeAudit | null, quiet: QuietPlan | null): SendEstimate {
  const first = rows[0]?.message;
  return {
    dryRun: true,
    channel,
    accepted: rows.length,
    duplicates: res.duplicates,
    rejected: res.rejected,
    creditsEstimated: milliToCredits(rows.reduce((s, r) => s + (r.message.credits_cost_milli ?? 0), 0)),
    samples: rows.slice(0, 5).map((r) => ({
      phoneNumber: `+${r.message.phone}`,
      text: r.message.text,
      fallbackText: r.message.fallback_text,
      creditsCost: milliToCredits(r.message.credits_cost_milli ?? 0),
      messageType: (r.message.message_type as MessageType | null) ?? null,
      content: r.message.content === null ? null : (JSON.parse(r.message.content) as Content),
    })),
    ...(channel === 'SMS' && first ? { sms: { segments: first.sms_segments ?? 0, encoding: (first.sms_encoding ?? 'GSM-7') as 'GSM-7' | 'Unicode' } } : {}),
    ...(schedule ? { schedule: { scheduleTime: schedule.utc, localScheduleTime: schedule.localTime, effectiveTimezone: schedule.effectiveTimezone, timezoneSource: schedule.timezoneSource } } : {}),
    ...(audit ? { mergeWarnings: audit.emptyWarnings(), mergeFingerprint: audit.fingerprint() } : {}),
    ...(audit?.values() ? { mergeValues: audit.values()! } : {}),
    ...(quiet ? { quietHours: quiet.summary() } : {}),
    ...(res.underReview ? { underReview: res.underReview } : {}),
  };
}

/** false: no audit; true: the fingerprint (the send of a preview checks it); 'collect': also every value (the preview lists them). */
type AuditMode = boolean | 'collect';

/** Previews (dry run) record what was merged; the send of a preview checks it did not change. */
function auditFor(opts: SendOptions): AuditMode {
  if (opts.dryRun === true) return 'collect';
  return opts.expectMerge !== undefined;
}

/** Refuses the send of a preview whose merged values changed (inside the send's transaction). */
function assertNotStale(opts: SendOptions, audit: MergeAudit | null): void {
  if (!opts.expectMerge || !audit) return;
  const report = compareFingerprints(opts.expectMerge, audit.fingerprint());
  if (report) throw staleError(report);
}

export interface SendDeps {
  db: Db;
  clock: Clock;
  config: Config;
  accounts: AccountsService;
  directory: ContactDirectory;
  conversation: ConversationPricing;
  /** Per-recipient throttle (src/conversations/throttle.ts); absent: none. */
  throttle?: RecipientThrottle;
  dispatcher: Dispatcher;
  /** Unsubscribe links' tokens (stored masked, revealed at hand-over). */
  links: LinkTokens;
}

/**
 * A send held back to a later time though it was not scheduled (quiet hours, issue #42): `scheduled: true`, when it
 * goes (UTC, and with the offset of the zone the hold was computed in — the recipient's) and `deferredUntil`, the same
 * instant, as before.
 */
export interface HeldBackFields {
  scheduled: true;
  scheduleTime: string;
  localScheduleTime: string;
  effectiveTimezone: string;
  timezoneSource: 'recipient';
  deferredUntil: string;
}

/** What the RCS send endpoint and tool answer for an immediate send (spec §2.12). */
export interface RcsSendResult {
  success: boolean;
  /** true when the message waits for a later time (HeldBackFields), false when it went or is queued to go now. */
  scheduled: boolean;
  messageRecordId: string;
  status: string;
  method: 'RCS' | 'SMS' | null;
  queued: boolean;
  countrySupported: boolean;
  countryError?: string;
  fallbackUsed: boolean;
  fallbackReason?: string;
  creditsEstimated: number;
  error?: string;
  scheduleTime?: string;
  localScheduleTime?: string;
  effectiveTimezone?: string;
  timezoneSource?: 'recipient';
  /** Quiet hours deferred the message to this opening of the recipient's window (UTC). */
  deferredUntil?: string;
}

export interface ScheduledResult {
  success: true;
  scheduled: true;
  jobId: string;
  messageId: string;
  scheduleTime: string;
  localScheduleTime: string;
  effectiveTimezone: string;
  timezoneSource: 'request' | 'account';
  /** Quiet hours moved the scheduled message to this opening of the recipient's window (UTC). */
  deferredUntil?: string;
  creditsEstimated: number;
  smsSegments?: number;
  smsEncoding?: 'GSM-7' | 'Unicode';
}

export interface SmsSendResult {
  success: boolean;
  messageId: string;
  /** As RcsSendResult's. */
  scheduled: boolean;
  queued: boolean;
  status: string;
  smsSegments: number;
  smsEncoding: 'GSM-7' | 'Unicode';
  creditsEstimated: number;
  error?: string;
  scheduleTime?: string;
  localScheduleTime?: string;
  effectiveTimezone?: string;
  timezoneSource?: 'recipient';
  deferredUntil?: string;
}

interface Common {
  account: Account;
  priceList: PriceList;
  customFieldTags: Set<string>;
  base: MergeBase;
  now: number;
}

type NewMessage = MessagesTable;

/**
 * The send use-cases behind POST /send, /send-sms, /send-batch and the MCP send tools. Each one
 * validates, resolves recipients, merges, prices, and commits messages (and their job) together
 * with the credit debit in one transaction — nothing reaches a carrier before that commit.
 */
export class SendService {
  constructor(private readonly d: SendDeps) {}

  private async common(tx: Tx, accountId: string): Promise<Common> {
    const now = this.d.clock.now();
    const account = await this.d.accounts.get(accountId, tx);
    const tags = await this.d.directory.customFieldTags(tx, accountId);
    return {
      account,
      priceList: await this.d.accounts.priceList(accountId, tx),
      customFieldTags: tags,
      base: { company: companyValues(account), today: todayFor(account, now), customFieldTags: tags },
      now,
    };
  }

  /** The checks every RCS send starts with, on a body parsed at its door: sender, fallback sender, schedule. */
  private async prepareRcs<B extends SendMessageRequest | SendBatchRequest>(tx: Tx, c: Common, body: B) {
    const b: SendMessageRequest | SendBatchRequest = body;
    const sender = await usableSender(tx, c.account.id, b.sendernameId, 'RCS', 'sendernameId');
    const fallbackSender = b.smsFallback ? await usableSender(tx, c.account.id, b.smsFallback.sendernameId, 'SMS', 'smsFallback.sendernameId', true) : null;
    assertSkipAllowed(b.skipContactCreation, sender);
    const schedule = scheduleFor(c.account, b.scheduleAt, b.timeZone, c.now);
    return { body, sender, fallbackSender, schedule };
  }

  /** POST /send: one RCS message, immediate or scheduled. */
  async send(accountId: string, input: SendMessageRequest, opts?: SendOptions & { dryRun?: false }): Promise<RcsSendResult | ScheduledResult>;
  async send(accountId: string, input: SendMessageRequest, opts: SendOptions & { dryRun: true }): Promise<SendEstimate>;
  async send(accountId: string, input: SendMessageRequest, opts: SendOptions = {}): Promise<RcsSendResult | ScheduledResult | SendEstimate> {
    const source = opts.source ?? 'API_MESSAGE';
    const outcome = await runOrEstimate(() => inTransaction(this.d.db, async (tx) => {
      const c = await this.common(tx, accountId);
      const { body, sender, fallbackSender, schedule } = await this.prepareRcs(tx, c, input);
      let contact;
      if (body.contactId !== undefined) {
        assertId('ct', body.contactId, 'contactId');
        contact = (await this.d.directory.findById(tx, accountId, body.contactId)) ?? undefined;
        if (!contact) throw new AppError('NOT_FOUND', 'Contact not found');
      }
      const res = await resolveRecipients(tx, this.d.directory, accountId, [body.phoneNumber], {
        transactional: body.transactional === true,
        channel: 'RCS',
        hasFallback: fallbackSender !== null,
        sender,
        priceList: c.priceList,
        skipContactCreation: body.skipContactCreation,
        skipDisabled: body.skipDisabled,
        throttle: this.d.throttle,
        ...(contact ? { contact } : {}),
      });
      if (contact && res.accepted[0] && res.accepted[0].phone !== contact.phone) {
        throw new AppError('VALIDATION_ERROR', 'phoneNumber does not match the contact given by contactId', { details: [{ path: 'phoneNumber', code: 'contact_mismatch', message: `The contact's phone is +${contact.phone}` }] });
      }
      const recipient = res.accepted[0];
      if (!recipient) throw refusal(opts, null, res.rejected);
      // Spec §2.3: an unsubscribe chip sends the sender's trigger (a preview already stored it corrected, with a warning).
      const payload = { messageType: body.messageType, content: correctStopKeywords(normalizeContent(body.messageType, body.content), sender.stop_keyword).content };
      const job = schedule ? this.jobRow(accountId, 'scheduled', 'RCS', sender.id, body.messageType, body.campaignName, 1, [], 1, 0, schedule, c.now) : null;
      const quiet = QuietPlan.for(c.account, body.transactional);
      const { rows, rejected, audit } = await this.rcsRows(tx, c, [recipient], payload, sender, fallbackSender ? { message: body.smsFallback!.message, sender: fallbackSender } : null, {
        source,
        campaignName: body.campaignName ?? null,
        jobId: job?.id ?? null,
        dueAt: () => (schedule ? schedule.epochMs : c.now),
        schedule,
        audit: auditFor(opts),
        previewId: opts.previewId ?? null,
        quiet,
      });
      if (rows.length === 0) throw refusal(opts, audit, rejected);
      assertNotStale(opts, audit);
      await this.persist(tx, c, rows, job, opts.spender);
      if (opts.dryRun) throw new DryRunRollback(estimateOf('RCS', rows, res, schedule, audit, quiet));
      return { row: rows[0]!.message, schedule, job };
    }));
    if ('dryRun' in outcome) return outcome;
    if (outcome.schedule && outcome.job) return scheduledResult(outcome.job.id, outcome.row, outcome.schedule);
    if (outcome.row.status === 'SCHEDULED') return deferredRcsResult(outcome.row);
    return this.immediateRcsResult(outcome.row);
  }

  /**
   * An automatic answer to a keyword (HELP, an opt-out's confirmation), accepted in the caller's transaction and
   * handed over with handOver(id) after its commit. Not a send of the account: it is not merged, not checked against
   * the opt-out list (a confirmation goes to a number that has just opted out — carriers' STOP confirmations work the
   * same way) and not charged (credits_cost_milli 0, no ledger entry; docs/decisions.md "Consent words"). It is a real
   * outgoing message of the log (source SYSTEM), through the same sender, the same dispatcher and its budget.
   */
  async queueSystemText(tx: Tx, m: SystemText): Promise<string> {
    const sms = m.sender.type === 'SMS' ? analyzeSms(m.text) : null;
    const row: MessagesTable = {
      ...ONE_OFF_MESSAGE_DEFAULTS,
      id: newId('msg', m.at),
      account_id: m.accountId,
      type: m.sender.type === 'SMS' ? 'SMS' : 'RCS',
      status: 'SENDING',
      direction: 'OUTBOUND',
      source: 'SYSTEM',
      phone: m.phone,
      country: m.country,
      contact_id: m.contactId,
      sendername_id: m.sender.id,
      message_type: sms ? null : 'text',
      content: sms ? null : JSON.stringify({ text: m.text }),
      text: m.text,
      campaign_name: m.kind,
      // An automatic answer is not marketing: a consent review's pause leaves it to go.
      transactional: 1,
      credits_cost_milli: 0,
      sms_segments: sms?.segments ?? null,
      sms_encoding: sms?.encoding ?? null,
      method: null,
      carrier_message_id: null,
      created_at: m.at,
      pending: 1,
      due_at: this.d.clock.now(),
    };
    await tx.insertInto('messages').values(row).execute();
    return row.id;
  }

  /** The caller's transaction when it gave one (opts.tx), else one of its own. */
  private within<T>(opts: SendOptions, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return opts.tx ? fn(opts.tx) : inTransaction(this.d.db, fn);
  }

  /** Hands an SMS accepted in the caller's transaction (opts.tx) to the carrier, once that transaction committed. */
  async handOver(messageId: string): Promise<{ failed: boolean; error: string | null }> {
    const row = await this.d.dispatcher.dispatchNow(messageId);
    return { failed: row?.status === 'FAILED', error: row?.error ?? null };
  }

  /** POST /send-sms: one standalone SMS, merged before segments are counted (§2.13 rule 5). */
  async sendSms(accountId: string, body: SendSmsRequest, opts?: SendOptions & { dryRun?: false }): Promise<SmsSendResult | ScheduledResult>;
  async sendSms(accountId: string, body: SendSmsRequest, opts: SendOptions & { dryRun: true }): Promise<SendEstimate>;
  async sendSms(accountId: string, body: SendSmsRequest, opts: SendOptions = {}): Promise<SmsSendResult | ScheduledResult | SendEstimate> {
    const source = opts.source ?? 'API_MESSAGE';
    const outcome = await runOrEstimate(() => this.within(opts, async (tx) => {
      const c = await this.common(tx, accountId);
      const sender = await usableSender(tx, accountId, body.sendernameId, 'SMS', 'sendernameId', true);
      assertSkipAllowed(body.skipContactCreation, sender);
      const schedule = scheduleFor(c.account, body.scheduleAt, body.timeZone, c.now);
      const res = await resolveRecipients(tx, this.d.directory, accountId, [body.phoneNumber], {
        transactional: body.transactional === true,
        channel: 'SMS',
        hasFallback: false,
        sender,
        priceList: c.priceList,
        skipContactCreation: body.skipContactCreation,
        skipDisabled: body.skipDisabled,
        throttle: this.d.throttle,
      });
      const recipient = res.accepted[0];
      if (!recipient) throw refusal(opts, null, res.rejected);
      const job = schedule ? this.jobRow(accountId, 'scheduled', 'SMS', sender.id, null, body.campaignName, 1, [], 1, 0, schedule, c.now) : null;
      const quiet = QuietPlan.for(c.account, body.transactional);
      const built = await this.smsRow(tx, c, recipient, body.message, sender, { source, campaignName: body.campaignName ?? null, jobId: job?.id ?? null, dueAt: schedule ? schedule.epochMs : c.now, schedule, audit: auditFor(opts), quiet, previewId: opts.previewId ?? null });
      const row = built.row;
      if (!row) throw refusal(opts, built.audit, [built.rejected]);
      assertNotStale(opts, built.audit);
      await this.persist(tx, c, [row], job, opts.spender);
      if (opts.dryRun) throw new DryRunRollback(estimateOf('SMS', [row], res, schedule, built.audit, quiet));
      return { row: row.message, schedule, job };
    }));
    if ('dryRun' in outcome) return outcome;
    if (outcome.schedule && outcome.job) return scheduledResult(outcome.job.id, outcome.row, outcome.schedule);
    // In the caller's transaction the row is not committed yet: the caller hands it over after its commit.
    // A message quiet hours deferred stays queued (dispatchNow leaves a row that is not due yet as it is).
    const sent = opts.tx || outcome.row.status === 'SCHEDULED' ? null : await this.d.dispatcher.dispatchNow(outcome.row.id);
    const row = sent ?? outcome.row;
    return {
      success: row.status !== 'FAILED',
      messageId: row.id,
      ...heldBack(row),
      queued: row.pending === 1,
      status: row.status,
      smsSegments: row.sms_segments ?? 0,
      smsEncoding: (row.sms_encoding ?? 'GSM-7') as 'GSM-7' | 'Unicode',
      creditsEstimated: milliToCredits(row.credits_cost_milli ?? 0),
      ...(row.error ? { error: row.error } : {}),
    };
  }

  /** POST /send-batch: up to 10,000 recipients as one job, in slices of batchSize every delayMs. */
  async sendBatch(accountId: string, input: SendBatchRequest, opts?: SendOptions & { dryRun?: false }): Promise<BatchResponse>;
  async sendBatch(accountId: string, input: SendBatchRequest, opts: SendOptions & { dryRun: true }): Promise<SendEstimate>;
  async sendBatch(accountId: string, input: SendBatchRequest, opts: SendOptions = {}): Promise<BatchResponse | SendEstimate> {
    const source = opts.source ?? 'API_MESSAGE';
    const outcome = await runOrEstimate(() => inTransaction(this.d.db, async (tx) => {
      const c = await this.common(tx, accountId);
      const { body, sender, fallbackSender, schedule } = await this.prepareRcs(tx, c, input);
      const res = await resolveRecipients(tx, this.d.directory, accountId, body.phoneNumbers, {
        transactional: body.transactional === true,
        channel: 'RCS',
        hasFallback: fallbackSender !== null,
        sender,
        priceList: c.priceList,
        skipContactCreation: body.skipContactCreation,
        skipDisabled: body.skipDisabled,
        throttle: this.d.throttle,
      });
      if (res.accepted.length === 0) {
        throw refusal(opts, null, res.rejected, () => noRecipientError(res.rejected));
      }
      const start = schedule ? schedule.epochMs : c.now;
      const job = this.jobRow(accountId, 'batch', 'RCS', sender.id, body.messageType, body.campaignName, res.accepted.length, res.rejected, body.batchSize, body.delayMs, schedule, c.now);
      // Spec §2.3: an unsubscribe chip sends the sender's trigger (a preview already stored it corrected, with a warning).
      const payload = { messageType: body.messageType, content: correctStopKeywords(normalizeContent(body.messageType, body.content), sender.stop_keyword).content };
      const quiet = QuietPlan.for(c.account, body.transactional);
      const built = await this.rcsRows(tx, c, res.accepted, payload, sender, fallbackSender ? { message: body.smsFallback!.message, sender: fallbackSender } : null, {
        source,
        campaignName: body.campaignName ?? null,
        jobId: job.id,
        dueAt: (i) => start + Math.floor(i / body.batchSize) * body.delayMs,
        schedule,
        audit: auditFor(opts),
        previewId: opts.previewId ?? null,
        quiet,
      });
      const { rows, audit } = built;
      const sent = { accepted: rows.length, rejected: built.rejected.length > 0 ? [...res.rejected, ...built.rejected] : res.rejected, duplicates: res.duplicates };
      if (rows.length === 0) throw refusal(opts, audit, sent.rejected, () => noRecipientError(sent.rejected));
      assertNotStale(opts, audit);
      job.total = rows.length;
      job.rejected = JSON.stringify(sent.rejected);
      const leased = schedule ? [] : await this.leaseDue(tx, rows, sender.id, c.now);
      const charged = await this.persist(tx, c, rows, job, opts.spender);
      if (opts.dryRun) throw new DryRunRollback(estimateOf('RCS', rows, sent, schedule, audit, quiet));
      // Quiet hours can defer any row past the last slice: the job completes when the latest row is due.
      let lastDue = 0;
      for (const r of rows) if (r.message.due_at > lastDue) lastDue = r.message.due_at;
      // Quiet hours held back every recipient: nothing goes now, the batch answers as scheduled from its first message.
      let first: NewMessage | null = null;
      if (!schedule && rows.every((r) => r.message.status === 'SCHEDULED')) for (const r of rows) if (!first || r.message.due_at < first.due_at) first = r.message;
      return { job, res: sent, schedule, body, charged, leased, lastDue, held: first, quietHours: quiet?.summary() ?? null };
    }));
    if ('dryRun' in outcome) return outcome;
    if (!outcome.schedule) {
      this.d.dispatcher.adopt(outcome.leased);
      this.d.dispatcher.wake();
    }
    const { job, res, schedule, body } = outcome;
    return {
      success: true,
      jobId: job.id,
      status: schedule ? 'scheduled' : 'processing',
      scheduled: schedule !== null || outcome.held !== null,
      queued: schedule === null,
      totalRequested: body.phoneNumbers.length,
      accepted: res.accepted,
      duplicates: res.duplicates,
      rejectedCount: res.rejected.length,
      rejected: res.rejected,
      creditsEstimated: milliToCredits(outcome.charged),
      batchSize: body.batchSize,
      delayMs: body.delayMs,
      estimatedCompletionTime: new Date(outcome.lastDue).toISOString(),
      ...(schedule
        ? { scheduleTime: schedule.utc, localScheduleTime: schedule.localTime, effectiveTimezone: schedule.effectiveTimezone, timezoneSource: schedule.timezoneSource }
        : outcome.held
          ? heldBackTime(outcome.held)
          : {}),
      ...(outcome.quietHours ? { quietHours: outcome.quietHours } : {}),
    };
  }

  private jobRow(accountId: string, kind: 'batch' | 'scheduled', type: 'RCS' | 'SMS', senderId: string, messageType: string | null, campaignName: string | undefined, total: number, rejected: RejectedRecipient[], batchSize: number, delayMs: number, schedule: ScheduleOk | null, now: number) {
    return {
      id: newId('job', now),
      account_id: accountId,
      kind,
      type,
      sendername_id: senderId,
      message_type: messageType,
      campaign_name: campaignName ?? null,
      total,
      rejected: JSON.stringify(rejected),
      batch_size: batchSize,
      delay_ms: delayMs,
      scheduled_at: schedule?.epochMs ?? null,
      time_zone: schedule?.effectiveTimezone ?? null,
      timezone_source: schedule?.timezoneSource ?? null,
      created_at: now,
      cancelled_at: null,
      cancelled_count: 0,
      credits_milli: 0,
    };
  }

  private async rcsRows(
    tx: Tx,
    c: Common,
    recipients: Recipient[],
    payload: { messageType: MessageType; content: Content },
    sender: SendersTable,
    fallback: { message: string; sender: SendersTable } | null,
    o: { source: MessageSource; campaignName: string | null; jobId: string | null; dueAt: (i: number) => number; schedule: ScheduleOk | null; audit: AuditMode; quiet: QuietPlan | null; previewId: string | null },
  ): Promise<{ rows: { message: NewMessage; token: ReturnType<typeof issueUnsubscribeLink>['row'] }[]; rejected: RejectedRecipient[]; audit: MergeAudit | null }> {
    const contentText = JSON.stringify(payload.content);
    const wantsUnsubscribe = containsUnsubscribePlaceholder(contentText) || (fallback !== null && containsUnsubscribePlaceholder(fallback.message));
    const hasPlaceholders = contentText.includes('{{');
    const plan = rcsMergePlan(payload.messageType, payload.content, fallback?.message ?? null);
    const audit = o.audit ? new MergeAudit(plan.names, 'rcs', mergeContextFor(c.base, { contact: null, unsubscribeUrl: null }), { unsubscribeUrl: c.account.unsubscribeUrl ?? null, collectValues: o.audit === 'collect', quietHours: o.quiet?.fingerprintKey() ?? null }) : null;
    const fallbackJson = fallback ? JSON.stringify({ message: fallback.message, sendernameId: fallback.sender.id }) : null;
    // Merge and check every recipient first: one whose merged message breaks a content rule is
    // rejected here, the same way in the preview's dry run and in the real send, and takes no
    // conversation window or credit.
    const merged: { r: Recipient; id: string; link: ReturnType<typeof issueUnsubscribeLink> | null; content: Content; fallbackText: string | null }[] = [];
    const rejected: RejectedRecipient[] = [];
    for (const r of recipients) {
      const id = newId('msg', c.now);
      const link = wantsUnsubscribe && r.contact ? issueUnsubscribeLink(this.d.links, this.d.config.publicUrl, c.account.unsubscribeUrl, c.account.id, r.contact.id, id, c.now) : null;
      const ctx = mergeContextFor(c.base, { contact: r.contact, unsubscribeUrl: link?.url ?? null });
      const content = hasPlaceholders ? mergeRcs(payload.content, ctx) : payload.content;
      const fallbackText = fallback ? mergeSmsText(fallback.message, ctx, 'fallback') : null;
      if (hasPlaceholders || fallbackText !== null) refuseMergedCharacters(r.e164, hasPlaceholders ? content : null, fallbackText);
      const problems = checkMergedMessage(plan, content, fallbackText);
      if (problems.length > 0) {
        rejected.push(mergeRejection(r.e164, problems));
        continue;
      }
      audit?.add(r.phone, identityOf(r), ctx, r.contact?.assistantWrites);
      merged.push({ r, id, link, content, fallbackText });
    }
    // Quiet hours (issue #28): each recipient's due time, judged at the time it would go out (its slice, its schedule).
    const dues: QuietDue[] | null = o.quiet ? merged.map((m, i) => o.quiet!.due(m.r, o.dueAt(i))) : null;
    // Conversation windows (spec §3.3): one question per send, inside this transaction.
    const free = await this.d.conversation.freeMessages(
      tx,
      c.account.id,
      sender,
      merged.flatMap((m, i) => (m.r.testPhone || m.r.smsOnly ? [] : [{ messageId: m.id, phone: m.r.phone, country: m.r.country, at: dues ? dues[i]!.at : o.dueAt(i) }])),
    );
    const rows = [];
    for (let i = 0; i < merged.length; i++) {
      const { r, id, link, content, fallbackText } = merged[i]!;
      const fallbackSms = fallbackText !== null ? analyzeSms(fallbackText) : null;
      // An SMS-only recipient (no RCS price for its country) is quoted as its fallback's segments.
      const cost =
        priceMessage(c.priceList, {
          channel: r.smsOnly ? 'SMS' : 'RCS',
          country: r.country,
          segments: fallbackSms?.segments ?? 1,
          testTraffic: r.testPhone,
          inOpenWindow: free.has(id),
          outcome: 'quoted',
        }).milli ?? 0;
      rows.push({
        token: link?.row ?? null,
        message: newMessageRow(c, r, sender, o, {
          id,
          type: 'RCS',
          message_type: payload.messageType,
          content: JSON.stringify(content),
          text: contentSummary(payload.messageType, content),
          sms_fallback: fallbackJson,
          fallback_text: fallbackText,
          credits_cost_milli: cost,
          sms_segments: r.smsOnly ? fallbackSms!.segments : null,
          sms_encoding: r.smsOnly ? fallbackSms!.encoding : null,
          fallback_used: r.smsOnly ? 1 : 0,
          fallback_reason: r.smsOnly ? 'RCS_COUNTRY_NOT_SUPPORTED' : null,
          due_at: dues ? dues[i]!.at : o.dueAt(i),
        }, dues ? dues[i]! : null),
      });
    }
    return { rows, rejected, audit };
  }

  private async smsRow(
    _tx: Tx,
    c: Common,
    r: Recipient,
    text: string,
    sender: SendersTable,
    o: { source: MessageSource; campaignName: string | null; jobId: string | null; dueAt: number; schedule: ScheduleOk | null; audit: AuditMode; quiet: QuietPlan | null; previewId: string | null },
  ) {
    const id = newId('msg', c.now);
    const plan: MergePlan = smsMergePlan(text);
    const link = containsUnsubscribePlaceholder(text) && r.contact ? issueUnsubscribeLink(this.d.links, this.d.config.publicUrl, c.account.unsubscribeUrl, c.account.id, r.contact.id, id, c.now) : null;
    const ctx: MergeContext = mergeContextFor(c.base, { contact: r.contact, unsubscribeUrl: link?.url ?? null });
    const audit = o.audit ? new MergeAudit(plan.names, 'sms', mergeContextFor(c.base, { contact: null, unsubscribeUrl: null }), { unsubscribeUrl: c.account.unsubscribeUrl ?? null, collectValues: o.audit === 'collect', quietHours: o.quiet?.fingerprintKey() ?? null }) : null;
    const merged = mergeSmsText(text, ctx, 'sms');
    refuseMergedCharacters(r.e164, null, null, merged);
    const problems = checkMergedMessage(plan, null, merged);
    if (problems.length > 0) return { row: null, rejected: mergeRejection(r.e164, problems), audit };
    audit?.add(r.phone, identityOf(r), ctx, r.contact?.assistantWrites);
    const sms = analyzeSms(merged);
    const cost = priceMessage(c.priceList, { channel: 'SMS', country: r.country, segments: sms.segments, testTraffic: r.testPhone, inOpenWindow: false, outcome: 'quoted' }).milli ?? 0;
    const due: QuietDue | null = o.quiet ? o.quiet.due(r, o.dueAt) : null;
    return {
      rejected: null,
      audit,
      row: {
        token: link?.row ?? null,
        message: newMessageRow(c, r, sender, o, {
          id,
          type: 'SMS',
          message_type: null,
          content: null,
          text: merged,
          sms_fallback: null,
          fallback_text: null,
          credits_cost_milli: cost,
          sms_segments: sms.segments,
          sms_encoding: sms.encoding,
          fallback_used: 0,
          fallback_reason: null,
          due_at: due ? due.at : o.dueAt,
        }, due),
      },
    };
  }

  /**
   * The messages due now are written already leased to this process's dispatcher, which then
   * sends them from memory after the commit (Dispatcher.adopt) instead of claiming each row back
   * with a second write. Rows are in due order; the sender's budget decides how many.
   */
  private async leaseDue(tx: Tx, rows: { message: NewMessage }[], senderId: string, now: number): Promise<NewMessage[]> {
    // Slices are in due order, but quiet hours may have deferred any row: only rows due now are leased.
    let due = 0;
    for (const r of rows) if (r.message.due_at <= now) due++;
    const lease = await this.d.dispatcher.leaseForNewMessages(tx, senderId, due);
    const out: NewMessage[] = [];
    for (let i = 0; i < rows.length && out.length < lease.count; i++) {
      const m = rows[i]!.message;
      if (m.due_at > now) continue;
      m.lease_until = lease.leaseUntil;
      m.claimed_by = lease.claimedBy;
      m.attempts = 1;
      out.push(m);
    }
    return out;
  }

  /**
   * Checks and charges the credential's budget (when the send has one), checks and debits credits (one ledger
   * entry for the send or job), then writes job, messages and tokens — all in the caller's transaction.
   */
  private async persist(tx: Tx, c: Common, rows: { message: NewMessage; token: ReturnType<typeof issueUnsubscribeLink>['row'] }[], job: ReturnType<SendService['jobRow']> | null, spender?: Spender): Promise<number> {
    const total = rows.reduce((s, r) => s + (r.message.credits_cost_milli ?? 0), 0);
    const single = rows.length === 1 ? rows[0]!.message : null;
    // A preview's send turns what its approval held into the charge: the hold goes first, so it is not counted twice.
    const previewId = rows[0]?.message.preview_id ?? null;
    if (previewId !== null) await releaseHold(tx, previewId);
    if (spender) await chargeBudget(tx, { accountId: c.account.id, spender, amountMilli: total, recipients: rows.length, zone: c.account.timezone }, c.now);
    await debitSend(
      tx,
      {
        accountId: c.account.id,
        amountMilli: total,
        reason: job ? `${job.kind === 'batch' ? 'Batch' : 'Scheduled'} ${job.type} send to ${rows.length} recipient${rows.length === 1 ? '' : 's'}` : `${single?.type ?? 'RCS'} message to +${single?.phone ?? ''}`,
        messageId: single?.id ?? null,
        jobId: job?.id ?? null,
      },
      c.now,
    );
    if (job) await tx.insertInto('jobs').values({ ...job, credits_milli: total }).execute();
    // 10,000 messages in 10 statements, each reading its rows from one JSON parameter (bulk.ts).
    await insertRowsAsJson(tx, 'messages', rows.map((r) => r.message));
    const CHUNK = 500;
    const tokens = rows.flatMap((r) => (r.token ? [r.token] : []));
    for (let i = 0; i < tokens.length; i += CHUNK) {
      await executeBulk(tx, 'unsubscribe_tokens.insert', tokens.slice(i, i + CHUNK), (part) => tx.insertInto('unsubscribe_tokens').values([...part]));
    }
    return total;
  }

  private async immediateRcsResult(row: MessagesTable): Promise<RcsSendResult> {
    const sent = (await this.d.dispatcher.dispatchNow(row.id)) ?? row;
    const countrySupported = sent.fallback_reason !== 'RCS_COUNTRY_NOT_SUPPORTED';
    return {
      success: sent.status !== 'FAILED',
      ...heldBack(sent),
      messageRecordId: sent.id,
      status: sent.status,
      method: sent.method,
      queued: sent.pending === 1,
      countrySupported,
      ...(countrySupported ? {} : { countryError: `RCS is not offered for ${sent.country}; sent by SMS fallback` }),
      fallbackUsed: sent.fallback_used === 1,
      ...(sent.fallback_reason ? { fallbackReason: sent.fallback_reason } : {}),
      creditsEstimated: milliToCredits(sent.credits_cost_milli ?? 0),
      ...(sent.error ? { error: sent.error } : {}),
    };
  }
}

/** The fields every new outbound message row shares; `own` holds what differs by channel. */
function newMessageRow(
  c: { account: { id: string }; now: number },
  r: Recipient,
  sender: SendersTable,
  o: { source: MessageSource; campaignName: string | null; jobId: string | null; schedule: ScheduleOk | null; previewId: string | null; quiet: QuietPlan | null },
  own: Pick<MessagesTable, 'id' | 'type' | 'message_type' | 'content' | 'text' | 'sms_fallback' | 'fallback_text' | 'credits_cost_milli' | 'sms_segments' | 'sms_encoding' | 'fallback_used' | 'fallback_reason' | 'due_at'>,
  /** Quiet hours: deferred (the recipient's zone) → SCHEDULED at the window's opening, like a scheduled message. */
  quiet: QuietDue | null = null,
): MessagesTable {
  const deferredIn = quiet?.deferredIn ?? null;
  // Written out field by field, in table order: every row gets the same hidden class, which keeps
  // building 10,000 of them cheap (a spread here was measurably slower in bench/batch.ts).
  return {
    id: own.id,
    account_id: c.account.id,
    job_id: o.jobId,
    type: own.type,
    status: o.schedule || deferredIn !== null ? 'SCHEDULED' : 'SENDING',
    direction: 'OUTBOUND',
    source: o.source,
    phone: r.phone,
    country: r.country,
    contact_id: r.contact?.id ?? null,
    sendername_id: sender.id,
    message_type: own.message_type,
    content: own.content,
    text: own.text,
    sms_fallback: own.sms_fallback,
    fallback_text: own.fallback_text,
    campaign_name: o.campaignName,
    credits_cost_milli: own.credits_cost_milli,
    sms_segments: own.sms_segments,
    sms_encoding: own.sms_encoding,
    method: null,
    fallback_used: own.fallback_used,
    fallback_reason: own.fallback_reason,
    error: null,
    carrier_message_id: null,
    created_at: c.now,
    scheduled_at: deferredIn !== null ? own.due_at : (o.schedule?.epochMs ?? null),
    sent_at: null,
    delivered_at: null,
    read_at: null,
    failed_at: null,
    pending: 1,
    due_at: own.due_at,
    lease_until: null,
    claimed_by: null,
    attempts: 0,
    time_zone: deferredIn ?? o.schedule?.effectiveTimezone ?? null,
    quiet_place: quiet?.place ?? null,
    preview_id: o.previewId,
    transactional: o.quiet?.marksTransactional === true ? 1 : 0,
  };
}

/** skipContactCreation would leave a conversation-billing sender without the contact its windows hang on. */
function assertSkipAllowed(skipContactCreation: boolean, sender: SendersTable): void {
  if (skipContactCreation && sender.supports_conversation_billing === 1) {
    throw new AppError('VALIDATION_ERROR', 'skipContactCreation is not allowed for conversation-billing senders', {
      details: [{ path: 'skipContactCreation', code: 'not_allowed', message: 'Not allowed with a conversation-billing sender' }],
    });
  }
}

/**
 * When the row of an immediate send waits for a later time — quiet hours deferred it (status SCHEDULED until the
 * recipient's window opens) — the answer says so and when it goes (HeldBackFields); else `scheduled: false`.
 */
function heldBack(row: MessagesTable): HeldBackFields | { scheduled: false } {
  if (row.status !== 'SCHEDULED' || row.pending !== 1) return { scheduled: false };
  const time = heldBackTime(row);
  return { scheduled: true, ...time, deferredUntil: time.scheduleTime };
}

/** When a held-back message goes: UTC, and local in the zone its hold was computed in (the recipient's). */
function heldBackTime(row: Pick<MessagesTable, 'due_at' | 'time_zone'>): Omit<HeldBackFields, 'scheduled' | 'deferredUntil'> {
  const zone = row.time_zone ?? 'UTC';
  const at = instantIn(row.due_at, zone);
  return { scheduleTime: at.utc, localScheduleTime: at.localTime, effectiveTimezone: zone, timezoneSource: 'recipient' };
}

/** An immediate RCS send that quiet hours deferred: queued, SCHEDULED until the recipient's window opens. */
function deferredRcsResult(row: MessagesTable): RcsSendResult {
  return {
    success: true,
    ...heldBack(row),
    messageRecordId: row.id,
    status: row.status,
    method: null,
    queued: true,
    countrySupported: row.fallback_reason !== 'RCS_COUNTRY_NOT_SUPPORTED',
    ...(row.fallback_reason === 'RCS_COUNTRY_NOT_SUPPORTED' ? { countryError: `RCS is not offered for ${row.country}; sent by SMS fallback` } : {}),
    fallbackUsed: row.fallback_used === 1,
    ...(row.fallback_reason ? { fallbackReason: row.fallback_reason } : {}),
    creditsEstimated: milliToCredits(row.credits_cost_milli ?? 0),
  };
}

function scheduledResult(jobId: string, row: MessagesTable, s: ScheduleOk): ScheduledResult {
  return {
    success: true,
    scheduled: true,
    jobId,
    messageId: row.id,
    scheduleTime: s.utc,
    localScheduleTime: s.localTime,
    effectiveTimezone: s.effectiveTimezone,
    timezoneSource: s.timezoneSource,
    ...(row.due_at !== s.epochMs ? { deferredUntil: new Date(row.due_at).toISOString() } : {}),
    creditsEstimated: milliToCredits(row.credits_cost_milli ?? 0),
    ...(row.type === 'SMS' ? { smsSegments: row.sms_segments ?? 0, smsEncoding: (row.sms_encoding ?? 'GSM-7') as 'GSM-7' | 'Unicode' } : {}),
  };
}

/** Who a contact-backed message goes to, for the preview fingerprint: the contact or a new one. */
function identityOf(r: Recipient): string {
  if (!r.contact) return 'none';
  return r.contactCreated ? 'new' : r.contact.id;
}

/**
 * A send left without recipients: PREVIEW_STALE when it is the send of a preview that had
 * accepted some, otherwise the refusal itself. A throttled single recipient keeps RATE_LIMITED:
 * nothing about the message changed, and the same preview can be sent after the wait.
 */
function refusal(opts: SendOptions, audit: MergeAudit | null, rejected: RejectedRecipient[], otherwise = () => rejectionError(rejected[0]!)): AppError {
  const throttled = rejected.length === 1 && rejected[0]!.code === 'RATE_LIMITED';
  if (opts.expectMerge && !throttled) {
    const report = compareFingerprints(opts.expectMerge, { ...(audit?.fingerprint() ?? opts.expectMerge), recipients: {} });
    if (report) return staleError(report);
  }
  return otherwise();
}

function noRecipientError(rejected: RejectedRecipient[]): AppError {
  return new AppError('VALIDATION_ERROR', 'No recipient can be sent to', {
    details: rejected.slice(0, 100).map((r, i) => ({ path: `phoneNumbers[${i}]`, code: r.code.toLowerCase(), message: `${r.phoneNumber}: ${r.reason}` })),
    extra: { rejected },
  });
}

/** A single send's recipient was refused: the reason becomes the error, with the spec's codes. */
function rejectionError(r: RejectedRecipient): AppError {
  const details = [{ path: 'phoneNumber', code: r.code.toLowerCase(), message: r.reason }];
  switch (r.code) {
    case 'SMS_COUNTRY_NOT_SUPPORTED':
      return new AppError('SMS_COUNTRY_NOT_SUPPORTED', `${r.reason}. Nothing was sent or charged.`, { details });
    case 'COUNTRY_NOT_SUPPORTED':
      return new AppError('COUNTRY_NOT_SUPPORTED', `${r.reason}. Nothing was sent or charged.`, { details });
    case 'CONTACT_DISABLED':
      return new AppError('CONTACT_DISABLED', r.reason, { details });
    case 'CONTACT_OPTED_OUT':
      return new AppError('CONTACT_OPTED_OUT', `${r.reason}. Nothing was sent or charged.`, { details });
    case 'CONSENT_UNDER_REVIEW':
      return new AppError('CONSENT_UNDER_REVIEW', `${r.reason}. Nothing was sent or charged.`, { details });
    case 'RATE_LIMITED': {
      const retry = r.retryAfterSeconds ?? 60;
      return new AppError('RATE_LIMITED', `${r.reason}. Nothing was sent or charged.`, { details, headers: { 'Retry-After': String(retry) }, extra: { retryAfterSeconds: retry } });
    }
    case 'NOT_A_TEST_PHONE':
      return new AppError('SENDER_NOT_ALLOWED', r.reason, { details });
    case INVALID_MERGED_CONTENT:
      return new AppError('VALIDATION_ERROR', r.reason, { details: r.details ?? details });
    default:
      return new AppError('VALIDATION_ERROR', `phoneNumber: ${r.reason}`, { details });
  }
}

/**
 * Merged values come from contact data, which is refused at write time when it holds characters
 * that must not reach a carrier (content/characters.ts); rows stored before that rule are caught here.
 */
function refuseMergedCharacters(e164: string, content: unknown, fallbackText: string | null, smsText?: string): void {
  const hit =
    (content !== null ? findForbiddenIn(content, 'content') : null) ??
    (fallbackText !== null ? findForbiddenIn(fallbackText, 'smsFallback.message') : null) ??
    (smsText !== undefined ? findForbiddenIn(smsText, 'message') : null);
  if (!hit) return;
  const message = `${forbiddenCharacterMessage('The merged text', hit.found)} It comes from the contact data of ${e164}; correct the contact and send again.`;
  throw new AppError('VALIDATION_ERROR', `${hit.path}: ${message}`, { details: [{ path: hit.path, code: INVALID_CHARACTER_CODE, message }] });
}
