import type { SimulatedNetwork } from '../carriers/simulated/network.js';
import type { Content, MessageType } from '../content/index.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import type { Db } from '../platform/db/database.js';
import { sql } from 'kysely';
import { escapeLike, parseJson } from '../platform/db/sql.js';
import { textOf } from '../platform/guards.js';
import { AppError } from '../platform/errors.js';
import { normalizePhone } from '../phone/index.js';
import { optedOutPhones } from '../suppression/opt-outs.js';
import type { PhoneSearch } from './phone-search.js';
import { tapButtons } from './tap-buttons.js';

/** What a number received, as the virtual phone shows it. */
export interface PhoneNumberSummary {
  /** E.164 */
  phone: string;
  received: number;
  lastAt: number;
  contactName: string | null;
}

export type ThreadItem =
  | {
      kind: 'out';
      at: number;
      simId: string;
      messageId: string;
      channel: 'RCS' | 'SMS';
      /** RCS: the message as sent (normalized, merged). */
      rcs: { messageType: MessageType; content: Content } | null;
      /** SMS: the text as sent. */
      text: string | null;
      state: 'sent' | 'delivered' | 'read' | 'failed';
    }
  | { kind: 'in'; at: number; text: string; channel: 'RCS' | 'SMS' }
  | { kind: 'tap'; at: number; buttonText: string };

export interface PhoneThread {
  senderId: string;
  senderName: string;
  channel: 'RCS' | 'SMS';
  stopKeyword: string;
  items: ThreadItem[];
}

export interface PhoneView {
  phone: string;
  optedOut: boolean;
  threads: PhoneThread[];
}

/** Where a tap on the virtual phone landed: a chip of the message, or a card button. */
export type TapTarget = { kind: 'chip'; index: number } | { kind: 'card'; card: number; action: number };

export function parseTapTarget(raw: string): TapTarget | null {
  let m = /^s:(\d{1,2})$/.exec(raw);
  if (m) return { kind: 'chip', index: Number(m[1]) };
  m = /^c:(\d{1,2}):(\d)$/.exec(raw);
  if (m) return { kind: 'card', card: Number(m[1]), action: Number(m[2]) };
  return null;
}

const THREAD_LIMIT = 200;
/** Numbers listed at once; a search finds the others. */
export const NUMBER_LIMIT = 200;

export interface VirtualPhoneDeps {
  db: Db;
  /** Raises the person's taps and replies as the carrier events a real network raises. */
  network: Pick<SimulatedNetwork, 'userTap' | 'userReply'>;
  /** Read at call time: the public URL follows the bound port when PUBLIC_URL is not set. */
  publicUrl: () => string;
  /** The network's store keeps link tokens masked; the phone shows what the person received. */
  links: Pick<LinkTokens, 'reveal'>;
}

/**
 * The virtual phone of the simulated network (DESIGN §7): numbers that received messages from the
 * account, what each received (sim_messages, the network's own record), and the person's side —
 * chip taps and replies — raised through SimulatedNetwork as the same carrier events a real
 * network raises. Everything is scoped to one account: another tenant's messages to the same
 * number never show.
 */
export class VirtualPhoneService {
  constructor(private readonly d: VirtualPhoneDeps) {}

  private payloadOf(sim: { payload: string; message_id: string }): string {
    return this.d.links.reveal(sim.payload, sim.message_id);
  }

  /**
   * The numbers that received messages from the account, most recent first, at most
   * NUMBER_LIMIT of them (`more` says there are others: a search finds them). A search filters
   * in the database, so a number beyond the first NUMBER_LIMIT is found too.
   */
  async numbers(accountId: string, search: PhoneSearch | null = null): Promise<{ numbers: PhoneNumberSummary[]; more: boolean }> {
    let q = this.d.db
      .selectFrom('sim_messages')
      .select((eb) => ['to_phone', eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('last')])
      .where('account_id', '=', accountId);
    if (search?.kind === 'digits') {
      // Digits only, so the pattern holds no wildcard of its own.
      q = q.where('to_phone', 'like', `%${search.digits.replace(/\D/g, '')}%`);
    } else if (search?.kind === 'name') {
      // contacts.search_text is "name\nphone\nemail" (lower-cased): the term followed by two
      // line breaks can only be in the name line, so an email address never matches a name search.
      const pattern = `%${escapeLike(search.text)}%\n%\n%`;
      q = q.where(
        'to_phone',
        'in',
        this.d.db
          .selectFrom('contacts')
          .select(sql<string>`'+' || phone`.as('e164'))
          .where('account_id', '=', accountId)
          .where(sql<boolean>`search_text like ${pattern} escape '\\'`),
      );
    }
    const rows = await q
      .groupBy('to_phone')
      .orderBy('last', 'desc')
      .limit(NUMBER_LIMIT + 1)
      .execute();
    const more = rows.length > NUMBER_LIMIT;
    if (more) rows.length = NUMBER_LIMIT;
    const digits = rows.map((r) => r.to_phone.replace(/^\+/, ''));
    const names = new Map<string, string>();
    if (digits.length) {
      const contacts = await this.d.db.selectFrom('contacts').select(['phone', 'first_name', 'last_name']).where('account_id', '=', accountId).where('phone', 'in', digits).execute();
      for (const c of contacts) {
        const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
        if (name) names.set(c.phone, name);
      }
    }
    return {
      numbers: rows.map((r) => ({ phone: r.to_phone, received: Number(r.n), lastAt: Number(r.last), contactName: names.get(r.to_phone.replace(/^\+/, '')) ?? null })),
      more,
    };
  }

  /** The number as E.164 if it received something from the account; otherwise a 404. */
  async requireNumber(accountId: string, raw: string): Promise<string> {
    const n = normalizePhone(raw);
    if (n.ok) {
      const hit = await this.d.db.selectFrom('sim_messages').select('id').where('account_id', '=', accountId).where('to_phone', '=', n.e164).limit(1).executeTakeFirst();
      if (hit) return n.e164;
    }
    throw new AppError('NOT_FOUND', 'This number has received no message from your account on the simulated network.');
  }

  async view(accountId: string, e164: string): Promise<PhoneView> {
    const digits = e164.slice(1);
    const [sims, senders, inbound, taps, optedOut] = await Promise.all([
      this.d.db.selectFrom('sim_messages').selectAll().where('account_id', '=', accountId).where('to_phone', '=', e164).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(THREAD_LIMIT).execute(),
      this.d.db.selectFrom('senders').select(['id', 'name', 'type', 'stop_keyword']).where('account_id', '=', accountId).execute(),
      this.d.db
        .selectFrom('messages')
        .select(['sendername_id', 'text', 'created_at', 'type'])
        .where('account_id', '=', accountId)
        .where('phone', '=', digits)
        .where('direction', '=', 'INBOUND')
        .orderBy('created_at', 'desc')
        .limit(THREAD_LIMIT)
        .execute(),
      this.d.db
        .selectFrom('interactions')
        .innerJoin('sim_messages', 'sim_messages.message_id', 'interactions.message_id')
        .select(['sim_messages.sender_id', 'interactions.button_text', 'interactions.occurred_at'])
        .where('interactions.account_id', '=', accountId)
        .where('interactions.phone', '=', digits)
        .where('interactions.type', '=', 'button_click')
        .orderBy('interactions.occurred_at', 'desc')
        .limit(THREAD_LIMIT)
        .execute(),
      optedOutPhones(this.d.db, accountId, [digits]),
    ]);
    const senderById = new Map(senders.map((s) => [s.id, s]));
    const threads = new Map<string, PhoneThread>();
    const thread = (senderId: string, channel: 'RCS' | 'SMS'): PhoneThread | null => {
      let t = threads.get(senderId);
      if (!t) {
        const s = senderById.get(senderId);
        if (!s) return null;
        t = { senderId, senderName: s.name, channel: s.type === 'SMS' ? 'SMS' : channel, stopKeyword: s.stop_keyword, items: [] };
        threads.set(senderId, t);
      }
      return t;
    };
    for (const s of sims) {
      const payload = parseJson<Record<string, unknown>>(this.payloadOf(s), {});
      const state = s.failed_at !== null ? 'failed' : s.read_at !== null ? 'read' : s.delivered_at !== null ? 'delivered' : 'sent';
      thread(s.sender_id, s.channel)?.items.push({
        kind: 'out',
        at: s.created_at,
        simId: s.id,
        messageId: s.message_id,
        channel: s.channel,
        rcs: s.channel === 'RCS' ? { messageType: textOf(payload.messageType, 'text') as MessageType, content: (payload.content ?? {}) } : null,
        text: s.channel === 'SMS' ? textOf(payload.text) : null,
        state,
      });
    }
    // Only threads the number received something in; replies to other senders are not shown.
    for (const m of inbound) threads.get(m.sendername_id)?.items.push({ kind: 'in', at: m.created_at, text: m.text, channel: m.type });
    for (const tp of taps) threads.get(tp.sender_id)?.items.push({ kind: 'tap', at: tp.occurred_at, buttonText: tp.button_text ?? '' });
    const order = { out: 0, tap: 1, in: 2 } as const;
    for (const t of threads.values()) t.items.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
    return {
      phone: e164,
      optedOut: optedOut.size > 0,
      threads: [...threads.values()].sort((a, b) => (b.items[b.items.length - 1]?.at ?? 0) - (a.items[a.items.length - 1]?.at ?? 0)),
    };
  }

  /**
   * A tap on a chip or card button of a message the number received. Returns a same-origin path
   * to open next when the button opens this server's unsubscribe page (a link the phone follows).
   */
  async tap(accountId: string, e164: string, simId: string, rawTarget: string): Promise<{ openPath: string | null }> {
    const sim = await this.d.db.selectFrom('sim_messages').selectAll().where('id', '=', simId).where('account_id', '=', accountId).where('to_phone', '=', e164).executeTakeFirst();
    const target = parseTapTarget(rawTarget);
    if (!sim || sim.channel !== 'RCS' || !target) throw new AppError('NOT_FOUND', 'That button is not on a message this number received.');
    const payload = parseJson<{ messageType?: string; content?: Content }>(this.payloadOf(sim), {});
    const content = payload.content ?? {};
    const button = tapButtons(payload.messageType, content).find((b) =>
      target.kind === 'chip' ? b.placement === 'chip' && b.index === target.index : b.placement === 'cardButton' && b.card === target.card && b.index === target.action,
    );
    if (!button || (!button.reply && !button.action)) throw new AppError('NOT_FOUND', 'That button is not on a message this number received.');
    const base = { messageId: sim.message_id, from: e164, senderId: sim.sender_id };
    if (button.reply) {
      await this.d.network.userTap({ ...base, type: 'reply', buttonText: button.reply.text, postbackData: button.reply.postbackData ?? null });
      return { openPath: null };
    }
    const a = button.action!;
    await this.d.network.userTap({ ...base, type: a.type === 'postback' ? 'postback' : 'action', buttonText: a.text, postbackData: a.postbackData ?? null });
    // An unsubscribe chip makes the phone send the stop keyword, as a handset does.
    if (a.type === 'unsubscribe') {
      await this.d.network.userReply({ from: e164, senderId: sim.sender_id, channel: 'RCS', text: a.unsubscribeAction?.stopKeyword ?? 'STOP', unsubscribeChip: true });
    }
    const url = a.openUrlAction?.url ?? a.openUrlInWebviewAction?.url;
    const prefix = `${this.d.publicUrl()}/u/`;
    return { openPath: url && url.startsWith(prefix) ? `/u/${url.slice(prefix.length)}` : null };
  }

  /** The person writes to a sender whose messages the number received. */
  async reply(accountId: string, e164: string, senderId: string, text: string): Promise<void> {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.length > 1000) throw new AppError('VALIDATION_ERROR', 'Write 1 to 1000 characters.');
    const sim = await this.d.db.selectFrom('sim_messages').select('channel').where('account_id', '=', accountId).where('to_phone', '=', e164).where('sender_id', '=', senderId).limit(1).executeTakeFirst();
    const sender = await this.d.db.selectFrom('senders').select('type').where('id', '=', senderId).where('account_id', '=', accountId).executeTakeFirst();
    if (!sim || !sender) throw new AppError('NOT_FOUND', 'This number has received nothing from that sender.');
    await this.d.network.userReply({ from: e164, senderId, channel: sender.type === 'SMS' ? 'SMS' : sim.channel, text: trimmed });
  }
}
