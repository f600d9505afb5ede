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
    };

export type Capability = { rcs: true } | { rcs: false; reason: string };

export interface RcsCarrier {
  readonly name: string;
  /** Whether the number can receive RCS from this sender right now. */
  capability(to: string, senderId: string): Promise<Capability>;
  send(message: OutboundRcs): Promise<SendOutcome>;
}

export interface SmsCarrier {
  readonly name: string;
  send(message: OutboundSms): Promise<SendOutcome>;
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

export type CarrierEventSink = (event: CarrierEvent) => Promise<void>;

export interface Carriers {
  rcs: RcsCarrier;
  sms: SmsCarrier;
  /** Starts background work (receipt timers, binds); events go to the sink. */
  start(sink: CarrierEventSink): Promise<void>;
  stop(): Promise<void>;
}
