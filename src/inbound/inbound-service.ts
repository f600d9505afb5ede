import type { CarrierEvent } from '../carriers/carrier.js';
import type { ConversationsService } from '../conversations/service.js';
import type { InboundHandler } from '../messaging/status-service.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type Tx } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { parseJson } from '../platform/db/sql.js';
import type { Database } from '../platform/db/schema.js';
import type { InteractionsTable } from './tables.js';
import type { MessagesTable } from '../messaging/tables.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { normalizePhone } from '../phone/index.js';
import type { EngagementContact, EngagementEvents } from './events.js';
import { contactName } from './interactions-service.js';
import type { OptOutService } from '../suppression/opt-outs.js';
import type { ConsentReviews } from '../suppression/reviews.js';
import type { SystemText } from '../messaging/send-service.js';
import { recordReceivedMessage } from '../messaging/received.js';
import { classifyConsent, readSenderWords } from './consent-words.js';
import { readReplyTexts, replyLanguageOf, replyText } from '../accounts/reply-texts.js';
import { replyLanguage } from './consent-language.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

/** A reply is attributed to our latest message to the number from that sender within this time. */
export const REPLY_ATTRIBUTION_MS = 30 * 24 * 60 * 60 * 1000;

/** At most this many HELP answers to one number from one sender within HELP_REPLY_WINDOW_MS (mayAnswerHelp). */
export const HELP_REPLIES_PER_DAY = 3;
export const HELP_REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Longest text kept of an incoming message (carriers bound it far lower; this bounds misuse). */
const MAX_INBOUND_TEXT = 8192;

type InboundEvent = Extract<CarrierEvent, { kind: 'inbound' }>;
type InteractionEvent = Extract<CarrierEvent, { kind: 'interaction' }>;

export interface InboundDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  conversations: ConversationsService;
  optOuts: OptOutService;
  /** Replies that may be a request to stop open a consent review (suppression's ConsentReviews). */
  reviews: Pick<ConsentReviews, 'open'>;
  events: EngagementEvents;
  /** Automatic answers to keywords (HELP): messaging's SendService.queueSystemText / handOver. Absent: none are sent. */
  replies?: SystemReplies;
}

/** Messaging's port for automatic answers (src/messaging/send-service.ts queueSystemText). */
export interface SystemReplies {
  queueSystemText(tx: Tx, m: SystemText): Promise<string>;
  handOver(messageId: string): Promise<unknown>;
}

/**
 * What people send back (DESIGN §3 inbound/): incoming RCS and SMS messages are recorded in the
 * message log (direction INBOUND, status RECEIVED, source INBOUND); replies to our messages and
 * chip/button taps are recorded as interactions (reply_received / button_click) with the campaign
 * of the message they answer; consent words (consent-words.ts: the sender's keyword, the opt-out
 * words of the US set and twelve languages, short stop sentences) opt the number out; START and its
 * equivalents re-subscribe; HELP and its equivalents are answered with the company's details. Registered with StatusService, so carrier events of kind inbound and
 * interaction — from the simulated network's virtual phone or a real network — land here.
 */
export class InboundService implements InboundHandler {
  constructor(private readonly d: InboundDeps) {}

  async handle(event: InboundEvent | InteractionEvent): Promise<void> {
    if (event.kind === 'inbound') await this.receive(event);
    else await this.tap(event);
  }

  /** An incoming message. Delivered twice by a network (same carrierMessageId): recorded once. */
  async receive(e: InboundEvent): Promise<MessagesTable | null> {
    const n = normalizePhone(e.from);
    if (!n.ok) {
      this.d.logger.warn({ senderId: e.senderId }, 'inbound message from an unreadable number ignored');
      return null;
    }
    // Automatic answers accepted in the transaction, handed to the carrier after its commit.
    const replies: string[] = [];
    const recorded = await inTransaction(this.d.db, async (tx) => {
      const sender = await tx.selectFrom('senders').selectAll().where('id', '=', e.senderId).executeTakeFirst();
      if (!sender) {
        this.d.logger.warn({ senderId: e.senderId }, 'inbound message for an unknown sender ignored');
        return null;
      }
      const accountId = sender.account_id;
      // Two instances given the same message at once (a network retrying, an SMSC's parts put
      // together twice) would both find no duplicate and both record it.
      await lockForTransaction(tx, 'inboundMessage', [`${accountId}|${e.carrierMessageId}`]);
      const dup = await tx
        .selectFrom('messages')
        .select('id')
        .where('account_id', '=', accountId)
        .where('phone', '=', n.digits)
        .where('direction', '=', 'INBOUND')
        .where('carrier_message_id', '=', e.carrierMessageId)
        .executeTakeFirst();
      if (dup) return null;
      const contact = await this.contact(tx, accountId, n.digits);
      const original = await this.answeredMessage(tx, accountId, sender, n.digits, e.at);
      const text = e.text.length > MAX_INBOUND_TEXT ? e.text.slice(0, MAX_INBOUND_TEXT) : e.text;
      const row = await recordReceivedMessage(tx, {
        accountId,
        channel: e.channel,
        phone: n.digits,
        country: n.country,
        contactId: contact.id,
        senderId: sender.id,
        text,
        campaignName: original?.campaign_name ?? null,
        carrierMessageId: e.carrierMessageId,
        at: e.at,
      });
      await this.d.events.inboundReceived(tx, row, contact);

      // Consent words (src/inbound/consent-words.ts): the sender's trigger, the listed words of every language, short
      // sentences that clearly ask to stop; START and the like; HELP and the like.
      const intent = classifyConsent(text, sender.stop_keyword, readSenderWords(sender.consent_words));
      if (intent?.kind === 'opt_out') {
        const out = await this.d.optOuts.optOut(tx, {
          accountId,
          phone: n.digits,
          source: e.unsubscribeChip === true ? 'chip' : 'keyword',
          keyword: intent.word,
          receivedText: text,
          senderId: sender.id,
          messageId: row.id,
          at: e.at,
        });
        // One confirmation per opt-out: not when the number was already out (a repeated STOP), not when the account turned it off.
        if (!out.alreadyOptedOut && this.d.replies) {
          const account = await this.company(tx, accountId);
          if (account.opt_out_confirmation === 1) {
            const body = replyText('confirmation', replyLanguage(intent.word, n.country, account.replyLanguage), account, sender.stop_keyword);
            replies.push(await this.d.replies.queueSystemText(tx, { accountId, sender, phone: n.digits, country: n.country, contactId: contact.id, text: body, kind: 'opt-out-confirmation', at: e.at }));
          }
        }
      } else if (intent?.kind === 'review') {
        // Might be a request to stop: marketing to the number pauses now; a person confirms or releases (issue #42).
        await this.d.reviews.open(tx, { accountId, phone: n.digits, reason: intent.reason, keyword: intent.word, receivedText: text, senderId: sender.id, messageId: row.id, at: e.at });
      } else if (intent?.kind === 'opt_in') {
        await this.d.optOuts.optIn(tx, { accountId, phone: n.digits, keyword: intent.word, receivedText: text, senderId: sender.id, messageId: row.id, at: e.at });
      } else if (intent?.kind === 'help' && this.d.replies && (await this.mayAnswerHelp(tx, accountId, sender.id, n.digits, e.at))) {
        const account = await this.company(tx, accountId);
        const body = replyText('help', replyLanguage(intent.word, n.country, account.replyLanguage), account, sender.stop_keyword);
        replies.push(await this.d.replies.queueSystemText(tx, { accountId, sender, phone: n.digits, country: n.country, contactId: contact.id, text: body, kind: 'help-reply', at: e.at }));
      }

      if (original) {
        await this.record(tx, {
          id: newId('int', e.at),
          account_id: accountId,
          type: 'reply_received',
          action_type: 'text',
          phone: n.digits,
          contact_id: contact.id,
          sender_id: sender.id,
          message_id: original.id,
          inbound_message_id: row.id,
          campaign_name: original.campaign_name,
          button_text: null,
          postback_data: null,
          text,
          channel: e.channel,
          occurred_at: e.at,
          created_at: this.d.clock.now(),
        }, contact);
      }
      // A reply counts in the window of the sender whose message it answers (an SMS reply to a
      // fallback answers the RCS sender's message).
      await this.d.conversations.noteUserActivity(tx, accountId, original?.sendername_id ?? sender.id, n.digits, e.at);
      return row;
    });
    for (const id of replies) await this.d.replies?.handOver(id);
    return recorded;
  }

  /** A tap on a reply chip, a card postback button or an action of one of our messages. */
  async tap(e: InteractionEvent): Promise<InteractionsTable | null> {
    return inTransaction(this.d.db, async (tx) => {
      const msg = await tx.selectFrom('messages').selectAll().where('id', '=', e.messageId).where('direction', '=', 'OUTBOUND').executeTakeFirst();
      if (!msg) {
        this.d.logger.warn({ messageId: e.messageId }, 'interaction with an unknown message ignored');
        return null;
      }
      const n = normalizePhone(e.from);
      if (!n.ok || n.digits !== msg.phone) this.d.logger.warn({ messageId: msg.id }, 'interaction from a number other than the recipient; recorded for the recipient');
      const contact = await this.contact(tx, msg.account_id, msg.phone);
      const row: InteractionsTable = {
        id: newId('int', e.at),
        account_id: msg.account_id,
        type: 'button_click',
        action_type: e.type,
        phone: msg.phone,
        contact_id: contact.id,
        sender_id: msg.sendername_id,
        message_id: msg.id,
        inbound_message_id: null,
        campaign_name: msg.campaign_name,
        button_text: e.buttonText.slice(0, 200),
        postback_data: e.postbackData === null ? null : e.postbackData.slice(0, 2048),
        text: null,
        channel: 'RCS',
        occurred_at: e.at,
        created_at: this.d.clock.now(),
      };
      await this.record(tx, row, contact);
      await this.d.conversations.noteUserActivity(tx, msg.account_id, msg.sendername_id, msg.phone, e.at);
      return row;
    });
  }

  /**
   * Whether a HELP may be answered now: at most HELP_REPLIES_PER_DAY answers to a number from a sender
   * in 24 hours. Two automatic systems answering each other (our answer ends "Reply STOP…", theirs
   * says HELP) would otherwise exchange messages without end; a person asking for help a fourth time
   * in a day has the answer three times already. Counted from the log (source SYSTEM, campaign
   * help-reply), read in the inbound message's transaction after its lock.
   */
  private async mayAnswerHelp(tx: Tx, accountId: string, senderId: string, phone: string, at: number): Promise<boolean> {
    const recent = await tx
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('phone', '=', phone)
      .where('created_at', '>', at - HELP_REPLY_WINDOW_MS)
      .where('created_at', '<=', at)
      .where('direction', '=', 'OUTBOUND')
      .where('source', '=', 'SYSTEM')
      .where('campaign_name', '=', 'help-reply')
      .where('sendername_id', '=', senderId)
      .executeTakeFirstOrThrow();
    const ok = Number(recent.n) < HELP_REPLIES_PER_DAY;
    if (!ok) this.d.logger.info({ accountId, senderId }, 'HELP not answered: the number had the answer 3 times in 24 hours');
    return ok;
  }

  /**
   * The account's company details, opt-out confirmation setting and reply texts (src/accounts/reply-texts.ts: replyText
   * takes what this returns; company_name, else the account's name).
   */
  private async company(tx: Tx, accountId: string) {
    const a = await tx
      .selectFrom('accounts')
      .select(['name', 'company_profile', 'opt_out_confirmation', 'opt_out_confirmation_text', 'consent_reply_language', 'consent_reply_texts'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const profile = parseJson<Record<string, string | undefined>>(a.company_profile, {});
    return {
      ...a,
      opt_out_confirmation: Number(a.opt_out_confirmation),
      profile,
      companyName: profile.company_name?.trim() || a.name,
      companyProfile: profile,
      optOutConfirmationText: a.opt_out_confirmation_text,
      consentReplyTexts: readReplyTexts(a.consent_reply_texts),
      replyLanguage: replyLanguageOf(a.consent_reply_language),
    };
  }

  private async record(tx: Tx, row: InteractionsTable, contact: EngagementContact): Promise<void> {
    await tx.insertInto('interactions').values(row).execute();
    await this.d.events.interactionRecorded(tx, row, contact);
  }

  private async contact(tx: Tx, accountId: string, phone: string): Promise<EngagementContact> {
    const c = await tx.selectFrom('contacts').select(['id', 'first_name', 'last_name']).where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    return { id: c?.id ?? null, phone: `+${phone}`, name: c ? contactName(c.first_name, c.last_name) : null };
  }

  /**
   * Our latest message (not an automatic answer) to the number that this reply answers: sent by this sender (or sent by SMS
   * fallback through it), within REPLY_ATTRIBUTION_MS. Null when the person wrote first.
   */
  private async answeredMessage(tx: Tx, accountId: string, sender: SendersTable, phone: string, at: number): Promise<MessagesTable | null> {
    const recent = await tx
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('phone', '=', phone)
      .where('direction', '=', 'OUTBOUND')
      .where('status', 'not in', ['SCHEDULED', 'FAILED'])
      // Automatic answers (HELP, an opt-out's confirmation) are not what a person replies to.
      .where('source', '!=', 'SYSTEM')
      .where('created_at', '>=', at - REPLY_ATTRIBUTION_MS)
      .where('created_at', '<=', at)
      // Not also by id: with it SQLite walks (account_id, created_at, id) over every message the
      // account sent in the window (a reply after a 10,000-recipient batch read 10,000 rows) instead
      // of this number's few in (account_id, phone, created_at). Ties are ordered below.
      .orderBy('created_at', 'desc')
      .limit(50)
      .execute();
    recent.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    // The sender that actually delivered it: the fallback's SMS sender when the fallback went out.
    const deliveredBy = (m: MessagesTable): string =>
      m.fallback_used === 1 && m.method === 'SMS' ? (parseJson<{ sendernameId?: string } | null>(m.sms_fallback, null)?.sendernameId ?? m.sendername_id) : m.sendername_id;
    return recent.find((m) => deliveredBy(m) === sender.id) ?? null;
  }
}
