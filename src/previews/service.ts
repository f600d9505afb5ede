import { sql } from 'kysely';
import type { Config } from '../config.js';
import type { AccountsService } from '../accounts/service.js';
import { correctStopKeywords, type Content, type MessageType } from '../content/index.js';
import { analyzeSms } from '../sms/index.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import { textOf } from '../platform/guards.js';
import type { PreviewApprovalsTable, PreviewsTable } from './tables.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import { actorOf, type Principal } from '../platform/permissions.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';
import type { MessageSource, RcsSendResult, ScheduledResult, SendEstimate, SendService, SmsSendResult } from '../messaging/send-service.js';
import { compareFingerprints, type MergeFingerprint } from '../messaging/merge-audit.js';
import type { BatchResponse } from '../messaging/schemas.js';
import { SendBatchRequestSchema, SendMessageRequestSchema, SendSmsRequestSchema, type SendBatchRequest, type SendMessageRequest, type SendSmsRequest } from '../messaging/schemas.js';
import { parseSendBody } from '../messaging/prepare.js';
import type { ValidationService } from '../validation-api/service.js';
import type { TemplatesService } from '../templates/service.js';
import { canonicalJson } from '../platform/canonical-json.js';
import { mayReuse, payloadDifferences, previewNeedsPerson, sendRefusal, waitsForPerson, withPreviewRecipients } from './policy.js';
import type { PreviewResult, RcsPayload, SmsPayload } from './schemas.js';
import { accountZone, holdBudget, releaseHold, spenderOf, type Spender } from '../billing/budgets.js';
import { buildMergeReport, mergeValuesSummary, mergeValueWarnings, type StoredMergeValues } from './merge-report.js';
import { approvalCsvLine, approvalsCsvHeader, inboxState, shownFingerprint, type InboxState } from './audit.js';
import type { PreviewEvents, PreviewFacts } from './events.js';
import type { ApprovalRecord, InboxItem, InboxQuery, ApprovalsQuery } from './inbox-schemas.js';

/** An assistant's write to a contact is flagged on previews for this long (and until a person next approves). */
export const ASSISTANT_WRITE_FLAG_MS = 24 * 3_600_000;

/** How long a preview can be approved and sent. */
export const PREVIEW_TTL_MS = 24 * 3_600_000;

type Kind = PreviewsTable['kind'];
const SEND_TOOL: Record<Kind, PreviewResult['send_with']> = { rcs: 'rcs_send', rcs_batch: 'rcs_send_batch', sms: 'sms_send' };
const PREVIEW_TOOL: Record<Kind, string> = { rcs: 'rcs_preview', rcs_batch: 'rcs_preview', sms: 'sms_preview' };

/** An RCS preview payload as parsed at the door, by kind. */
export type ExpandedRcs = ({ kind: 'rcs'; payload: SendMessageRequest } | { kind: 'rcs_batch'; payload: SendBatchRequest }) & {
  /** `stop_keyword_corrected` warnings: unsubscribe chips whose keyword was set to the sender's trigger (spec §2.3). */
  corrections: ErrorDetail[];
};

/** What sending a preview of each kind returns. */
export interface PreviewSendResults {
  rcs: RcsSendResult | ScheduledResult;
  rcs_batch: BatchResponse;
  sms: SmsSendResult | ScheduledResult;
}

export interface PreviewDeps {
  db: Db;
  clock: Clock;
  config: Config;
  accounts: AccountsService;
  send: SendService;
  templates: TemplatesService;
  /** The content warnings /validate gives (custom-field tags known): one source for every door. */
  contentChecks: Pick<ValidationService, 'warnings' | 'smsWarnings'>;
  /** Told of every new, decided and expired preview inside its transaction (the webhooks area listens). */
  events: PreviewEvents;
}

/** Who decides on the share page, and what their page showed (the route reads it from the session and the form). */
export interface Decider {
  userId: string;
  email: string;
  /** The session's stored id hash (sessions.id_hash); the record keeps a hash of it. */
  sessionIdHash: string;
  clientIp: string | null;
  userAgent: string | null;
  /** The `fingerprint` field the page posted back: shownFingerprint() of the preview it rendered. */
  shown: string;
}

/** At most this many previews are checked for expiry per round of the expiry loop. */
export const EXPIRY_ROUND = 100;

/**
 * Validate → preview → a person approves → send (spec §3.5, DESIGN §6). A preview stores the
 * whole send payload; the send tools must repeat it exactly, and a preview sends at most once.
 * Approval happens only on the share page, by a logged-in person of the owning account.
 */
/**
 * What quiet hours will do, said before approval (issue #28): how many recipients wait for their window and until
 * when, or that a transactional send goes out at once. Shown with the other warnings on the share page and in the
 * REST and MCP results (beside `quietHours`).
 */
export function quietHoursWarnings(q: SendEstimate['quietHours'], accepted: number): ErrorDetail[] {
  if (!q) return [];
  if (q.transactional) {
    return [
      {
        path: 'transactional',
        code: 'quiet_hours_exempt',
        message: q.enabled
          ? 'Marked transactional: exempt from the account\'s quiet hours, it goes out at once, also at night. Only for one-time codes and replies inside an open conversation, never for marketing.'
          : 'Marked transactional (one-time code or reply inside an open conversation): it would be exempt from quiet hours, which are off for this account.',
      },
    ];
  }
  if (q.deferred === 0 || !q.earliestOpening) return [];
  const when = q.earliestOpening === q.latestOpening ? `at ${q.earliestOpening}` : `between ${q.earliestOpening} and ${q.latestOpening}`;
  const who = q.deferred === accepted ? `All ${accepted} recipient${accepted === 1 ? ' is' : 's are'}` : `${q.deferred} of ${accepted} recipients are`;
  return [{ path: 'quietHours', code: 'quiet_hours_deferred', message: `${who} inside quiet hours at the planned time (their local time): their messages are deferred to the opening of their window, ${when} (UTC), not dropped.${q.deferred < accepted ? ' The others go out as planned.' : ''}` }];
}

/**
 * A transactional send reaches numbers whose marketing is paused for a consent review (issue #42): the person approving
 * is told how many, so "transactional" cannot carry marketing past a pause unseen.
 */
export function consentReviewWarnings(underReview: number | undefined): ErrorDetail[] {
  if (!underReview) return [];
  const who = underReview === 1 ? '1 recipient replied' : `${underReview.toLocaleString('en-US')} recipients replied`;
  return [
    {
      path: 'transactional',
      code: 'consent_review_reached',
      message: `${who} something that may be a request to stop; marketing to them is paused until a person reviews it (console: Consent). This send reaches them only because it is marked transactional: approve it only if it truly is (a one-time code, an answer they asked for).`,
    },
  ];
}

/** How many refused numbers a preview answer names; the rest are counted and paged (issue #42). */
export const ANSWER_REJECTED_SHOWN = 10;

export const recipientsPath = (id: string): string => `/api/rcs/previews/${id}/recipients`;

/**
 * A preview answer does not grow with its recipients (issue #42: 10,000 numbers answered 172 KB on MCP): it counts
 * them, names the first refused ones, and says where the rest are listed.
 */
function recipientsSummary(id: string, estimate: SendEstimate, payload: Record<string, unknown>): PreviewResult['recipients'] {
  const numbers = Array.isArray(payload.phoneNumbers) ? payload.phoneNumbers.length : 1;
  return {
    accepted: estimate.accepted,
    duplicates: estimate.duplicates,
    rejected: estimate.rejected.slice(0, ANSWER_REJECTED_SHOWN),
    rejectedCount: estimate.rejected.length,
    phoneNumbers: numbers,
    listedAt: recipientsPath(id),
  };
}

/** The payload as answered: a batch's list of numbers is left out (counted in recipients.phoneNumbers, paged at recipients.listedAt). */
function answeredPayload(payload: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(payload.phoneNumbers)) return payload;
  const { phoneNumbers: _numbers, ...rest } = payload;
  void _numbers;
  return rest;
}

function recipientsNote(id: string, payload: Record<string, unknown>): string {
  return Array.isArray(payload.phoneNumbers)
    ? ` The ${payload.phoneNumbers.length.toLocaleString('en-US')} numbers are not repeated here (payload leaves phoneNumbers out and the send needs none); GET ${recipientsPath(id)} pages them.`
    : '';
}

export class PreviewsService {
  constructor(private readonly d: PreviewDeps) {}

  /** What the page shows for a recipient's own unsubscribe link (its token is issued when the message is sent). */
  unsubscribeLinkLabel(): string {
    return `${this.d.config.publicUrl}/u/(this recipient's own link)`;
  }

  shareUrl(slug: string): string {
    return `${this.d.config.publicUrl}/preview/${slug}`;
  }

  /** Expands an RCS preview/send payload: one recipient or many, content or a template. */
  async expandRcs(accountId: string, input: RcsPayload): Promise<ExpandedRcs> {
    const problems: ErrorDetail[] = [];
    const single = input.phoneNumber !== undefined;
    const many = input.phoneNumbers !== undefined;
    if (single === many) problems.push({ path: 'phoneNumber', code: 'exactly_one_of', message: 'Give phoneNumber (one recipient) or phoneNumbers (a batch), not both or neither' });
    if (single && (input.batchSize !== undefined || input.delayMs !== undefined)) problems.push({ path: 'batchSize', code: 'not_allowed', message: 'batchSize and delayMs belong to batches (phoneNumbers)' });
    if (many && input.contactId !== undefined) problems.push({ path: 'contactId', code: 'not_allowed', message: 'contactId is for one recipient (phoneNumber)' });
    const fromTemplate = input.templateId !== undefined;
    if (fromTemplate && (input.messageType !== undefined || input.content !== undefined)) problems.push({ path: 'templateId', code: 'exactly_one_of', message: 'Give templateId or messageType + content, not both' });
    if (!fromTemplate && (input.messageType === undefined || input.content === undefined)) problems.push({ path: input.messageType === undefined ? 'messageType' : 'content', code: 'required', message: 'Give messageType and content, or a templateId' });
    if (problems.length) throw new AppError('VALIDATION_ERROR', problems[0]!.message, { details: problems });

    let messageType = input.messageType as MessageType;
    let content = input.content as Content;
    if (fromTemplate) {
      assertId('tpl', input.templateId, 'templateId');
      const t = await this.d.templates.get(accountId, input.templateId!);
      if (t.type !== 'RCS' || !t.rcsMessageType || !t.parsedContent) {
        throw new AppError('VALIDATION_ERROR', 'templateId must name an RCS template (use sms_preview for SMS templates)', { details: [{ path: 'templateId', code: 'wrong_template_type', message: 'Not an RCS template' }] });
      }
      messageType = t.rcsMessageType;
      content = t.parsedContent;
    }
    const { phoneNumber, phoneNumbers, templateId: _t, messageType: _m, content: _c, ...rest } = input;
    void _t;
    void _m;
    void _c;
    // The door of previewed sends: parsed once here (defaults applied, so "skipDisabled omitted"
    // and "skipDisabled: true" are the same payload); the dry run and the send trust the result.
    const expanded = single
      ? { kind: 'rcs' as const, payload: parseSendBody(SendMessageRequestSchema, { ...rest, phoneNumber, messageType, content }) }
      : { kind: 'rcs_batch' as const, payload: parseSendBody(SendBatchRequestSchema, { ...rest, phoneNumbers, messageType, content }) };
    // Spec §2.3: the stored payload carries the keyword the phone will send — what the person approves is what is sent.
    // An unknown sender is left to the dry run, which refuses it with its own error.
    const sender = await this.d.db.selectFrom('senders').select('stop_keyword').where('account_id', '=', accountId).where('id', '=', expanded.payload.sendernameId).executeTakeFirst();
    if (!sender) return { ...expanded, corrections: [] };
    const corrected = correctStopKeywords(expanded.payload.content, sender.stop_keyword);
    expanded.payload.content = corrected.content;
    return { ...expanded, corrections: corrected.warnings };
  }

  /**
   * An RCS payload echoed to rcs_send / rcs_send_batch, expanded as at preview time (templateId, defaults) for the
   * comparison; a batch's echo may leave phoneNumbers out (withPreviewRecipients).
   */
  async expandEchoedRcs(accountId: string, previewId: string, payload: Record<string, unknown> | undefined): Promise<Record<string, unknown> | undefined> {
    if (payload === undefined) return undefined;
    const row = await this.get(accountId, previewId);
    const input = withPreviewRecipients(JSON.parse(row.payload) as Record<string, unknown>, payload) as RcsPayload;
    return (await this.expandRcs(accountId, input)).payload;
  }

  expandSms(input: SmsPayload): SendSmsRequest {
    return parseSendBody(SendSmsRequestSchema, input);
  }

  async createRcs(principal: Principal, input: RcsPayload): Promise<PreviewResult> {
    const expanded = await this.expandRcs(principal.accountId, input);
    const opts = { dryRun: true as const, source: 'MCP' as const, spender: spenderOf(principal) };
    const estimate = expanded.kind === 'rcs' ? await this.d.send.send(principal.accountId, expanded.payload, opts) : await this.d.send.sendBatch(principal.accountId, expanded.payload, opts);
    const { messageType, content, smsFallback } = expanded.payload;
    const warnings = [...expanded.corrections, ...(await this.d.contentChecks.warnings(principal.accountId, messageType, content, smsFallback))];
    return this.store(principal, expanded.kind, expanded.payload, estimate, warnings, false);
  }

  /** Idempotent: the same payload while a preview is still open returns that preview. */
  async createSms(principal: Principal, input: SmsPayload): Promise<PreviewResult> {
    const payload = this.expandSms(input);
    const estimate = await this.d.send.sendSms(principal.accountId, payload, { dryRun: true, source: 'MCP', spender: spenderOf(principal) });
    const sms = analyzeSms(textOf(payload.message));
    const warnings: ErrorDetail[] = sms.encoding === 'Unicode' ? [{ path: 'message', code: 'sms_unicode', message: `Unicode encoding (70 characters per SMS) forced by: ${sms.unicodeCharacters.join(' ')}` }] : [];
    warnings.push(...(await this.d.contentChecks.smsWarnings(principal.accountId, payload.message)));
    return this.store(principal, 'sms', payload, estimate, warnings, true);
  }

  private async store(principal: Principal, kind: Kind, payload: Record<string, unknown>, dryRun: SendEstimate, contentWarnings: ErrorDetail[], reuse: boolean): Promise<PreviewResult> {
    const now = this.d.clock.now();
    const canonical = canonicalJson(payload);
    const hash = sha256Hex(canonical);
    // The fingerprint is kept beside the estimate, not in it: it is for the send's check only.
    const { mergeFingerprint, mergeWarnings, mergeValues, ...estimate } = dryRun;
    const fingerprint = mergeFingerprint ?? null;
    const report = mergeValues && mergeValues.fields.length > 0 ? buildMergeReport(mergeValues, { now, assistantSince: await this.assistantSince(principal.accountId, now) }) : null;
    const warnings = [...contentWarnings, ...(mergeWarnings ?? []), ...(report ? mergeValueWarnings(report) : []), ...quietHoursWarnings(estimate.quietHours, estimate.accepted), ...consentReviewWarnings(estimate.underReview)];
    if (reuse) {
      const existing = await this.d.db
        .selectFrom('previews')
        .selectAll()
        .where('account_id', '=', principal.accountId)
        .where('kind', '=', kind)
        .where('payload_hash', '=', hash)
        .where('status', 'in', ['pending', 'approved'])
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      // Only while it still shows what would be sent (a stale one would be refused at send time), and a
      // preview that needs no approval is not handed to a credential whose sends need it.
      if (existing && mayReuse(existing, principal, fingerprint !== null && !this.isStale(existing, fingerprint))) return this.toResult(existing);
    }
    const account = await this.d.accounts.get(principal.accountId);
    const actor = actorOf(principal);
    const row: PreviewsTable = {
      id: newId('prv', now),
      account_id: principal.accountId,
      kind,
      slug: randomToken(18),
      payload: canonical,
      payload_hash: hash,
      // The credential that made it (its budget is shown on the share page), kept beside the estimate.
      estimate: JSON.stringify({ ...estimate, ...(spenderOf(principal) ? { spender: spenderOf(principal) } : {}) }),
      warnings: JSON.stringify(warnings),
      status: 'pending',
      // The account's switch (§3.5) or the credential: an assistant's preview always waits for a person.
      approval_required: previewNeedsPerson(account, principal) ? 1 : 0,
      created_by: principal.subjectId,
      created_at: now,
      expires_at: now + PREVIEW_TTL_MS,
      decided_by: null,
      decided_at: null,
      send_started_at: null,
      result: null,
      merge_fingerprint: fingerprint ? JSON.stringify(fingerprint) : null,
      merge_values: report ? JSON.stringify(report) : null,
      credential_id: actor.credentialId,
      credential_label: actor.label,
      expiry_noticed_at: null,
    };
    await inTransaction(this.d.db, async (tx) => {
      await tx.insertInto('previews').values(row).execute();
      await this.d.events.created(tx, this.facts(row));
    });
    return this.toResult(row);
  }

  /**
   * Assistant writes to contacts at or after this time are flagged on a new preview: those of the
   * last 24 hours, and older ones a person has not approved a send since (docs/decisions.md).
   */
  private async assistantSince(accountId: string, now: number): Promise<number> {
    const last = await this.d.db
      .selectFrom('previews')
      .select((eb) => eb.fn.max('decided_at').as('at'))
      .where('account_id', '=', accountId)
      .where('status', 'in', ['approved', 'sending', 'sent'])
      .executeTakeFirst();
    const approvedAt = last?.at === null || last?.at === undefined ? null : Number(last.at);
    return Math.min(now - ASSISTANT_WRITE_FLAG_MS, approvedAt ?? now - ASSISTANT_WRITE_FLAG_MS);
  }

  /** The credential that made the preview (null: a console session, or a preview from before budgets). */
  spenderOf(row: PreviewsTable): Spender | null {
    return parseJson<{ spender?: Spender }>(row.estimate, {}).spender ?? null;
  }

  /** The preview's merged values, arranged for the person (null: none vary, or made before migration 023). */
  mergeReport(row: PreviewsTable): StoredMergeValues | null {
    return parseJson<StoredMergeValues | null>(row.merge_values, null);
  }

  private isStale(row: PreviewsTable, current: MergeFingerprint): boolean {
    const stored = parseJson<MergeFingerprint | null>(row.merge_fingerprint, null);
    return stored === null || compareFingerprints(stored, current) !== null;
  }

  /** The numbers of a preview that will not be sent to, and why (every one; the answers name the first few). */
  rejectedOf(row: PreviewsTable): SendEstimate['rejected'] {
    return this.estimateOf(row).rejected;
  }

  private estimateOf(row: PreviewsTable): SendEstimate {
    return parseJson<SendEstimate>(row.estimate, { dryRun: true, channel: 'RCS', accepted: 0, duplicates: 0, rejected: [], creditsEstimated: 0, samples: [] });
  }

  toResult(row: PreviewsTable): PreviewResult {
    const estimate = this.estimateOf(row);
    const approvalRequired = row.approval_required === 1;
    const shareUrl = this.shareUrl(row.slug);
    const tool = SEND_TOOL[row.kind];
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    return {
      preview_id: row.id,
      share_url: shareUrl,
      approval_required: approvalRequired,
      status: row.status,
      expires_at: toIso(row.expires_at)!,
      kind: row.kind,
      send_with: tool,
      recipients: recipientsSummary(row.id, estimate, payload),
      creditsEstimated: estimate.creditsEstimated,
      ...(estimate.sms ? { smsSegments: estimate.sms.segments, smsEncoding: estimate.sms.encoding } : {}),
      // The tool answers the texts only: the merged content of each sample is for the share page, and would repeat the payload's content five times.
      samples: estimate.samples.map((x) => ({ phoneNumber: x.phoneNumber, text: x.text, fallbackText: x.fallbackText, creditsCost: x.creditsCost })),
      ...(estimate.schedule ? { schedule: estimate.schedule } : {}),
      ...(estimate.quietHours ? { quietHours: estimate.quietHours } : {}),
      ...(row.merge_values ? { mergeValues: mergeValuesSummary(this.mergeReport(row)!) } : {}),
      warnings: parseJson<ErrorDetail[]>(row.warnings, []),
      payload: answeredPayload(payload),
      nextStep:
        (row.status === 'sent'
          ? 'This preview was already sent; calling the send tool again returns the same result.'
          : waitsForPerson({ approvalRequired, status: row.status }, { sendsNeedApproval: false })
            ? `Ask the user to open ${shareUrl}, log in and approve. Then call ${tool} with this preview_id (payload optional: if you pass it, exactly this one).`
            : `Call ${tool} with this preview_id (payload optional: if you pass it, exactly this one).`) + recipientsNote(row.id, payload),
    };
  }

  async get(accountId: string, id: string): Promise<PreviewsTable> {
    assertId('prv', id, 'preview_id');
    const row = await this.d.db.selectFrom('previews').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', 'Preview not found', { extra: { nextStep: 'Call rcs_preview or sms_preview first and use the preview_id it returns.' } });
    return row;
  }

  /** For the share page: by slug, only for the owning account (otherwise not found). */
  async bySlug(accountId: string, slug: string): Promise<PreviewsTable> {
    const row = await this.d.db.selectFrom('previews').selectAll().where('slug', '=', slug).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', 'Preview not found');
    return row;
  }

  async listOpen(accountId: string, limit = 50): Promise<PreviewsTable[]> {
    return this.d.db
      .selectFrom('previews')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', this.d.clock.now())
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }

  /** How many previews wait for a person now (the console's Approvals tab). */
  async countWaiting(accountId: string): Promise<number> {
    const r = await this.d.db
      .selectFrom('previews')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', this.d.clock.now())
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** The facts other areas hear of (webhook payloads). */
  facts(row: PreviewsTable): PreviewFacts {
    const estimate = parseJson<Partial<SendEstimate>>(row.estimate, {});
    const payload = parseJson<{ campaignName?: unknown }>(row.payload, {});
    return {
      accountId: row.account_id,
      previewId: row.id,
      kind: row.kind,
      status: row.status,
      approvalRequired: row.approval_required === 1,
      credential: row.credential_id !== null && row.credential_label !== null ? { id: row.credential_id, label: row.credential_label } : null,
      recipients: estimate.accepted ?? 0,
      creditsEstimated: estimate.creditsEstimated ?? 0,
      campaignName: typeof payload.campaignName === 'string' ? payload.campaignName : null,
      shareUrl: this.shareUrl(row.slug),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  /**
   * The approvals inbox (console, GET /api/rcs/previews, rcs_jobs with `previews`): previews by
   * state, newest first, keyset-paged on (created_at, id). Without a state: every preview.
   */
  async inbox(accountId: string, q: InboxQuery): Promise<CursorPage<InboxItem>> {
    const now = this.d.clock.now();
    let qb = this.d.db.selectFrom('previews').selectAll().where('account_id', '=', accountId);
    const state: InboxState | undefined = q.status;
    if (state === 'waiting') qb = qb.where('status', '=', 'pending').where('expires_at', '>', now);
    else if (state === 'approved') qb = qb.where('status', '=', 'approved').where('expires_at', '>', now);
    else if (state === 'rejected') qb = qb.where('status', '=', 'rejected');
    else if (state === 'expired') qb = qb.where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', now);
    else if (state === 'sent') qb = qb.where('status', 'in', ['sending', 'sent']);
    const page = await keysetPage(qb, {
      // A cursor belongs to its state: one made for another filter is a 400.
      scope: { kind: `previews:${state ?? 'all'}`, sort: 'createdAt', order: 'desc' },
      sortExpr: sql.ref('created_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    const last = await this.lastDecisions(accountId, page.rows.map((r) => r.id));
    return { data: page.rows.map((r) => this.inboxItem(r, now, last.get(r.id) ?? null)), pagination: page.pagination };
  }

  private inboxItem(row: PreviewsTable, now: number, decision: PreviewApprovalsTable | null): InboxItem {
    const f = this.facts(row);
    const payload = parseJson<{ campaignName?: string; content?: { text?: string; title?: string }; message?: string }>(row.payload, {});
    const summary = payload.campaignName ?? payload.message ?? payload.content?.text ?? payload.content?.title ?? row.kind;
    return {
      previewId: row.id,
      state: inboxState(row, now),
      status: row.status,
      kind: row.kind,
      channel: row.kind === 'sms' ? 'SMS' : 'RCS',
      summary: summary.length > 80 ? `${summary.slice(0, 77)}…` : summary,
      recipients: f.recipients,
      creditsEstimated: f.creditsEstimated,
      approvalRequired: f.approvalRequired,
      createdBy: f.credential ?? { id: row.created_by, label: row.created_by },
      createdAt: toIso(row.created_at)!,
      expiresAt: toIso(row.expires_at)!,
      decidedAt: toIso(row.decided_at),
      decidedBy: decision ? decision.user_email : null,
      shareUrl: f.shareUrl,
    };
  }

  /** The latest decision record of each preview. */
  private async lastDecisions(accountId: string, previewIds: string[]): Promise<Map<string, PreviewApprovalsTable>> {
    const out = new Map<string, PreviewApprovalsTable>();
    if (previewIds.length === 0) return out;
    const rows = await this.d.db.selectFrom('preview_approvals').selectAll().where('account_id', '=', accountId).where('preview_id', 'in', previewIds).orderBy('decided_at').orderBy('id').execute();
    for (const r of rows) out.set(r.preview_id, r);
    return out;
  }

  /**
   * Who approved each of these previews, for the message log: the latest approval of a preview
   * that went out. Previews sent without a person's approval are absent.
   */
  async approversOf(accountId: string, previewIds: readonly string[]): Promise<Map<string, { email: string; userId: string; at: number }>> {
    const out = new Map<string, { email: string; userId: string; at: number }>();
    const ids = [...new Set(previewIds)];
    if (ids.length === 0) return out;
    const rows = await this.d.db
      .selectFrom('preview_approvals')
      .select(['preview_id', 'user_email', 'user_id', 'decided_at'])
      .where('account_id', '=', accountId)
      .where('preview_id', 'in', ids)
      .where('decision', '=', 'approved')
      .orderBy('decided_at')
      .orderBy('id')
      .execute();
    for (const r of rows) out.set(r.preview_id, { email: r.user_email, userId: r.user_id, at: Number(r.decided_at) });
    return out;
  }

  /** Every decision on one preview, oldest first (its share page shows them). */
  async decisionsOf(accountId: string, previewId: string): Promise<ApprovalRecord[]> {
    const rows = await this.d.db.selectFrom('preview_approvals').selectAll().where('account_id', '=', accountId).where('preview_id', '=', previewId).orderBy('decided_at').orderBy('id').execute();
    return rows.map(toApprovalRecord);
  }

  /** The account's approval history, newest first, keyset-paged (REST; the CSV export walks all of it). */
  async approvals(accountId: string, q: ApprovalsQuery): Promise<CursorPage<ApprovalRecord>> {
    const page = await keysetPage(this.d.db.selectFrom('preview_approvals').selectAll().where('account_id', '=', accountId), {
      scope: { kind: 'approvals', sort: 'decidedAt', order: 'desc' },
      sortExpr: sql.ref('decided_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: page.rows.map(toApprovalRecord), pagination: page.pagination };
  }

  /** The whole approval history as CSV lines (header first), newest first, read 500 rows at a time. */
  async *approvalsCsv(accountId: string): AsyncGenerator<string> {
    yield approvalsCsvHeader();
    let after: { at: number; id: string } | null = null;
    for (;;) {
      let qb = this.d.db.selectFrom('preview_approvals').selectAll().where('account_id', '=', accountId);
      if (after) {
        const a: { at: number; id: string } = after;
        qb = qb.where((eb) => eb.or([eb('decided_at', '<', a.at), eb.and([eb('decided_at', '=', a.at), eb('id', '<', a.id)])]));
      }
      const rows = await qb.orderBy('decided_at', 'desc').orderBy('id', 'desc').limit(500).execute();
      if (rows.length === 0) return;
      yield rows.map(approvalCsvLine).join('');
      const last = rows[rows.length - 1]!;
      after = { at: Number(last.decided_at), id: last.id };
      if (rows.length < 500) return;
    }
  }

  /** What the share page posts back with a decision (shownFingerprint of the preview it rendered). */
  shownFingerprint(row: PreviewsTable): string {
    return shownFingerprint(row);
  }

  /**
   * A person's decision on the share page (the route checks login and CSRF). Refused unless the
   * page posted back the fingerprint of this preview's content; records the decision in
   * preview_approvals and raises preview.approved / preview.rejected in the same transaction.
   */
  async decide(accountId: string, slug: string, decision: 'approved' | 'rejected', by: Decider): Promise<PreviewsTable> {
    const row = await this.bySlug(accountId, slug);
    const now = this.d.clock.now();
    if (row.expires_at <= now) throw new AppError('PREVIEW_EXPIRED', 'This preview has expired; ask the assistant to preview the message again.');
    if (row.status !== 'pending' && row.status !== 'approved' && row.status !== 'rejected') {
      throw new AppError('CONFLICT', `This preview was already ${row.status}; it can no longer be changed.`);
    }
    const shown = shownFingerprint(row);
    if (by.shown !== shown) {
      throw new AppError('PREVIEW_STALE', 'The page you decided on does not show this preview as it is stored; nothing was decided. Look at the page again, then approve or reject.');
    }
    const estimate = parseJson<Partial<SendEstimate>>(row.estimate, {});
    await inTransaction(this.d.db, async (tx) => {
      const changed = await tx
        .updateTable('previews')
        .set({ status: decision, decided_by: by.userId, decided_at: now })
        .where('id', '=', row.id)
        .where('status', 'in', ['pending', 'approved', 'rejected'])
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) throw new AppError('CONFLICT', 'This preview changed state meanwhile (sent or expired); nothing was decided.');
      // An approval holds the preview's credits and recipients against its credential's budget until it is sent,
      // rejected or expires, or is refused (BUDGET_EXCEEDED, the transaction rolls back) when the preview could
      // not go: nobody approves what cannot be sent. A rejection gives the hold back.
      const spender = this.spenderOf(row);
      if (decision === 'approved' && spender) {
        const hold = { accountId, spender, previewId: row.id, amountMilli: Math.round((estimate.creditsEstimated ?? 0) * 1000), recipients: estimate.accepted ?? 0, expiresAt: row.expires_at };
        await holdBudget(tx, { ...hold, zone: await accountZone(tx, accountId) }, now);
      } else await releaseHold(tx, row.id);
      const record: PreviewApprovalsTable = {
        id: newId('apv', now),
        account_id: accountId,
        preview_id: row.id,
        decision,
        user_id: by.userId,
        user_email: by.email,
        decided_at: now,
        session_hash: sha256Hex(`approval-session:${by.sessionIdHash}`),
        client_ip: by.clientIp === null ? null : by.clientIp.slice(0, 100),
        user_agent: by.userAgent === null ? null : by.userAgent.slice(0, 500),
        fingerprint: shown,
        preview_kind: row.kind,
        recipients: estimate.accepted ?? 0,
        credits_milli: Math.round((estimate.creditsEstimated ?? 0) * 1000),
        credential_label: row.credential_label,
      };
      await tx.insertInto('preview_approvals').values(record).execute();
      await this.d.events.decided(tx, this.facts({ ...row, status: decision, decided_by: by.userId, decided_at: now }), record);
    });
    return this.bySlug(accountId, slug);
  }

  /**
   * Notices previews that expired (one round of the expiry loop, any instance): each is marked
   * once by a conditional update, and those still waiting or approved raise preview.expired in the
   * same transaction — several instances raise it once. Returns how many were looked at.
   */
  async noticeExpired(): Promise<number> {
    const now = this.d.clock.now();
    const due = await this.d.db
      .selectFrom('previews')
      .selectAll()
      .where('expiry_noticed_at', 'is', null)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(EXPIRY_ROUND)
      .execute();
    for (const row of due) {
      await inTransaction(this.d.db, async (tx) => {
        const marked = await tx.updateTable('previews').set({ expiry_noticed_at: now }).where('id', '=', row.id).where('expiry_noticed_at', 'is', null).executeTakeFirst();
        if (Number(marked.numUpdatedRows) === 0) return;
        // Read again under the row's lock: a send or decision may have landed since the select.
        const current = await tx.selectFrom('previews').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
        if (current.status === 'pending' || current.status === 'approved') await this.d.events.expired(tx, this.facts(current));
        // An expired preview holds nothing (holds past expiry already count for nothing; this removes the row).
        await releaseHold(tx, row.id);
      });
    }
    return due.length;
  }

  /**
   * Sends a preview once. Refuses unknown/expired/rejected/unapproved previews and payloads that
   * differ from the preview (naming the fields; no payload sends the stored one); a repeat returns
   * the first result. The send runs through SendService with the preview's merge fingerprint,
   * which refuses with PREVIEW_STALE when anything a recipient would get merged in changed since
   * the preview.
   */
  async send<K extends Kind>(principal: Principal, previewId: string, kind: K, payload: Record<string, unknown> | undefined, source: MessageSource): Promise<PreviewSendResults[K]> {
    const row = await this.get(principal.accountId, previewId);
    const shareUrl = this.shareUrl(row.slug);
    if (row.kind !== kind) {
      throw new AppError('PREVIEW_MISMATCH', `This preview is for ${SEND_TOOL[row.kind]}, not ${SEND_TOOL[kind]}`, { extra: { nextStep: `Call ${SEND_TOOL[row.kind]} with this preview_id, or preview again for ${SEND_TOOL[kind]}.` } });
    }
    const stored = JSON.parse(row.payload) as Record<string, unknown>;
    const diff = payloadDifferences(stored, payload);
    if (diff.length > 0) {
      throw new AppError('PREVIEW_MISMATCH', `The payload differs from the preview at: ${diff.join(', ')}`, {
        details: diff.map((p) => ({ path: p, code: 'differs_from_preview', message: 'Not the previewed value' })),
        extra: { differingFields: diff },
      });
    }
    if (row.result !== null) return JSON.parse(row.result) as PreviewSendResults[K];
    const now = this.d.clock.now();
    switch (sendRefusal(row, kind, principal, now)) {
      case 'rejected':
        throw new AppError('PREVIEW_REJECTED', 'The user rejected this preview; nothing was sent.');
      case 'expired':
        throw new AppError('PREVIEW_EXPIRED', 'This preview has expired; nothing was sent.');
      case 'stuck':
        throw new AppError('CONFLICT', 'A send of this preview started but did not finish; check rcs_message_log before trying anything else.');
      case 'sending':
        throw new AppError('CONFLICT', 'This preview is being sent right now; call again in a moment to get the result.');
      case 'not_approved':
        throw new AppError('PREVIEW_NOT_APPROVED', `The user has not approved this preview yet. Ask them to open ${shareUrl}, log in and approve it.`, {
          extra: { share_url: shareUrl, nextStep: `Ask the user to open ${shareUrl} and approve, then call ${SEND_TOOL[kind]} again with the same preview_id.` },
        });
      case 'wrong_kind':
      case null:
        break;
    }
    // Claim the preview so two concurrent calls cannot both send.
    const claim = await this.d.db
      .updateTable('previews')
      .set({ status: 'sending', send_started_at: now })
      .where('id', '=', row.id)
      .where('status', '=', row.status)
      .where('result', 'is', null)
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) === 0) return this.send(principal, previewId, kind, payload, source);
    try {
      const result = (await this.sendStored(principal, row, stored, source)) as PreviewSendResults[K];
      await this.d.db.updateTable('previews').set({ status: 'sent', result: JSON.stringify(result) }).where('id', '=', row.id).execute();
      return result;
    } catch (err) {
      await this.d.db.updateTable('previews').set({ status: row.status, send_started_at: null }).where('id', '=', row.id).execute();
      throw err;
    }
  }

  /** The real send of a stored preview payload, checked against what the preview merged. */
  private async sendStored(principal: Principal, row: PreviewsTable, stored: Record<string, unknown>, source: MessageSource): Promise<PreviewSendResults[Kind]> {
    const accountId = principal.accountId;
    const fingerprint = parseJson<MergeFingerprint | null>(row.merge_fingerprint, null);
    const nextStep = `Call ${PREVIEW_TOOL[row.kind]} again with the same payload, ask the user to open the new share_url and approve what recipients will now get, then call ${SEND_TOOL[row.kind]} with the new preview_id.`;
    if (!fingerprint) {
      throw new AppError('PREVIEW_STALE', 'This preview was made before merged values were recorded, so what recipients would get cannot be checked. Nothing was sent or charged.', { extra: { nextStep } });
    }
    // Charged to the credential that sends it, checked again against its budget in the send's transaction.
    const opts = { source, expectMerge: fingerprint, previewId: row.id, spender: spenderOf(principal) };
    try {
      // Stored JSON is input again: it passes the door before the send trusts it.
      if (row.kind === 'rcs') return await this.d.send.send(accountId, parseSendBody(SendMessageRequestSchema, stored), opts);
      if (row.kind === 'rcs_batch') return await this.d.send.sendBatch(accountId, parseSendBody(SendBatchRequestSchema, stored), opts);
      return await this.d.send.sendSms(accountId, parseSendBody(SendSmsRequestSchema, stored), opts);
    } catch (err) {
      if (err instanceof AppError && err.code === 'PREVIEW_STALE') {
        throw new AppError('PREVIEW_STALE', err.message, { details: err.details, extra: { ...err.extra, nextStep } });
      }
      throw err;
    }
  }
}

function toApprovalRecord(r: PreviewApprovalsTable): ApprovalRecord {
  return {
    approvalId: r.id,
    previewId: r.preview_id,
    decision: r.decision,
    decidedAt: toIso(r.decided_at)!,
    userId: r.user_id,
    email: r.user_email,
    clientIp: r.client_ip,
    userAgent: r.user_agent,
    sessionHash: r.session_hash,
    shownFingerprint: r.fingerprint,
    kind: r.preview_kind,
    recipients: Number(r.recipients),
    creditsEstimated: Number(r.credits_milli) / 1000,
    createdBy: r.credential_label,
  };
}
