import { sql } from 'kysely';
import type { AccountsService } from '../accounts/service.js';
import { usableSender } from '../messaging/prepare.js';
import { isTestTraffic, milliToCredits, priceMessage } from '../billing/pricing.js';
import type { ConversationCandidate, ConversationPricing } from '../messaging/pricing.js';
import { normalizePhone } from '../phone/index.js';
import { toIso, type Clock } from '../platform/clock.js';
import type { Db, DbOrTx, Tx } from '../platform/db/database.js';
import { sortKey } from '../platform/db/sort-key.js';
import { parseJson } from '../platform/db/sql.js';
import type { Database } from '../platform/db/schema.js';
import type { ConversationsTable } from './tables.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { pagePagination } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import {
  BillingPreviewRequestSchema,
  CONVERSATION_WINDOW_MS,
  ConversationListQuerySchema,
  type BillingPreviewResponse,
  type Conversation,
  type ConversationListResponse,
  type ConversationStatusResponse,
  type RateLimitResponse,
} from './schemas.js';
import type { RecipientRateLimiter } from './throttle.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

const CHUNK = 900;

type WindowRow = ConversationsTable & { sender_name: string | null };

/** The number of a path or query parameter, or a 400 naming the parameter. */
export function parsePhoneParam(input: string, path = 'phoneNumber'): { digits: string; e164: string; country: string } {
  const n = normalizePhone(input);
  if (!n.ok) throw new AppError('VALIDATION_ERROR', `${path}: ${n.message}`, { details: [{ path, code: n.code, message: n.message }] });
  return n;
}

export function toConversation(row: WindowRow, now: number): Conversation {
  const active = row.expires_at > now;
  return {
    id: row.id,
    phoneNumber: `+${row.phone}`,
    sendernameId: row.sender_id,
    senderName: row.sender_name,
    status: active ? 'ACTIVE' : 'EXPIRED',
    sessionStarted: toIso(row.started_at)!,
    sessionExpires: toIso(row.expires_at)!,
    remainingSeconds: active ? Math.ceil((row.expires_at - now) / 1000) : 0,
    lastActivity: toIso(row.last_activity_at)!,
    userRepliedAt: toIso(row.user_replied_at),
    messageCount: row.outbound_count,
    inboundCount: row.inbound_count,
    openedByMessageId: row.opened_message_id,
  };
}

export interface ConversationsDeps {
  db: Db;
  clock: Clock;
  accounts: AccountsService;
  throttle: RecipientRateLimiter;
}

/**
 * Conversation billing (spec §2.6 supportsConversationBilling, §3.3): 24-hour windows per
 * account + sender + number. The first billable RCS message of a conversation-billing sender to a
 * number opens a window and is charged; later messages whose send time falls inside it are free.
 * The person's first reply (or chip tap) inside a window moves its end to 24 h after that reply,
 * once — as RCS conversation billing counts a conversation from the first reply; an incoming
 * message opens nothing by itself. ACTIVE/EXPIRED is derived from the clock on every read.
 *
 * Also the per-recipient throttle's read side and the billing preview, which uses the very same
 * window lookup as the charge, so both agree for the same numbers at the same moment.
 */
export class ConversationsService implements ConversationPricing {
  constructor(private readonly d: ConversationsDeps) {}

  /** Windows that count: their opening message still exists (not cancelled) and did not FAIL. */
  private windows(q: DbOrTx, accountId: string) {
    return q
      .selectFrom('conversations')
      .innerJoin('messages', 'messages.id', 'conversations.opened_message_id')
      .leftJoin('senders', 'senders.id', 'conversations.sender_id')
      .selectAll('conversations')
      .select('senders.name as sender_name')
      .where('conversations.account_id', '=', accountId)
      .where('messages.status', '!=', 'FAILED');
  }

  // ---- the charge (ConversationPricing, called inside the send transaction) ------------------

  async freeMessages(tx: DbOrTx, accountId: string, sender: SendersTable, messages: readonly ConversationCandidate[]): Promise<ReadonlySet<string>> {
    const free = new Set<string>();
    if (sender.supports_conversation_billing !== 1 || messages.length === 0) return free;
    const minAt = messages.reduce((a, m) => Math.min(a, m.at), Infinity);
    const maxAt = messages.reduce((a, m) => Math.max(a, m.at), -Infinity);
    const byPhone = new Map<string, { id: string; start: number; end: number; fresh: boolean }[]>();
    const phones = [...new Set(messages.map((m) => m.phone))];
    for (let i = 0; i < phones.length; i += CHUNK) {
      const rows = await this.windows(tx, accountId)
        .where('conversations.sender_id', '=', sender.id)
        .where('conversations.phone', 'in', phones.slice(i, i + CHUNK))
        .where('conversations.started_at', '<=', maxAt)
        .where('conversations.expires_at', '>', minAt)
        .execute();
      for (const r of rows) {
        const list = byPhone.get(r.phone) ?? [];
        list.push({ id: r.id, start: r.started_at, end: r.expires_at, fresh: false });
        byPhone.set(r.phone, list);
      }
    }
    const now = this.d.clock.now();
    const opened: ConversationsTable[] = [];
    // Existing windows touched by free messages, grouped by send time for a few bulk updates.
    const touched = new Map<number, string[]>();
    for (const m of messages) {
      const list = byPhone.get(m.phone) ?? [];
      const w = list.find((x) => x.start <= m.at && m.at < x.end);
      if (w) {
        free.add(m.messageId);
        if (!w.fresh) touched.set(m.at, [...(touched.get(m.at) ?? []), w.id]);
        continue;
      }
      const row: ConversationsTable = {
        id: newId('cnv', now),
        account_id: accountId,
        sender_id: sender.id,
        phone: m.phone,
        country: m.country,
        opened_message_id: m.messageId,
        started_at: m.at,
        expires_at: m.at + CONVERSATION_WINDOW_MS,
        user_replied_at: null,
        last_activity_at: m.at,
        outbound_count: 1,
        inbound_count: 0,
        created_at: now,
      };
      opened.push(row);
      list.push({ id: row.id, start: row.started_at, end: row.expires_at, fresh: true });
      byPhone.set(m.phone, list);
    }
    for (let i = 0; i < opened.length; i += 500) await tx.insertInto('conversations').values(opened.slice(i, i + 500)).execute();
    for (const [at, ids] of touched) {
      for (let i = 0; i < ids.length; i += CHUNK) {
        await tx
          .updateTable('conversations')
          .set((eb) => ({
            outbound_count: eb('outbound_count', '+', 1),
            // Portable max(): CASE instead of SQLite's two-argument max() / PostgreSQL's GREATEST.
            last_activity_at: sql<number>`case when last_activity_at < ${at} then ${at} else last_activity_at end`,
          }))
          .where('id', 'in', ids.slice(i, i + CHUNK))
          .execute();
      }
    }
    return free;
  }

  /**
   * The person wrote or tapped (inbound handler, inside its transaction). Inside an open window
   * of that sender: counted, and the first reply moves the end to 24 h after it. Outside any
   * window: nothing opens — the business's next message does, and is charged.
   */
  async noteUserActivity(tx: Tx, accountId: string, senderId: string, phone: string, at: number): Promise<Conversation | null> {
    const w = await this.windows(tx, accountId)
      .where('conversations.sender_id', '=', senderId)
      .where('conversations.phone', '=', phone)
      .where('conversations.started_at', '<=', at)
      .where('conversations.expires_at', '>', at)
      .orderBy('conversations.expires_at', 'desc')
      .executeTakeFirst();
    if (!w) return null;
    const firstReply = w.user_replied_at === null;
    const patch = {
      inbound_count: w.inbound_count + 1,
      last_activity_at: Math.max(w.last_activity_at, at),
      ...(firstReply ? { user_replied_at: at, expires_at: Math.max(w.expires_at, at + CONVERSATION_WINDOW_MS) } : {}),
    };
    await tx.updateTable('conversations').set(patch).where('id', '=', w.id).execute();
    return toConversation({ ...w, ...patch }, this.d.clock.now());
  }

  // ---- reads -------------------------------------------------------------------------------

  /** GET /conversations: windows that have started, newest activity first, page-based. */
  async list(accountId: string, rawQuery: unknown): Promise<ConversationListResponse> {
    const q = parseOrThrow(ConversationListQuerySchema, rawQuery ?? {}, 'Query');
    const now = this.d.clock.now();
    let qb = this.windows(this.d.db, accountId).where('conversations.started_at', '<=', now);
    if (q.status === 'ACTIVE') qb = qb.where('conversations.expires_at', '>', now);
    if (q.status === 'EXPIRED') qb = qb.where('conversations.expires_at', '<=', now);
    if (q.phoneNumber !== undefined) qb = qb.where('conversations.phone', '=', parsePhoneParam(q.phoneNumber).digits);
    if (q.sendernameId !== undefined) qb = qb.where('conversations.sender_id', '=', q.sendernameId);
    const totalRow = await qb.clearSelect().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const total = Number(totalRow?.n ?? 0);
    const rows = await qb
      // With a number: its windows through conversations_lookup, then sorted.
      .orderBy(sortKey('conversations.last_activity_at', { afterFilter: q.phoneNumber !== undefined }), 'desc')
      .orderBy('conversations.id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute();
    return { success: true, data: rows.map((r) => toConversation(r, now)), pagination: pagePagination(q.page, q.limit, total) };
  }

  /**
   * GET /conversations/{phoneNumber}/status and rcs_conversation_status: is a window open to the
   * number right now (of any sender, or of `sendernameId`), and its times.
   */
  async status(accountId: string, phoneNumber: string, opts: { sendernameId?: string | undefined } = {}): Promise<ConversationStatusResponse> {
    const phone = parsePhoneParam(phoneNumber);
    const now = this.d.clock.now();
    let qb = this.windows(this.d.db, accountId).where('conversations.phone', '=', phone.digits).where('conversations.started_at', '<=', now);
    if (opts.sendernameId !== undefined) qb = qb.where('conversations.sender_id', '=', opts.sendernameId);
    const rows = await qb.orderBy('conversations.expires_at', 'desc').orderBy('conversations.id', 'desc').execute();
    const latestPerSender = new Map<string, WindowRow>();
    for (const r of rows) if (!latestPerSender.has(r.sender_id)) latestPerSender.set(r.sender_id, r);
    const conversations = [...latestPerSender.values()].map((r) => toConversation(r, now));
    const main = conversations[0] ?? null;
    const active = conversations.filter((c) => c.status === 'ACTIVE');
    return {
      success: true,
      phoneNumber: phone.e164,
      hasActiveConversation: active.length > 0,
      status: main ? main.status : 'NONE',
      sessionStarted: main?.sessionStarted ?? null,
      sessionExpires: main?.sessionExpires ?? null,
      remainingSeconds: main?.remainingSeconds ?? 0,
      sendernameId: main?.sendernameId ?? null,
      activeSendernameIds: active.map((c) => c.sendernameId),
      conversation: main,
      conversations,
      checkedAt: toIso(now)!,
    };
  }

  /**
   * POST /conversations/billing-preview: which numbers a message sent now would cost. Read-only.
   * The same window lookup as the charge; numbers that cannot be read (or checked) are
   * ERROR_CHECKING and counted as chargeable (spec §4.1).
   */
  async billingPreview(accountId: string, rawBody: unknown): Promise<BillingPreviewResponse> {
    const body = parseOrThrow(BillingPreviewRequestSchema, rawBody, 'Request body');
    const now = this.d.clock.now();
    const sender = body.sendernameId !== undefined ? await usableSender(this.d.db, accountId, body.sendernameId, 'RCS', 'sendernameId') : null;
    const priceList = await this.d.accounts.priceList(accountId);
    const testSender = { isTest: sender?.is_test === 1, testPhones: new Set(sender?.is_test === 1 ? parseJson<string[]>(sender.test_phones, []) : []) };
    const parsed = body.phoneNumbers.map((input) => ({ input, n: normalizePhone(input) }));
    const phones = [...new Set(parsed.flatMap((p) => (p.n.ok ? [p.n.digits] : [])))];

    // Open windows now, by number: of the given sender (when it bills by conversation), or of any.
    let windows = new Map<string, WindowRow>();
    let lookupError: string | null = null;
    if (!sender || sender.supports_conversation_billing === 1) {
      try {
        windows = await this.openWindows(accountId, phones, now, sender?.id ?? null);
      } catch {
        lookupError = 'The conversation status could not be checked';
      }
    }

    const seen = new Set<string>();
    const results: BillingPreviewResponse['results'] = [];
    let estimatedMilli = 0;
    for (const { input, n } of parsed) {
      if (!n.ok) {
        results.push({ phoneNumber: input, normalized: null, free: false, chargeable: true, reason: 'ERROR_CHECKING', conversation: null, estimatedCost: null, error: n.message });
        continue;
      }
      if (seen.has(n.digits)) {
        results.push({ phoneNumber: input, normalized: n.e164, free: false, chargeable: false, reason: 'DUPLICATE', conversation: null, estimatedCost: 0 });
        continue;
      }
      seen.add(n.digits);
      // The send's own price question (src/billing/pricing.ts), asked for an RCS message now.
      const testTraffic = isTestTraffic(testSender, n.digits);
      const quote = (inOpenWindow: boolean) => priceMessage(priceList, { channel: 'RCS', country: n.country, segments: 1, testTraffic, inOpenWindow, outcome: 'quoted' }).milli;
      const charged = () => {
        const price = quote(false);
        if (price !== null) estimatedMilli += price;
        return price === null ? null : milliToCredits(price);
      };
      if (testTraffic) {
        results.push({ phoneNumber: input, normalized: n.e164, free: true, chargeable: false, reason: 'TEST_PHONE', conversation: null, estimatedCost: milliToCredits(quote(false) ?? 0) });
      } else if (sender && sender.supports_conversation_billing !== 1) {
        results.push({ phoneNumber: input, normalized: n.e164, free: false, chargeable: true, reason: 'NOT_CONVERSATION_BILLING', conversation: null, estimatedCost: charged() });
      } else if (lookupError !== null) {
        results.push({ phoneNumber: input, normalized: n.e164, free: false, chargeable: true, reason: 'ERROR_CHECKING', conversation: null, estimatedCost: charged(), error: lookupError });
      } else {
        const w = windows.get(n.digits);
        if (w) {
          results.push({ phoneNumber: input, normalized: n.e164, free: true, chargeable: false, reason: 'ACTIVE_CONVERSATION', conversation: { id: w.id, sendernameId: w.sender_id, sessionExpires: toIso(w.expires_at)! }, estimatedCost: milliToCredits(quote(true) ?? 0) });
        } else {
          results.push({ phoneNumber: input, normalized: n.e164, free: false, chargeable: true, reason: 'NO_ACTIVE_CONVERSATION', conversation: null, estimatedCost: charged() });
        }
      }
    }
    return {
      success: true,
      checkedAt: toIso(now)!,
      sendernameId: sender?.id ?? null,
      total: results.length,
      freeCount: results.filter((r) => r.free).length,
      chargeableCount: results.filter((r) => r.chargeable).length,
      errorCount: results.filter((r) => r.reason === 'ERROR_CHECKING').length,
      duplicateCount: results.filter((r) => r.reason === 'DUPLICATE').length,
      estimatedCredits: milliToCredits(estimatedMilli),
      results,
    };
  }

  /** The open window (longest-lasting) per number at `at`, of one sender or of any. */
  private async openWindows(accountId: string, phones: readonly string[], at: number, senderId: string | null): Promise<Map<string, WindowRow>> {
    const out = new Map<string, WindowRow>();
    for (let i = 0; i < phones.length; i += CHUNK) {
      let qb = this.windows(this.d.db, accountId)
        .where('conversations.phone', 'in', phones.slice(i, i + CHUNK))
        .where('conversations.started_at', '<=', at)
        .where('conversations.expires_at', '>', at);
      if (senderId !== null) qb = qb.where('conversations.sender_id', '=', senderId);
      for (const r of await qb.execute()) {
        const prev = out.get(r.phone);
        if (!prev || prev.expires_at < r.expires_at) out.set(r.phone, r);
      }
    }
    return out;
  }

  /** GET /conversations/{phoneNumber}/rate-limit: the per-recipient throttle for the number. */
  async rateLimit(accountId: string, phoneNumber: string): Promise<RateLimitResponse> {
    const phone = parsePhoneParam(phoneNumber);
    const now = this.d.clock.now();
    const s = await this.d.throttle.state(accountId, phone.digits, this.d.db, now);
    return {
      success: true,
      phoneNumber: phone.e164,
      enabled: s.enabled,
      limit: s.limit,
      windowSeconds: Math.round(s.windowMs / 1000),
      used: s.used,
      remaining: s.remaining,
      limited: s.limited,
      resetAt: toIso(s.resetAt),
      retryAfterSeconds: Math.ceil(s.retryAfterMs / 1000),
      checkedAt: toIso(now)!,
    };
  }
}
