/**
 * Text → submit_sm bodies (pure). The parts are exactly src/sms splitSms's (what was billed); each
 * becomes one submit_sm: data_coding 0 with GSM 03.38 default-alphabet septets, one octet per
 * septet (unpacked, as SMSCs expect over SMPP), or data_coding 8 with UCS-2 big-endian. Several
 * parts carry a 6-octet UDH (IEI 0x00: concatenated message, 8-bit reference) and esm_class 0x40.
 */
import { GSM_BASIC_CHARACTERS, GSM_EXTENSION_CHARACTERS, type SmsEncoding } from '../../sms/index.js';
import { DATA_CODING, ESM_CLASS } from './smpp-lib.js';

const ESC = 0x1b;
/** Septet of each basic character. GSM_BASIC_CHARACTERS is the table without ESC (0x1B). */
const BASIC = new Map<string, number>();
for (let i = 0; i < GSM_BASIC_CHARACTERS.length; i++) BASIC.set(GSM_BASIC_CHARACTERS[i]!, i < ESC ? i : i + 1);
/** Extension table (3GPP TS 23.038 §6.2.1.1): reached through ESC. */
const EXTENSION_CODES: Readonly<Record<string, number>> = { '\f': 0x0a, '^': 0x14, '{': 0x28, '}': 0x29, '\\': 0x2f, '[': 0x3c, '~': 0x3d, ']': 0x3e, '|': 0x40, '€': 0x65 };
for (const ch of GSM_EXTENSION_CHARACTERS) if (EXTENSION_CODES[ch] === undefined) throw new Error(`GSM extension character without a code: ${JSON.stringify(ch)}`);
const DECODE_BASIC = new Map<number, string>([...BASIC].map(([ch, code]) => [code, ch]));
const DECODE_EXTENSION = new Map<number, string>(Object.entries(EXTENSION_CODES).map(([ch, code]) => [code, ch]));

/** Septet + 1 of each basic character below U+0100 (0: look further), for the common case without a Map look-up. */
const BASIC_LATIN = new Uint8Array(256);
for (const [ch, code] of BASIC) if (ch.charCodeAt(0) < 256) BASIC_LATIN[ch.charCodeAt(0)] = code + 1;
const QUESTION = BASIC.get('?')!;

/** GSM 03.38 septets, one per octet; a character outside the alphabet becomes '?'. */
export function encodeGsm7(text: string): Buffer {
  // At most two octets per UTF-16 unit (ESC + code); trimmed to what was written.
  const out = Buffer.allocUnsafe(text.length * 2);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const fast = c < 256 ? BASIC_LATIN[c]! : 0;
    if (fast !== 0) {
      out[n++] = fast - 1;
      continue;
    }
    // A surrogate pair is one character (outside the alphabet: one '?').
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const ch = pair ? text.slice(i, ++i + 1) : text[i]!;
    const basic = BASIC.get(ch);
    const ext = EXTENSION_CODES[ch];
    if (basic !== undefined) out[n++] = basic;
    else if (ext !== undefined) {
      out[n++] = ESC;
      out[n++] = ext;
    } else out[n++] = QUESTION;
  }
  return out.subarray(0, n);
}

/** The reverse of encodeGsm7 (unpacked septets). */
export function decodeGsm7(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]! & 0x7f;
    if (b === ESC && i + 1 < bytes.length) {
      const ext = DECODE_EXTENSION.get(bytes[i + 1]! & 0x7f);
      i++;
      out += ext ?? ' ';
      continue;
    }
    out += DECODE_BASIC.get(b) ?? ' ';
  }
  return out;
}

export function encodeUcs2(text: string): Buffer {
  return ucs2Into(text, 0);
}

/**
 * UCS-2 big-endian after `offset` unwritten octets (room for a UDH): the code units as they are
 * (a surrogate pair stays two units, a lone surrogate is kept), written natively as UTF-16LE and
 * swapped — a per-character writeUInt16BE cost microseconds per part.
 */
function ucs2Into(text: string, offset: number): Buffer {
  const buf = Buffer.allocUnsafe(offset + text.length * 2);
  buf.write(text, offset, 'utf16le');
  buf.subarray(offset).swap16();
  return buf;
}

export function decodeUcs2(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
  return out;
}

const UDH_LENGTH = 6;

/** UDH of part `seq` (1-based) of `total`: IEI 0x00 concatenation, 8-bit reference. */
export function concatUdh(ref: number, total: number, seq: number): Buffer {
  const udh = Buffer.allocUnsafe(UDH_LENGTH);
  writeConcatUdh(udh, ref, total, seq);
  return udh;
}

function writeConcatUdh(out: Buffer, ref: number, total: number, seq: number): void {
  out[0] = 0x05;
  out[1] = 0x00;
  out[2] = 0x03;
  out[3] = ref & 0xff;
  out[4] = total & 0xff;
  out[5] = seq & 0xff;
}

export interface SubmitBody {
  /** 0-based part index. */
  index: number;
  dataCoding: number;
  esmClass: number;
  shortMessage: Buffer;
}

/** One submit_sm body per part, in order. */
export function submitBodies(parts: readonly string[], encoding: SmsEncoding, ref: number): SubmitBody[] {
  const unicode = encoding === 'Unicode';
  const dataCoding = unicode ? DATA_CODING.UCS2 : DATA_CODING.GSM7;
  const list = parts.length === 0 ? [''] : parts;
  const multi = list.length > 1;
  return list.map((text, index) => {
    let shortMessage: Buffer;
    if (!multi) shortMessage = unicode ? encodeUcs2(text) : encodeGsm7(text);
    else if (unicode) {
      // The UDH written in front of the body in one buffer (no concat copy).
      shortMessage = ucs2Into(text, UDH_LENGTH);
      writeConcatUdh(shortMessage, ref, list.length, index + 1);
    } else shortMessage = Buffer.concat([concatUdh(ref, list.length, index + 1), encodeGsm7(text)]);
    return { index, dataCoding, esmClass: multi ? ESM_CLASS.UDHI : 0, shortMessage };
  });
}

/** source_addr with TON/NPI: alphanumeric (5/0), international number (1/1) or short code (3/0). */
export function sourceAddress(senderName: string): { addr: string; ton: number; npi: number } {
  const trimmed = senderName.trim();
  const digits = trimmed.replace(/^\+/, '');
  if (/^\d+$/.test(digits)) {
    if (trimmed.startsWith('+') || digits.length > 8) return { addr: digits, ton: 1, npi: 1 };
    return { addr: digits, ton: 3, npi: 0 };
  }
  // GSM alphanumeric originators are at most 11 characters.
  return { addr: trimmed.slice(0, 11), ton: 5, npi: 0 };
}
