import type { Config } from '../config.js';
import type { AccountsService } from '../accounts/service.js';
import { correctStopKeywords, type Content, type MessageType } from '../content/index.js';
import { textWarnings } from '../content/text-risks.js';
import { analyzeSms } from '../sms/index.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import { textOf } from '../platform/guards.js';
import type { PreviewsTable } from '../platform/db/tables/previews.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import type { Principal } from '../platform/permissions.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';
import type { MessageSource, RcsSendResult, ScheduledResult, SendEstimate, SendService, SmsSendResult } from '../messaging/send-service.js';
import { compareFingerprints, type MergeFingerprint } from '../messaging/merge-audit.js';
import type { BatchResponse } from '../messaging/schemas.js';
import { SendBatchRequestSchema, SendMessageRequestSchema, SendSmsRequestSchema, type SendBatchRequest, type SendMessageRequest, type SendSmsRequest } from '../messaging/schemas.js';
import { parseSendBody } from '../messaging/prepare.js';
import type { ValidationService } from '../validation-api/service.js';
import type { TemplatesService } from '../templates/service.js';
import { canonicalJson } from './canonical.js';
import { mayReuse, payloadDifferences, previewNeedsPerson, sendRefusal, waitsForPerson } from './policy.js';
import type { PreviewResult, RcsPayload, SmsPayload } from './schemas.js';
import { spenderOf, type Spender } from '../billing/budgets.js';
import { buildMergeReport, mergeValuesSummary, mergeValueWarnings, type StoredMergeValues } from './merge-report.js';

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
  contentChecks: Pick<ValidationService, 'warnings'>;
}

/**
 * Validate → preview → a person approves → send (spec §3.5, DESIGN §6). A preview stores the
 * whole send payload; the send tools must repeat it exactly, and a preview sends at most once.
 * Approval happens only on the share page, by a logged-in person of the owning account.
 */
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
    warnings.push(...textWarnings(payload.message, 'message'));
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
    const warnings = [...contentWarnings, ...(mergeWarnings ?? []), ...(report ? mergeValueWarnings(report) : [])];
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
    };
    await this.d.db.insertInto('previews').values(row).execute();
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

  toResult(row: PreviewsTable): PreviewResult {
    const estimate = parseJson<SendEstimate>(row.estimate, { dryRun: true, channel: 'RCS', accepted: 0, duplicates: 0, rejected: [], creditsEstimated: 0, samples: [] });
    const approvalRequired = row.approval_required === 1;
    const shareUrl = this.shareUrl(row.slug);
    const tool = SEND_TOOL[row.kind];
    return {
      preview_id: row.id,
      share_url: shareUrl,
      approval_required: approvalRequired,
      status: row.status,
      expires_at: toIso(row.expires_at)!,
      kind: row.kind,
      send_with: tool,
      recipients: { accepted: estimate.accepted, duplicates: estimate.duplicates, rejected: estimate.rejected },
      creditsEstimated: estimate.creditsEstimated,
      ...(estimate.sms ? { smsSegments: estimate.sms.segments, smsEncoding: estimate.sms.encoding } : {}),
      // The tool answers the texts only: the merged content of each sample is for the share page, and would repeat the payload's content five times.
      samples: estimate.samples.map((x) => ({ phoneNumber: x.phoneNumber, text: x.text, fallbackText: x.fallbackText, creditsCost: x.creditsCost })),
      ...(estimate.schedule ? { schedule: estimate.schedule } : {}),
      ...(row.merge_values ? { mergeValues: mergeValuesSummary(this.mergeReport(row)!) } : {}),
      warnings: parseJson<ErrorDetail[]>(row.warnings, []),
      payload: JSON.parse(row.payload) as Record<string, unknown>,
      nextStep:
        row.status === 'sent'
          ? 'This preview was already sent; calling the send tool again returns the same result.'
          : waitsForPerson({ approvalRequired, status: row.status }, { sendsNeedApproval: false })
            ? `Ask the user to open ${shareUrl}, log in and approve. Then call ${tool} with this preview_id (payload optional: if you pass it, exactly this one).`
            : `Call ${tool} with this preview_id (payload optional: if you pass it, exactly this one).`,
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

  /** A person's decision on the share page (the route checks login and CSRF). */
  async decide(accountId: string, slug: string, userId: string, decision: 'approved' | 'rejected'): Promise<PreviewsTable> {
    const row = await this.bySlug(accountId, slug);
    const now = this.d.clock.now();
    if (row.expires_at <= now) throw new AppError('PREVIEW_EXPIRED', 'This preview has expired; ask the assistant to preview the message again.');
    if (row.status !== 'pending' && row.status !== 'approved' && row.status !== 'rejected') {
      throw new AppError('CONFLICT', `This preview was already ${row.status}; it can no longer be changed.`);
    }
    await this.d.db.updateTable('previews').set({ status: decision, decided_by: userId, decided_at: now }).where('id', '=', row.id).where('status', 'in', ['pending', 'approved', 'rejected']).execute();
    return this.bySlug(accountId, slug);
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
    const opts = { source, expectMerge: fingerprint, spender: spenderOf(principal) };
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
