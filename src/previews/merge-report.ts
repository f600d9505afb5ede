/**
 * Every value a preview merges, for the person who approves it (DESIGN §6, issue #27): per merge
 * field, each distinct value with how many recipients get it and what is risky about it, riskiest
 * first. Five samples are not enough — an assistant that may write contacts can put a new call to
 * action into recipient 12's first name — so the share page, the REST and MCP previews and the
 * in-chat view all read this one report. The rules for "risky" live in content/text-risks.ts; the
 * two that need the other values or the contact's history (unusual length, written by an assistant)
 * are decided here. Pure: the preview's dry run collects, this module arranges.
 */
import { RISK_ORDER, textRisks, visibleText, type TextRisk, type TextRiskCode } from '../content/text-risks.js';
import type { CollectedMergeValues } from '../messaging/merge-audit.js';
import type { ErrorDetail } from '../platform/errors.js';
import { plural } from '../platform/plural.js';
import { contentSummary, normalizeContent, type Content, type MessageType } from '../content/index.js';
import { mergeContent } from '../content/merge-content.js';
import { mergeText, TODAY_MERGE_FIELD, UNSUBSCRIBE_MERGE_FIELD, type MergeContact, type MergeContext } from '../merge/index.js';

export interface StoredMergeValue {
  value: string;
  count: number;
  risks: TextRisk[];
}

export interface StoredMergeField {
  name: string;
  /** Riskiest first, then most recipients first. */
  values: StoredMergeValue[];
}

/** What previews.merge_values holds. */
export interface StoredMergeValues {
  v: 1;
  /** Recipients the preview accepted. */
  total: number;
  /** Values the same for every recipient: name → value. */
  shared: Record<string, string>;
  fields: StoredMergeField[];
  /** Phone digits → the index of its value in each field (`fields[i].values`). */
  recipients: [phone: string, valueIndexes: number[]][];
}

export interface MergeReportOptions {
  now: number;
  /** Assistant writes at or after this time are flagged (the last 24 hours, or since a person last approved). */
  assistantSince: number;
}

/** A value this much longer than the field's usual value stands out: at least 3× the median length and 15 characters more, and 20 or more characters. */
export const UNUSUAL_LENGTH = { factor: 3, extra: 15, min: 20 } as const;

/**
 * A value's place in the "worst first" order (docs/decisions.md "The worst first"): the positions of its
 * risks in RISK_ORDER, most serious first; an unflagged value sorts after every flagged one.
 */
export function riskKey(risks: readonly TextRisk[]): number[] {
  if (risks.length === 0) return [RISK_ORDER.length + 1];
  return risks.map((r) => RISK_ORDER.indexOf(r.code)).sort((a, b) => a - b);
}

/**
 * Worst first: the most serious risk decides, then the next one; a value with one more reason after
 * the same ones ranks above (a phone number an assistant wrote before one a person typed).
 */
export function compareRiskKeys(a: readonly number[], b: readonly number[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? RISK_ORDER.length) - (b[i] ?? RISK_ORDER.length);
    if (d !== 0) return d;
  }
  return 0;
}

function ago(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 1) return 'less than a minute';
  if (min < 120) return plural(min, 'minute');
  const h = Math.round(min / 60);
  return h < 48 ? plural(h, 'hour') : plural(Math.round(h / 24), 'day');
}

function medianLength(values: readonly string[], counts: readonly number[]): number {
  const order = values.map((v, i) => [v.length, counts[i]!] as const).sort((a, b) => a[0] - b[0]);
  const half = counts.reduce((s, c) => s + c, 0) / 2;
  let seen = 0;
  for (const [len, n] of order) {
    seen += n;
    if (seen >= half) return len;
  }
  return 0;
}

/** Arranges what a preview's dry run collected: counts, risks, riskiest first. */
export function buildMergeReport(c: CollectedMergeValues, opts: MergeReportOptions): StoredMergeValues {
  const fields: StoredMergeField[] = [];
  const remap: number[][] = [];
  c.fields.forEach((name, f) => {
    const values = c.values[f]!;
    const counts = values.map(() => 0);
    for (const [, idx] of c.recipients) counts[idx[f]!]!++;
    const writers = new Map<number, { phones: Set<string>; by: Set<string>; latest: number }>();
    const phoneValue = new Map<string, number>();
    for (const [phone, idx] of c.recipients) phoneValue.set(phone, idx[f]!);
    for (const [phone, field, by, at] of c.writes) {
      if (field !== f || at < opts.assistantSince) continue;
      const v = phoneValue.get(phone);
      if (v === undefined) continue;
      const w = writers.get(v) ?? { phones: new Set<string>(), by: new Set<string>(), latest: 0 };
      w.phones.add(phone);
      w.by.add(by);
      w.latest = Math.max(w.latest, at);
      writers.set(v, w);
    }
    const median = values.length > 1 ? medianLength(values, counts) : null;
    const entries = values.map((value, i) => {
      const risks = textRisks(value, { field: name });
      if (median !== null && value.length >= UNUSUAL_LENGTH.min && value.length >= median * UNUSUAL_LENGTH.factor && value.length >= median + UNUSUAL_LENGTH.extra) {
        risks.push({ code: 'unusual_length', message: `is ${value.length} characters long, while most recipients get about ${median}` });
      }
      const w = writers.get(i);
      if (w) {
        const who = w.phones.size === counts[i] ? '' : ` (for ${w.phones.size.toLocaleString('en-US')} of its ${counts[i]!.toLocaleString('en-US')} recipients)`;
        risks.push({ code: 'written_by_assistant', message: `was written by ${[...w.by].join(', ')} ${ago(opts.now - w.latest)} before this preview${who} — an assistant, not a person` });
      }
      risks.sort((a, b) => RISK_ORDER.indexOf(a.code) - RISK_ORDER.indexOf(b.code));
      return { i, key: riskKey(risks), entry: { value, count: counts[i]!, risks } };
    });
    entries.sort((a, b) => compareRiskKeys(a.key, b.key) || b.entry.count - a.entry.count || a.i - b.i);
    const newIndex: number[] = [];
    entries.forEach((e, at) => (newIndex[e.i] = at));
    remap.push(newIndex);
    fields.push({ name, values: entries.map((e) => e.entry) });
  });
  return {
    v: 1,
    total: c.recipients.length,
    shared: c.shared,
    fields,
    recipients: c.recipients.map(([phone, idx]) => [phone, idx.map((v, f) => remap[f]![v]!)]),
  };
}

export const isFlagged = (v: StoredMergeValue): boolean => v.risks.length > 0;

/** The value one recipient gets in each field (phone as digits or +E.164), or null when not a recipient. */
export function valuesOf(report: StoredMergeValues, phone: string): Record<string, string> | null {
  const digits = phone.replace(/^\+/, '');
  const hit = report.recipients.find(([p]) => p === digits);
  if (!hit) return null;
  const out: Record<string, string> = { ...report.shared };
  report.fields.forEach((f, i) => (out[f.name] = f.values[hit[1][i]!]!.value));
  return out;
}

/** Recipients (as +E.164) that get value `valueIndex` of `field`, in the order of the send. */
export function recipientsWith(report: StoredMergeValues, field: number, valueIndex: number): string[] {
  const out: string[] = [];
  for (const [phone, idx] of report.recipients) if (idx[field] === valueIndex) out.push(`+${phone}`);
  return out;
}

export interface ValueRow {
  field: string;
  /** Index of the value in its field (for recipientsWith and links). */
  index: number;
  value: string;
  /** The value with bidi controls and invisible characters made visible. */
  shown: string;
  count: number;
  risks: TextRisk[];
}

export interface ValuesQuery {
  field?: string | undefined;
  /** Case-insensitive part of a value. */
  q?: string | undefined;
  flaggedOnly?: boolean | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** One page of values, riskiest first, across fields or in one; `matched` counts every value that matches. */
export function queryValues(report: StoredMergeValues, query: ValuesQuery): { rows: ValueRow[]; matched: number } {
  const q = query.q?.trim().toLowerCase() ?? '';
  let rows: ValueRow[] = [];
  for (const f of report.fields) {
    if (query.field !== undefined && f.name !== query.field) continue;
    f.values.forEach((v, index) => {
      if (query.flaggedOnly && !isFlagged(v)) return;
      if (q && !v.value.toLowerCase().includes(q) && !visibleText(v.value).toLowerCase().includes(q)) return;
      rows.push({ field: f.name, index, value: v.value, shown: visibleText(v.value), count: v.count, risks: v.risks });
    });
  }
  // Across fields: the worst values of every field first (a stable sort keeps each field's order).
  if (query.field === undefined && report.fields.length > 1) {
    const keyed = rows.map((r) => ({ r, key: riskKey(r.risks) }));
    keyed.sort((a, b) => compareRiskKeys(a.key, b.key));
    rows = keyed.map((k) => k.r);
  }
  const offset = Math.max(0, query.offset ?? 0);
  return { rows: rows.slice(offset, offset + (query.limit ?? 50)), matched: rows.length };
}

/**
 * The worst value of every field, for the page's first screen (issue #42): the flagged value that ranks
 * first across fields, or null when none is flagged. Scans every value, so a report stored in an
 * older order is still answered right.
 */
export function worstValue(report: StoredMergeValues): ValueRow | null {
  let best: { row: ValueRow; key: number[] } | null = null;
  for (const f of report.fields) {
    f.values.forEach((v, index) => {
      if (!isFlagged(v)) return;
      const key = riskKey(v.risks);
      if (best === null || compareRiskKeys(key, best.key) < 0) best = { row: { field: f.name, index, value: v.value, shown: visibleText(v.value), count: v.count, risks: v.risks }, key };
    });
  }
  return (best as { row: ValueRow } | null)?.row ?? null;
}

/** Per field: how many distinct values, how many flagged, and how many recipients get a flagged one. */
export function fieldStats(report: StoredMergeValues): { name: string; distinct: number; flaggedValues: number; flaggedRecipients: number }[] {
  return report.fields.map((f) => {
    const flagged = f.values.filter(isFlagged);
    return { name: f.name, distinct: f.values.length, flaggedValues: flagged.length, flaggedRecipients: flagged.reduce((s, v) => s + v.count, 0) };
  });
}

/** What the REST and MCP preview results carry: per field, the first values (riskiest first) and how many more. */
export interface MergeValuesSummary {
  recipients: number;
  fields: {
    name: string;
    distinct: number;
    flaggedValues: number;
    values: { value: string; recipients: number; risks: TextRiskCode[] }[];
    more: number;
  }[];
}

export function mergeValuesSummary(report: StoredMergeValues, perField = 10): MergeValuesSummary {
  return {
    recipients: report.total,
    fields: report.fields.map((f) => ({
      name: f.name,
      distinct: f.values.length,
      flaggedValues: f.values.filter(isFlagged).length,
      values: f.values.slice(0, perField).map((v) => ({ value: visibleText(v.value), recipients: v.count, risks: v.risks.map((r) => r.code) })),
      more: Math.max(0, f.values.length - perField),
    })),
  };
}

const short = (s: string, max = 60) => {
  const v = visibleText(s);
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
};

/**
 * One warning per flagged value (field, value, recipients, why), riskiest first, at most `limit`;
 * beyond that one warning counts the rest and says where they are listed.
 */
export function mergeValueWarnings(report: StoredMergeValues, limit = 20): ErrorDetail[] {
  const flagged = report.fields.flatMap((f, fi) => f.values.map((v, vi) => ({ f, fi, v, vi, key: riskKey(v.risks) })).filter((x) => isFlagged(x.v)));
  flagged.sort((a, b) => compareRiskKeys(a.key, b.key));
  const out: ErrorDetail[] = flagged.slice(0, limit).map(({ f, fi, v, vi }) => {
    const phones = recipientsWith(report, fi, vi);
    const who = phones.length <= 3 ? phones.join(', ') : `${phones.slice(0, 3).join(', ')} and ${plural(phones.length - 3, 'more')}`;
    return {
      path: `merge.${f.name}`,
      code: `risky_merge_value`,
      message: `{{${f.name}}} is "${short(v.value)}" for ${plural(v.count, 'recipient')} (${who}): it ${v.risks.map((r) => r.message).join('; it ')}. Check it before approving.`,
    };
  });
  if (flagged.length > limit) {
    const rest = flagged.slice(limit);
    out.push({ path: 'merge', code: 'risky_merge_value', message: `${plural(rest.length, 'more flagged value')} (${plural(rest.reduce((s, x) => s + x.v.count, 0), 'recipient')}) are listed on the share page.` });
  }
  return out;
}

/** Placeholder names whose values are the contact's own (not custom fields). */
const CONTACT_FIELDS: Record<string, keyof Omit<MergeContact, 'customFields'>> = {
  contact_first_name: 'firstName',
  contact_last_name: 'lastName',
  contact_phone: 'phone',
  contact_email: 'email',
};

/**
 * Any recipient's whole message, merged from the values the preview recorded for it (the same
 * merge code as the send), so the page shows recipient 7,812 as exactly as recipient 1. The
 * per-recipient unsubscribe token is issued at send time; `unsubscribeLink` stands for it.
 */
export function recipientMessage(
  report: StoredMergeValues,
  phone: string,
  message: { messageType: MessageType | null; content: Content | null; fallback: string | null; sms: string | null },
  unsubscribeLink: string,
): { phoneNumber: string; text: string; fallbackText: string | null; messageType: MessageType | null; content: Content | null } | null {
  const values = valuesOf(report, phone);
  if (!values) return null;
  const contact: MergeContact = { customFields: {} };
  const perRecipient = new Set(report.fields.map((f) => f.name));
  for (const name of perRecipient) {
    const key = CONTACT_FIELDS[name];
    if (key) contact[key] = values[name] ?? '';
    else contact.customFields[name] = values[name] ?? '';
  }
  const company: Record<string, string> = {};
  for (const [k, v] of Object.entries(report.shared)) company[k] = v;
  const ctx: MergeContext = {
    contact,
    company,
    today: report.shared[TODAY_MERGE_FIELD] ?? '',
    unsubscribeUrl: report.shared[UNSUBSCRIBE_MERGE_FIELD] ?? unsubscribeLink,
    customFieldTags: new Set(Object.keys(contact.customFields)),
  };
  const phoneNumber = `+${phone.replace(/^\+/, '')}`;
  if (message.sms !== null) {
    const text = mergeText(message.sms, ctx, 'sms');
    return { phoneNumber, text, fallbackText: null, messageType: null, content: null };
  }
  if (!message.content || !message.messageType) return null;
  const content = normalizeContent(message.messageType, mergeContent(message.content, ctx));
  return {
    phoneNumber,
    text: contentSummary(message.messageType, content),
    fallbackText: message.fallback === null ? null : mergeText(message.fallback, ctx, 'fallback'),
    messageType: message.messageType,
    content,
  };
}
