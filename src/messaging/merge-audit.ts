import { createHash } from 'node:crypto';
import { TODAY_MERGE_FIELD, UNSUBSCRIBE_MERGE_FIELD, isCompanyMergeField, isContactMergeField, resolveMergeField, type MergeChannel, type MergeContext } from '../merge/index.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { plural } from '../platform/plural.js';

/**
 * What a preview's recipients got merged in, compactly: enough to tell at send time whether any
 * recipient would now get something else, and to name the fields (docs/decisions.md "Stale
 * previews are refused"). The per-send unsubscribe token is not part of it: a fresh one is
 * issued on every send by design (§2.13 rule 4).
 */
export interface MergeFingerprint {
  v: 1;
  /** Values that are the same for every recipient (company profile, today): name → hash. */
  shared: Record<string, string>;
  /** Per-recipient placeholder names (contact, custom and unknown fields), in tag order. */
  fields: string[];
  /**
   * Phone digits → a 96-bit hash over the recipient's contact identity and every per-recipient
   * value (what decides), then one 24-bit tag for the identity and one per field (what names
   * the changed fields; short: 10,000 recipients with two fields take about 470 KB).
   */
  recipients: Record<string, string>;
}

const STRONG_CHARS = 16;
const TAG_CHARS = 4;
/** Stands for a placeholder left as written (unknown name in RCS, unsubscribe link without a contact). */
const LEFT_AS_WRITTEN = '\u0000';
/** Marks the custom unsubscribe URL in the fingerprint when the account has none (our own per-recipient link). */
const OWN_UNSUBSCRIBE_LINK = 'own-link';

/** An approval-bound credential's write of one merge value of a contact (src/contacts). */
export interface AssistantWrite {
  by: string;
  at: number;
}

/**
 * Every per-recipient merged value of a preview's dry run, compactly: each field's distinct values
 * and, per recipient, the index of its value in each field. previews/merge-report.ts turns it into
 * what the person sees (DESIGN §6: every varying value, not five samples).
 */
export interface CollectedMergeValues {
  /** Per-recipient placeholder names, in tag order (as MergeFingerprint.fields). */
  fields: string[];
  /** Per field, its distinct values in order of first appearance. */
  values: string[][];
  /** Phone digits and the index of its value in each field, in the order recipients were accepted. */
  recipients: [phone: string, valueIndexes: number[]][];
  /** Values the same for every recipient (company fields, today, the custom unsubscribe URL): name → value. */
  shared: Record<string, string>;
  /** Merged values an approval-bound credential wrote: phone digits, field index, by whom, when. */
  writes: [phone: string, field: number, by: string, at: number][];
}

export interface MergeAuditOptions {
  /** The account's custom unsubscribe URL (null: our own per-recipient link). Part of the fingerprint. */
  unsubscribeUrl?: string | null;
  /** Keep every merged value (previews' dry run): costs memory a plain send of a preview does not need. */
  collectValues?: boolean;
  /**
   * The account's quiet-hours setting as it applies to this send (QuietPlan.fingerprintKey), null when it does not:
   * turning quiet hours on or off, or changing a window, after the preview makes it stale — the person approved
   * when the recipients would get it (issue #28).
   */
  quietHours?: string | null;
}

/** The pseudo-field naming a change of the quiet-hours setting since the preview. */
export const QUIET_HOURS_FIELD = 'quiet hours';

/** The pseudo-field naming a change of the contact behind a number (deleted, replaced, newly created). */
export const CONTACT_IDENTITY = 'contact';

const strongHash = (s: string): string => createHash('sha256').update(s).digest('base64url').slice(0, STRONG_CHARS);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** FNV-1a, 24 bits as 4 base64url characters: only names fields; the strong hash decides. */
function tag(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h >>>= 8;
  return B64[(h >>> 18) & 63]! + B64[(h >>> 12) & 63]! + B64[(h >>> 6) & 63]! + B64[h & 63]!;
}

/**
 * Collects, recipient by recipient inside the send's own merge loop, the fingerprint and the
 * count of empty merge values. Used by the preview's dry run and by the send of a preview.
 */
export class MergeAudit {
  private readonly shared: string[] = [];
  private readonly perRecipient: string[] = [];
  private readonly sharedHashes: Record<string, string> = {};
  private readonly sharedEmpty: string[] = [];
  private readonly emptyCounts: number[];
  private readonly counted: boolean[];
  private readonly recipients = new Map<string, string>();
  private readonly collected: CollectedMergeValues | null;
  private readonly valueIndex: Map<string, number>[] = [];

  /** `sharedCtx`: any merge context of this send (company values and today are everybody's). */
  constructor(names: readonly string[], private readonly channel: MergeChannel, sharedCtx: MergeContext, opts: MergeAuditOptions = {}) {
    let unsubscribe = false;
    for (const n of names) {
      if (n === UNSUBSCRIBE_MERGE_FIELD) unsubscribe = true;
      else if (isCompanyMergeField(n) || n === TODAY_MERGE_FIELD) this.shared.push(n);
      else this.perRecipient.push(n);
    }
    const sharedValues: Record<string, string> = {};
    for (const n of this.shared) {
      const v = resolveMergeField(n, sharedCtx, channel) ?? LEFT_AS_WRITTEN;
      this.sharedHashes[n] = strongHash(v);
      sharedValues[n] = v === LEFT_AS_WRITTEN ? `{{${n}}}` : v;
      if (n !== TODAY_MERGE_FIELD && v.trim() === '') this.sharedEmpty.push(n);
    }
    // The per-recipient token is fresh on every send (§2.13 rule 4), but where the link leads is an
    // account setting the person approved: a custom unsubscribe URL changed afterwards is a change.
    if (unsubscribe) {
      const custom = opts.unsubscribeUrl ?? null;
      this.sharedHashes[UNSUBSCRIBE_MERGE_FIELD] = strongHash(custom ?? OWN_UNSUBSCRIBE_LINK);
      if (custom !== null) sharedValues[UNSUBSCRIBE_MERGE_FIELD] = custom;
    }
    if (opts.quietHours != null) this.sharedHashes[QUIET_HOURS_FIELD] = strongHash(opts.quietHours);
    this.collected = opts.collectValues ? { fields: [...this.perRecipient], values: this.perRecipient.map(() => []), recipients: [], shared: sharedValues, writes: [] } : null;
    if (this.collected) for (let i = 0; i < this.perRecipient.length; i++) this.valueIndex.push(new Map());
    // Unknown names already get `unknown_merge_field` from the validator; only real fields are counted.
    this.counted = this.perRecipient.map((n) => isContactMergeField(n) || sharedCtx.customFieldTags.has(n));
    this.emptyCounts = this.perRecipient.map(() => 0);
  }

  /**
   * `identity`: the contact id, `new` for a contact this send creates, `none` without a contact.
   * `writes`: the contact's values an approval-bound credential wrote, by merge field name.
   */
  add(phone: string, identity: string, ctx: MergeContext, writes?: Readonly<Record<string, AssistantWrite>>): void {
    const values = [identity];
    let tags = tag(identity);
    const indexes: number[] = [];
    for (let i = 0; i < this.perRecipient.length; i++) {
      const name = this.perRecipient[i]!;
      const v = resolveMergeField(name, ctx, this.channel) ?? LEFT_AS_WRITTEN;
      values.push(v);
      tags += tag(v);
      if (this.counted[i] && v.trim() === '') this.emptyCounts[i]!++;
      if (this.collected) {
        indexes.push(this.collect(i, v === LEFT_AS_WRITTEN ? `{{${name}}}` : v));
        const w = writes?.[name];
        if (w) this.collected.writes.push([phone, i, w.by, w.at]);
      }
    }
    this.recipients.set(phone, strongHash(JSON.stringify(values)) + tags);
    this.collected?.recipients.push([phone, indexes]);
  }

  private collect(field: number, value: string): number {
    const index = this.valueIndex[field]!;
    let at = index.get(value);
    if (at === undefined) {
      at = this.collected!.values[field]!.push(value) - 1;
      index.set(value, at);
    }
    return at;
  }

  /** Every merged value, when collected (previews' dry run), else null. */
  values(): CollectedMergeValues | null {
    return this.collected;
  }

  fingerprint(): MergeFingerprint {
    return { v: 1, shared: { ...this.sharedHashes }, fields: [...this.perRecipient], recipients: Object.fromEntries(this.recipients) };
  }

  /** `empty_merge_value` warnings: which field has no value for how many of the recipients. */
  emptyWarnings(): ErrorDetail[] {
    const total = this.recipients.size;
    if (total === 0) return [];
    const out: ErrorDetail[] = [];
    const warn = (name: string, count: number) => {
      const who = count === total ? `all ${total} recipient${total === 1 ? '' : 's'}` : `${count} of ${total} recipients`;
      out.push({
        path: `merge.${name}`,
        code: 'empty_merge_value',
        message: `{{${name}}} has no value for ${who}: they get the message with nothing in its place. Fill in the value, or change the text, before approving.`,
      });
    };
    this.perRecipient.forEach((n, i) => {
      if (this.emptyCounts[i]! > 0) warn(n, this.emptyCounts[i]!);
    });
    for (const n of this.sharedEmpty) warn(n, total);
    return out;
  }
}

/** How a send's merge inputs differ from the preview's. */
export interface StaleReport {
  /** Recipients whose message would differ, or who were added to or dropped from the send. */
  recipients: number;
  /** Recipients of the preview. */
  total: number;
  /** Changed fields with the number of recipients each affects. */
  fields: { name: string; recipients: number }[];
  /** Previewed recipients that would not be sent to now (contact disabled, opted out, now invalid …). */
  dropped: number;
  /** Recipients that would be sent to now but were not accepted by the preview. */
  added: number;
}

/** null when every recipient would get exactly what the preview merged (unsubscribe token aside). */
export function compareFingerprints(before: MergeFingerprint, after: MergeFingerprint): StaleReport | null {
  const fieldCounts = new Map<string, number>();
  const bump = (name: string, by = 1) => fieldCounts.set(name, (fieldCounts.get(name) ?? 0) + by);
  const sameFields = before.fields.length === after.fields.length && before.fields.every((f, i) => after.fields[i] === f);
  const changed = new Set<string>();
  let added = 0;
  for (const [phone, now] of Object.entries(after.recipients)) {
    const then = before.recipients[phone];
    if (then === undefined) {
      added++;
      continue;
    }
    if (then.slice(0, STRONG_CHARS) === now.slice(0, STRONG_CHARS) && sameFields) continue;
    changed.add(phone);
    const names = sameFields ? [CONTACT_IDENTITY, ...after.fields] : [];
    let named = false;
    for (let i = 0; i < names.length; i++) {
      const at = STRONG_CHARS + i * TAG_CHARS;
      if (then.slice(at, at + TAG_CHARS) !== now.slice(at, at + TAG_CHARS)) {
        bump(names[i]!);
        named = true;
      }
    }
    if (!named) bump('merge values');
  }
  let dropped = 0;
  for (const phone of Object.keys(before.recipients)) if (!Object.hasOwn(after.recipients, phone)) dropped++;
  const kept = Object.keys(after.recipients).filter((p) => Object.hasOwn(before.recipients, p));
  for (const name of new Set([...Object.keys(before.shared), ...Object.keys(after.shared)])) {
    if (before.shared[name] === after.shared[name] || kept.length === 0) continue;
    bump(name, kept.length);
    for (const p of kept) changed.add(p);
  }
  const recipients = changed.size + added + dropped;
  if (recipients === 0) return null;
  return { recipients, total: Object.keys(before.recipients).length, fields: [...fieldCounts].map(([name, n]) => ({ name, recipients: n })), dropped, added };
}

/** PREVIEW_STALE: refused before anything is written or debited; the preview must be made again. */
export function staleError(r: StaleReport): AppError {
  const parts = r.fields.map((f) =>
    f.name === QUIET_HOURS_FIELD
      ? "the account's quiet-hours setting (when recipients may get it)"
      : `${f.name === CONTACT_IDENTITY ? 'contact (deleted, replaced or created)' : f.name} for ${plural(f.recipients, 'recipient')}`,
  );
  if (r.dropped > 0) parts.push(`${plural(r.dropped, 'recipient')} can no longer be sent to (contact disabled, opted out or deleted, or message now invalid)`);
  if (r.added > 0) parts.push(`${plural(r.added, 'recipient')} would now be sent to that the preview did not include`);
  const details: ErrorDetail[] = [
    ...r.fields.map((f) => ({ path: `merge.${f.name}`, code: 'changed_since_preview', message: `Changed for ${plural(f.recipients, 'recipient')} since the preview` })),
    ...(r.dropped > 0 ? [{ path: 'recipients', code: 'no_longer_accepted', message: `${plural(r.dropped, 'recipient')} of the preview would not be sent to now` }] : []),
    ...(r.added > 0 ? [{ path: 'recipients', code: 'newly_accepted', message: `${plural(r.added, 'recipient')} would be sent to that the preview did not include` }] : []),
  ];
  return new AppError(
    'PREVIEW_STALE',
    `The message changed since the preview for ${plural(r.recipients, 'recipient')} (of ${r.total} previewed): ${parts.join('; ')}. Nothing was sent or charged.`,
    { details, extra: { staleRecipients: r.recipients, previewRecipients: r.total, changedFields: r.fields.map((f) => f.name) } },
  );
}
