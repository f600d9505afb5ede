/**
 * An SMSC on 127.0.0.1 built with the `smpp` package's server: binds transceivers, transmitters
 * and receivers (a receiver may not submit, a transmitter gets no deliver_sm, as SMPP 3.4 says),
 * acknowledges submit_sm (after a small delay, so several are outstanding; at once with 0), can
 * throttle chosen submits, drop the connection when a given submit arrives (that one and every
 * unanswered one are lost, as on a real link), leave enquire_link unanswered (a hung SMSC), go
 * down and come back on the same port, and sends delivery receipts and mobile-originated messages.
 */
import type { AddressInfo } from 'node:net';
import { createSmppServer, type Pdu, type ShortMessage, type SmppServer, type SmppSession } from '../../src/carriers/smpp/smpp-lib.js';

export type FakeBindMode = 'transceiver' | 'transmitter' | 'receiver';

export interface ReceivedSubmit {
  /** The id this SMSC answered with (null: throttled, refused or dropped). */
  messageId: string | null;
  sourceAddr: string;
  sourceTon: number;
  destinationAddr: string;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  /** The UDH as sent (length octet + information elements), empty without UDHI. */
  udh: Buffer;
  /** The decoded text (GSM-7 for data_coding 0, UCS-2 for 8). */
  text: string;
  /** Which connection (1-based bind count) it came on. */
  bind: number;
  /** The bind type of that connection. */
  bindMode: FakeBindMode;
  outcome: 'accepted' | 'throttled' | 'refused' | 'dropped';
}

export interface MoOptions {
  ucs2?: boolean;
  concat?: { ref: number; total: number; seq: number };
  via?: number;
}

export interface FakeSmsc {
  port: number;
  url(systemId?: string, password?: string): string;
  submits: ReceivedSubmit[];
  accepted(): ReceivedSubmit[];
  binds: number;
  /** The type of every successful bind, in order. */
  bindModes: FakeBindMode[];
  /** false: enquire_link gets no answer (the link looks alive to TCP, but the SMSC is hung). */
  answerEnquireLink: boolean;
  /** Stops listening and drops every session (an SMSC outage). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Sessions bound now, by type. */
  boundModes(): FakeBindMode[];
  /** Submit numbers (1-based, all submits counted) answered with ESME_RTHROTTLED. */
  throttle: Set<number>;
  /** When the submit with this number arrives, the connection is destroyed without answering. */
  dropAt: Set<number>;
  /** Submit numbers answered with an error status (e.g. 0x0b ESME_RINVDSTADR). */
  refuse: Map<number, number>;
  /** Delay before answering a submit, ms. */
  respondAfterMs: number;
  /** How ids appear in text receipts: as answered, or (hex ids) in decimal as some SMSCs do. */
  receiptIdAsDecimal: boolean;
  enquireLinks: number;
  receipt(messageId: string, stat: string, opts?: { err?: string; tlv?: boolean }): Promise<number>;
  /** `via`: the index, in bind order, of the receiving session to deliver over (default: the latest bound). */
  mo(from: string, to: string, text: string, opts?: MoOptions): Promise<number>;
  boundSession(): SmppSession | null;
  close(): Promise<void>;
}

export async function startFakeSmsc(opts: { systemId?: string; password?: string } = {}): Promise<FakeSmsc> {
  const systemId = opts.systemId ?? 'rcsapp';
  const password = opts.password ?? 's3cret';
  let submitNo = 0;
  let nextId = 0x1f40;
  const bound = new Set<SmppSession>();
  const bindNo = new Map<SmppSession, number>();
  const modeOf = new Map<SmppSession, FakeBindMode>();

  const state = {
    submits: [] as ReceivedSubmit[],
    binds: 0,
    bindModes: [] as FakeBindMode[],
    answerEnquireLink: true,
    throttle: new Set<number>(),
    dropAt: new Set<number>(),
    refuse: new Map<number, number>(),
    respondAfterMs: 15,
    receiptIdAsDecimal: false,
    enquireLinks: 0,
  };

  const onSession = (session: SmppSession) => {
    session.on('error', () => {});
    session.on('close', () => bound.delete(session));
    const onBind = (mode: FakeBindMode) => (pdu: Pdu) => {
      if (pdu.system_id !== systemId || pdu.password !== password) {
        session.send(pdu.response({ command_status: 0x0e /* ESME_RINVPASWD */ }));
        return;
      }
      if (bound.has(session)) {
        session.send(pdu.response({ command_status: 0x05 /* ESME_RALYBND */ }));
        return;
      }
      state.binds++;
      state.bindModes.push(mode);
      bindNo.set(session, state.binds);
      modeOf.set(session, mode);
      bound.add(session);
      session.send(pdu.response({ system_id: 'FAKESMSC' }));
    };
    session.on('bind_transceiver', onBind('transceiver'));
    session.on('bind_transmitter', onBind('transmitter'));
    session.on('bind_receiver', onBind('receiver'));
    session.on('enquire_link', (pdu: Pdu) => {
      state.enquireLinks++;
      if (state.answerEnquireLink) session.send(pdu.response());
    });
    session.on('unbind', (pdu: Pdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: Pdu) => {
      const n = ++submitNo;
      const sm = pdu.short_message as ShortMessage;
      const udh = sm.udh && sm.udh.length > 0 ? Buffer.concat([Buffer.from([sm.udh.reduce((s, ie) => s + ie.length, 0)]), ...sm.udh]) : Buffer.alloc(0);
      const entry: ReceivedSubmit = {
        messageId: null,
        sourceAddr: pdu.source_addr ?? '',
        sourceTon: pdu.source_addr_ton ?? -1,
        destinationAddr: pdu.destination_addr ?? '',
        dataCoding: pdu.data_coding ?? -1,
        esmClass: pdu.esm_class ?? -1,
        registeredDelivery: pdu.registered_delivery ?? -1,
        udh,
        text: typeof sm.message === 'string' ? sm.message : sm.message.toString('latin1'),
        bind: bindNo.get(session) ?? 0,
        bindMode: modeOf.get(session) ?? 'transceiver',
        outcome: 'dropped',
      };
      if (bound.has(session) && modeOf.get(session) === 'receiver') {
        // SMPP 3.4 §4.1: a receiver may not submit.
        entry.outcome = 'refused';
        state.submits.push(entry);
        session.send(pdu.response({ command_status: 0x04 /* ESME_RINVBNDSTS */ }));
        return;
      }
      state.submits.push(entry);
      if (!bound.has(session)) return;
      if (state.dropAt.has(n)) {
        // Mid-window: this submit and every one still unanswered on the link are lost.
        bound.delete(session);
        session.destroy();
        return;
      }
      const answer = () => {
        if (!bound.has(session)) return; // the link went down before the answer: lost
        if (state.throttle.has(n)) {
          entry.outcome = 'throttled';
          session.send(pdu.response({ command_status: 0x58 }));
          return;
        }
        if (state.refuse.has(n)) {
          entry.outcome = 'refused';
          session.send(pdu.response({ command_status: state.refuse.get(n)! }));
          return;
        }
        entry.messageId = (nextId++).toString(16);
        entry.outcome = 'accepted';
        session.send(pdu.response({ message_id: entry.messageId }));
      };
      if (state.respondAfterMs > 0) setTimeout(answer, state.respondAfterMs);
      else answer();
    });
  };
  let server: SmppServer = createSmppServer(onSession);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  let isUp = true;
  const closeServer = async () => {
    if (!isUp) return;
    isUp = false;
    for (const s of [...server.sessions]) s.destroy();
    bound.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  /** Bound sessions that may receive deliver_sm (receivers and transceivers), in bind order. */
  const receivingSessions = () => [...bound].filter((s) => modeOf.get(s) !== 'transmitter');
  /** The latest of them. */
  const boundSession = () => receivingSessions().pop() ?? null;
  const deliver = (options: Parameters<SmppSession['deliver_sm']>[0], via?: number) =>
    new Promise<number>((resolve, reject) => {
      const s = via === undefined ? boundSession() : (receivingSessions()[via] ?? null);
      if (!s) return reject(new Error('no bound session'));
      s.deliver_sm(options, (resp) => resolve(resp.command_status));
    });

  return Object.assign(state, {
    port,
    url: (id = systemId, pw = password) => `smpp://${encodeURIComponent(id)}:${encodeURIComponent(pw)}@127.0.0.1:${port}`,
    accepted: () => state.submits.filter((s) => s.outcome === 'accepted'),
    boundSession,
    receipt(messageId: string, stat: string, o: { err?: string; tlv?: boolean } = {}) {
      const sub = state.submits.find((s) => s.messageId === messageId);
      const shownId = state.receiptIdAsDecimal ? String(parseInt(messageId, 16)) : messageId;
      const text = `id:${shownId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2405011200 done date:2405011201 stat:${stat} err:${o.err ?? '000'} text:${(sub?.text ?? '').slice(0, 20)}`;
      const states: Record<string, number> = { DELIVRD: 2, EXPIRED: 3, DELETED: 4, UNDELIV: 5, ACCEPTD: 6, UNKNOWN: 7, REJECTD: 8, ENROUTE: 1 };
      return deliver({
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: sub?.destinationAddr ?? '',
        dest_addr_ton: sub?.sourceTon ?? 5,
        destination_addr: sub?.sourceAddr ?? '',
        esm_class: 0x04,
        data_coding: 0,
        short_message: o.tlv ? '' : text,
        ...(o.tlv ? { receipted_message_id: messageId, message_state: states[stat] ?? 7 } : {}),
      });
    },
    mo(from: string, to: string, text: string, o: MoOptions = {}) {
      const body = o.ucs2 ? Buffer.from(text, 'utf16le').swap16() : text;
      const short_message = o.concat ? { udh: Buffer.from([5, 0, 3, o.concat.ref, o.concat.total, o.concat.seq]), message: body } : body;
      return deliver({
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: from.replace(/^\+/, ''),
        dest_addr_ton: 5,
        destination_addr: to,
        esm_class: o.concat ? 0x40 : 0,
        data_coding: o.ucs2 ? 8 : 0,
        short_message,
      }, o.via);
    },
    boundModes: () => [...bound].map((s) => modeOf.get(s)!),
    down: closeServer,
    async up() {
      if (isUp) return;
      server = createSmppServer(onSession);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      isUp = true;
    },
    close: closeServer,
  }) satisfies FakeSmsc;
}
