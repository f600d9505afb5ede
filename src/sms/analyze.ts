import { GSM_SEPTET_COST } from './gsm-alphabet.js';
import {
  GSM7_MULTI_SEGMENT_UNITS,
  GSM7_SINGLE_SEGMENT_UNITS,
  UCS2_MULTI_SEGMENT_UNITS,
  UCS2_SINGLE_SEGMENT_UNITS,
} from './limits.js';

export type SmsEncoding = 'GSM-7' | 'Unicode';

export interface SmsPart {
  text: string;
  /** Septets (GSM-7) or UTF-16 code units (Unicode) this part uses. */
  units: number;
}

export interface SmsAnalysis {
  encoding: SmsEncoding;
  /** Parts a carrier bills for. 0 for the empty text: nothing is sent, nothing is billed. */
  segments: number;
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for Unicode. */
  units: number;
  /** Distinct characters that forced Unicode, in order of first appearance (empty for GSM-7). */
  unicodeCharacters: string[];
  /** Capacity of one segment at this length: 160/70 while it fits one part, 153/67 once split. */
  perSegment: number;
  /** UTF-16 length of the text, the measure the 1530-character limit is checked against. */
  length: number;
  parts?: SmsPart[];
}

export interface AnalyzeSmsOptions {
  includeParts?: boolean;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * Encoding, segment count and (optionally) the parts of an SMS body. Segments are counted by
 * the same splitter that produces the parts, because keeping escape sequences and surrogate pairs
 * whole moves part boundaries: a plain units / 153 division undercounts at the edges.
 */
export function analyzeSms(text: string, options: AnalyzeSmsOptions = {}): SmsAnalysis {
  const scan = scanEncoding(text);
  const gsm = scan.unicodeCharacters.length === 0;
  const units = gsm ? scan.septets : text.length;
  const single = gsm ? GSM7_SINGLE_SEGMENT_UNITS : UCS2_SINGLE_SEGMENT_UNITS;
  const multi = gsm ? GSM7_MULTI_SEGMENT_UNITS : UCS2_MULTI_SEGMENT_UNITS;

  let boundaries: number[];
  let perSegment: number;
  if (units === 0) {
    boundaries = [];
    perSegment = single;
  } else if (units <= single) {
    boundaries = [0];
    perSegment = single;
  } else {
    boundaries = splitPoints(text, gsm, multi);
    perSegment = multi;
  }

  const result: SmsAnalysis = {
    encoding: gsm ? 'GSM-7' : 'Unicode',
    segments: boundaries.length,
    units,
    unicodeCharacters: scan.unicodeCharacters,
    perSegment,
    length: text.length,
  };
  if (options.includeParts) result.parts = materialize(text, boundaries, gsm);
  return result;
}

/** The parts a carrier would send, in order; [] for the empty text. */
export function splitSms(text: string): SmsPart[] {
  return analyzeSms(text, { includeParts: true }).parts ?? [];
}

/** Just the billable segment count, for hot paths that need nothing else. */
export function countSmsSegments(text: string): number {
  return analyzeSms(text).segments;
}

function scanEncoding(text: string): { septets: number; unicodeCharacters: string[] } {
  let septets = 0;
  let unicode: string[] | null = null;
  let seen: Set<string> | null = null;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const cost = GSM_SEPTET_COST[code] ?? 0;
    if (cost !== 0) {
      septets += cost;
      continue;
    }
    let ch = text[i] as string;
    if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      ch = text.slice(i, i + 2);
      i++;
    }
    unicode ??= [];
    seen ??= new Set();
    if (!seen.has(ch)) {
      seen.add(ch);
      unicode.push(ch);
    }
  }
  return { septets, unicodeCharacters: unicode ?? [] };
}

/** Start index of every part, filling each greedily without splitting a 2-unit character. */
function splitPoints(text: string, gsm: boolean, capacity: number): number[] {
  const starts = [0];
  let used = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let cost: number;
    let width = 1;
    if (gsm) {
      cost = GSM_SEPTET_COST[code] ?? 1;
    } else if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      cost = 2;
      width = 2;
    } else {
      cost = 1;
    }
    if (used + cost > capacity) {
      starts.push(i);
      used = 0;
    }
    used += cost;
    i += width;
  }
  return starts;
}

function materialize(text: string, starts: number[], gsm: boolean): SmsPart[] {
  const parts: SmsPart[] = [];
  for (let p = 0; p < starts.length; p++) {
    const from = starts[p] as number;
    const to = p + 1 < starts.length ? (starts[p + 1] as number) : text.length;
    const part = text.slice(from, to);
    parts.push({ text: part, units: gsm ? septetsOf(part) : part.length });
  }
  return parts;
}

function septetsOf(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) n += GSM_SEPTET_COST[text.charCodeAt(i)] ?? 0;
  return n;
}
