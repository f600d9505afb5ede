import { DateTime } from 'luxon';
import type { Account } from '../accounts/schemas.js';
import type { Content, MessageType } from '../content/index.js';
import type { RecipientContact } from '../contacts/directory.js';
import { mergeContent } from '../content/merge-content.js';
import { mergeText, type MergeChannel, type MergeContext } from '../merge/index.js';

/** The company merge values of an account (spec §2.13), from its profile. */
export function companyValues(account: Account): Record<string, string | undefined> {
  return { ...account.companyProfile };
}

/** `{{today}}`: the date in the account's time zone, written out so no reader confuses day and month. */
export function todayFor(account: Account, now: number): string {
  return DateTime.fromMillis(now, { zone: account.timezone }).setLocale('en-GB').toLocaleString(DateTime.DATE_FULL);
}

export interface RecipientMergeInput {
  contact: RecipientContact | null;
  /** The per-recipient opt-out URL, or null when none is issued (no contact). */
  unsubscribeUrl: string | null;
}

export interface MergeBase {
  company: Record<string, string | undefined>;
  today: string;
  customFieldTags: ReadonlySet<string>;
}

export function mergeContextFor(base: MergeBase, r: RecipientMergeInput): MergeContext {
  return {
    contact: r.contact
      ? { firstName: r.contact.firstName, lastName: r.contact.lastName, phone: `+${r.contact.phone}`, email: r.contact.email, customFields: r.contact.customFields }
      : null,
    company: base.company,
    today: base.today,
    unsubscribeUrl: r.unsubscribeUrl,
    customFieldTags: base.customFieldTags,
  };
}

export function mergeRcs(content: Content, ctx: MergeContext): Content {
  return mergeContent(content, ctx);
}

export function mergeSmsText(text: string, ctx: MergeContext, channel: Extract<MergeChannel, 'sms' | 'fallback'>): string {
  return mergeText(text, ctx, channel);
}

export type { MessageType };
