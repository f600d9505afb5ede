/**
 * Typed view of the parts of the `smpp` package (CommonJS, no types of its own) this project uses:
 * client sessions for the adapter and the server for test SMSCs. Only what is declared here is
 * used; the package's message filter turns a Buffer `short_message` into the PDU as is, and a
 * received `short_message` into `{udh?, message}` decoded by `data_coding`.
 */
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import type { Server as NetServer } from 'node:net';

/** Decoded `short_message` of a received PDU. */
export interface ShortMessage {
  /** Information elements (each: IEI, length, data), when the UDH indicator was set. */
  udh?: Buffer[];
  /** Decoded text for known data codings; raw bytes otherwise. */
  message: string | Buffer;
}

/** A PDU as the package represents it: the command, header fields and the command's params/TLVs. */
export interface Pdu {
  command: string;
  command_id: number;
  command_status: number;
  sequence_number: number;
  // submit_sm / deliver_sm
  service_type?: string;
  source_addr_ton?: number;
  source_addr_npi?: number;
  source_addr?: string;
  dest_addr_ton?: number;
  dest_addr_npi?: number;
  destination_addr?: string;
  esm_class?: number;
  registered_delivery?: number;
  data_coding?: number;
  short_message?: ShortMessage | Buffer | string;
  message_payload?: ShortMessage | Buffer | string;
  receipted_message_id?: string;
  message_state?: number;
  network_error_code?: Buffer;
  // *_resp
  message_id?: string;
  // bind_*
  system_id?: string;
  password?: string;
  system_type?: string;
  interface_version?: number;
  isResponse(): boolean;
  response(options?: PduOptions): Pdu;
}

/** Fields accepted when building a PDU. */
export interface PduOptions {
  command_status?: number;
  sequence_number?: number;
  service_type?: string;
  source_addr_ton?: number;
  source_addr_npi?: number;
  source_addr?: string;
  dest_addr_ton?: number;
  dest_addr_npi?: number;
  destination_addr?: string;
  esm_class?: number;
  protocol_id?: number;
  priority_flag?: number;
  registered_delivery?: number;
  data_coding?: number;
  short_message?: Buffer | string | { udh?: Buffer; message: string | Buffer };
  receipted_message_id?: string;
  message_state?: number;
  message_id?: string;
  system_id?: string;
  password?: string;
  system_type?: string;
  interface_version?: number;
}

export type PduCallback = (pdu: Pdu) => void;

/** One SMPP connection (client or server side). Events: connect, pdu, <command>, close, error. */
export interface SmppSession extends EventEmitter {
  bind_transceiver(options: PduOptions, onResponse?: PduCallback): boolean;
  bind_transmitter(options: PduOptions, onResponse?: PduCallback): boolean;
  bind_receiver(options: PduOptions, onResponse?: PduCallback): boolean;
  submit_sm(options: PduOptions, onResponse?: PduCallback): boolean;
  deliver_sm(options: PduOptions, onResponse?: PduCallback): boolean;
  enquire_link(options?: PduOptions | PduCallback, onResponse?: PduCallback): boolean;
  unbind(options?: PduOptions | PduCallback, onResponse?: PduCallback): boolean;
  /** Sends a prepared PDU (responses built with pdu.response()). */
  send(pdu: Pdu, onResponse?: PduCallback): boolean;
  pause(): void;
  resume(): void;
  close(callback?: () => void): void;
  destroy(callback?: () => void): void;
  readonly socket: { writable: boolean; remoteAddress?: string; cork(): void; uncork(): void };
}

export interface SmppServer extends NetServer {
  readonly sessions: SmppSession[];
}

interface SmppModule {
  connect(options: { host: string; port: number; tls?: boolean; rejectUnauthorized?: boolean }, onConnect?: () => void): SmppSession;
  createServer(options: Record<string, unknown>, onSession: (session: SmppSession) => void): SmppServer;
  readonly errors: Readonly<Record<string, number>>;
}

const lib = createRequire(import.meta.url)('smpp') as SmppModule;

export const connectSmpp = (options: { host: string; port: number; tls?: boolean }): SmppSession => lib.connect(options);
export const createSmppServer = (onSession: (session: SmppSession) => void): SmppServer => lib.createServer({}, onSession);

/** The command_status values of SMPP 3.4 this project names. */
export const SMPP_STATUS = {
  ESME_ROK: 0x0000,
  ESME_RINVMSGLEN: 0x0001,
  ESME_RINVBNDSTS: 0x0004,
  ESME_RSYSERR: 0x0008,
  ESME_RINVDSTADR: 0x000b,
  ESME_RBINDFAIL: 0x000d,
  ESME_RINVPASWD: 0x000e,
  ESME_RINVSYSID: 0x000f,
  ESME_RMSGQFUL: 0x0014,
  ESME_RSUBMITFAIL: 0x0045,
  ESME_RTHROTTLED: 0x0058,
  ESME_RX_T_APPN: 0x0064,
} as const;

/** `ESME_RTHROTTLED` for 0x58 etc.; `0x000000NN` for codes without a name in the package. */
export function smppStatusName(status: number): string {
  for (const [name, value] of Object.entries(lib.errors)) if (value === status) return name;
  return `0x${status.toString(16).padStart(8, '0')}`;
}

/** esm_class bits (SMPP 3.4 §5.2.12). */
export const ESM_CLASS = { UDHI: 0x40, MESSAGE_TYPE_MASK: 0x3c, DELIVERY_RECEIPT: 0x04, INTERMEDIATE_NOTIFICATION: 0x20 } as const;
/** data_coding values used here. */
export const DATA_CODING = { GSM7: 0x00, LATIN1: 0x03, BINARY: 0x04, UCS2: 0x08 } as const;
