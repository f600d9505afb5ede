/**
 * The seam between the messaging engine and a network. The engine hands over one message at a
 * time with our message id as the idempotency key: a carrier that sees the same id twice must
 * not deliver twice (the simulated network and RBM's messageId both guarantee this), so a crash
 * between "sent" and "recorded" never doubles a message.
 */
import type { SmsEncoding } from '../sms/index.js';

export interface OutboundRcs {
  /** Our msg_… id; the idempotency key. */
  messageId: string;
  accountId: string;
  senderId: string;
  senderName: string;
  /** E.164 with +. */
  to: string;
  messageType: string;
  /** Normalized, merged content (src/content normalizeContent + src/merge mergeContent). */
  content: Record<string, unknown>;
}

export interface OutboundSms {
  messageId: string;
  accountId: string;
  senderId: string;
  /** Alphanumeric or numeric originator. */
  senderName: string;
  to: string;
  text: string;
  /** The text split exactly as billed (src/sms splitSms): one entry per segment. */
  parts: string[];
  encoding: SmsEncoding;
}

export type SendOutcome =
  | { ok: true; carrierMessageId: string }
  | {
      ok: false;
      /** Temporary (throttled, 5xx, connection lost): the engine tries again later. */
      retryable: boolean;
      /** Carrier's own code, kept in the message's `error`. */
      code: string;
      reason: string;
      /**
       * Nothing was handed over because the carrier has no link to its network right now (an
       * SMPP bind is down). Not the message's fault: the engine keeps it queued without counting
       * an attempt and hands it over again once the carrier is ready (SmsCarrier.isReady).
       */
      notReady?: true;
    };

export type Capability = { rcs: true } | { rcs: false; reason: string };

export interface RcsCarrier {
  readonly name: string;
  /** Whether the number can receive RCS from this sender right now. */
  capability(to: string, senderId: string): Promise<Capability>;
  send(message: OutboundRcs): Promise<SendOutcome>;
  /**
   * Hands over several messages (one dispatcher round); one outcome per message, in order. An
   * adapter without a bulk API sends them with bounded concurrency (see sendEach); the simulated
   * network stores them in one statement.
   */
  sendMany(messages: readonly OutboundRcs[]): Promise<SendOutcome[]>;
  /**
   * Withdraws a message the network has taken but not delivered yet (RBM's revoke), for messages
   * cancelled after a hand-over. Resolves true when it was withdrawn, false when it was already
   * delivered or is unknown. Optional: networks without the notion do not offer it.
   */
  revoke?(message: { messageId: string; to: string; senderId: string }): Promise<boolean>;
}

export interface SmsCarrier {
  readonly name: string;
  send(message: OutboundSms): Promise<SendOutcome>;
  /** As RcsCarrier.sendMany. */
  sendMany(messages: readonly OutboundSms[]): Promise<SendOutcome[]>;
  /**
   * Whether this sender's messages can be handed over now. After a `notReady` outcome the
   * dispatcher leaves the sender's SMS queued (not claimed) until this answers true. Optional:
   * without it, such messages are looked at again after a second.
   */
  isReady?(senderId: string): boolean;
}

/**
 * sendMany for adapters that only have a per-message API (RBM's REST call, an SMPP submit_sm):
 * at most `concurrency` hand-overs in flight, outcomes in input order. A thrown error becomes a
 * retryable outcome for that message only.
 */
export async function sendEach<M>(messages: readonly M[], send: (m: M) => Promise<SendOutcome>, concurrency = 16): Promise<SendOutcome[]> {
  const out = new Array<SendOutcome>(messages.length);
  let next = 0;
  const worker = async () => {
    while (next < messages.length) {
      const i = next++;
      try {
        out[i] = await send(messages[i]!);
      } catch (err) {
        out[i] = { ok: false, retryable: true, code: 'CARRIER_ERROR', reason: err instanceof Error ? err.message : String(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, messages.length) }, worker));
  return out;
}

/** What a network reports back, asynchronously. */
export type CarrierEvent =
  | { kind: 'status'; messageId: string; status: 'DELIVERED' | 'READ' | 'FAILED'; at: number; error?: string; carrierMessageId?: string }
  | {
      kind: 'inbound';
      channel: 'RCS' | 'SMS';
      /** E.164 of the person. */
      from: string;
      /** Our sender the person wrote to. */
      senderId: string;
      text: string;
      at: number;
      carrierMessageId: string;
      /**
       * The text stands for a tap on an unsubscribe chip, as far as the network can tell (RBM reports the chip's
       * postback; the virtual phone knows its own taps). A handset's chip over SMS/SMPP arrives as typed words.
       */
      unsubscribeChip?: boolean;
    }
  | {
      kind: 'interaction';
      /** A tap on a reply chip or a postback button of one of our messages. */
      type: 'reply' | 'postback' | 'action';
      messageId: string;
      from: string;
      senderId: string;
      buttonText: string;
      postbackData: string | null;
      at: number;
    };

/**
 * Where a network hands its events, in order, as many as it has at hand (a real adapter usually
 * has one per webhook call). It resolves one flag per event: `false` means "not applied yet, hand
 * it over again later" — a receipt can overtake the engine's own record of the hand-over (the
 * carrier answers, then the dispatcher commits SENT), so the carrier keeps such an event and
 * retries it. Applying an event twice is harmless (statuses never move backwards), so delivery to
 * the sink is at-least-once: a carrier marks an event done only after the sink resolved.
 */
export type CarrierEventSink = (events: readonly CarrierEvent[]) => Promise<readonly boolean[]>;

export interface Carriers {
  rcs: RcsCarrier;
  sms: SmsCarrier;
  /** Starts background work (receipt timers, binds); events go to the sink. */
  start(sink: CarrierEventSink): Promise<void>;
  stop(): Promise<void>;
}
