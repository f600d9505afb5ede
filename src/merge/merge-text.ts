import {
  BUILTIN_MERGE_FIELD_SET,
  TODAY_MERGE_FIELD,
  UNSUBSCRIBE_MERGE_FIELD,
  isCompanyMergeField,
  isContactMergeField,
} from './fields.js';
import { findPlaceholders, placeholderPattern } from './placeholders.js';

/**
 * Where the merged text goes. `sms` is a standalone SMS (§2.13 rule 2), `fallback` the SMS
 * fallback of an RCS message (rule 3), `rcs` the RCS body itself.
 */
export type MergeChannel = 'rcs' | 'sms' | 'fallback';

export interface MergeContact {
  firstName?: string | null;
  lastName?: string | null;
  /** Inserted exactly as given: the caller decides between stored digits and +E.164. */
  phone?: string | null;
  email?: string | null;
  /** Values by custom-field tag. */
  customFields: Record<string, string>;
}

export interface MergeContext {
  /** null when the recipient is not (and will not become) a contact (skipContactCreation). */
  contact: MergeContact | null;
  /** Company/account values keyed by placeholder name: company_name, contact_person, gdpr_email, … */
  company: Readonly<Record<string, string | undefined>>;
  /** Already formatted by the caller in the account's locale and time zone. */
  today: string;
  /** The per-recipient (fresh token) or account-custom opt-out URL; null when none can be issued. */
  unsubscribeUrl: string | null;
  /** Custom-field tags defined on the account. */
  customFieldTags: ReadonlySet<string>;
}

/** `undefined` means "leave the placeholder as written". */
type Resolution = string | undefined;

/**
 * The value one placeholder takes for one recipient (what mergeText inserts), or undefined when
 * it is left as written. Previews use it to warn about empty values and to fingerprint them.
 */
export function resolveMergeField(name: string, ctx: MergeContext, channel: MergeChannel): Resolution {
  return resolve(name, ctx, channel);
}

function resolve(name: string, ctx: MergeContext, channel: MergeChannel): Resolution {
  const contact = ctx.contact;
  if (isContactMergeField(name)) {
    // Rule 3: without a contact these have no value; an empty string reads better than braces.
    if (!contact) return '';
    switch (name) {
      case 'contact_first_name':
        return contact.firstName ?? '';
      case 'contact_last_name':
        return contact.lastName ?? '';
      case 'contact_phone':
        return contact.phone ?? '';
      case 'contact_email':
        return contact.email ?? '';
    }
  }
  if (isCompanyMergeField(name)) return ctx.company[name] ?? '';
  if (name === TODAY_MERGE_FIELD) return ctx.today;
  if (name === UNSUBSCRIBE_MERGE_FIELD) {
    // Rules 3 and 4: no contact (or no URL to give) leaves it as written, on every channel.
    return contact && ctx.unsubscribeUrl !== null ? ctx.unsubscribeUrl : undefined;
  }
  if (isCustomField(name, ctx)) {
    if (!contact) return '';
    return Object.hasOwn(contact.customFields, name) ? (contact.customFields[name] ?? '') : '';
  }
  // Unknown name. SMS of either kind must not show braces to the recipient (rule 2); in RCS we
  // leave it as written, because validation already warned and silently deleting text hides the
  // typo from the sender's own test sends.
  return channel === 'rcs' ? undefined : '';
}

function isCustomField(name: string, ctx: MergeContext): boolean {
  return ctx.customFieldTags.has(name) || (ctx.contact !== null && Object.hasOwn(ctx.contact.customFields, name));
}

/** A text cut at its placeholders: literal[0] name[0] literal[1] … name[n-1] literal[n]. */
interface Template {
  literals: string[];
  names: string[];
  /** Each placeholder as written, for the ones left as written. */
  wholes: string[];
}

/** A batch merges the same few texts for thousands of recipients: each is cut once. */
const templates = new Map<string, Template>();
const TEMPLATE_CACHE_SIZE = 500;

function templateOf(text: string): Template {
  let t = templates.get(text);
  if (t) return t;
  t = { literals: [], names: [], wholes: [] };
  const re = placeholderPattern();
  let from = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    t.literals.push(text.slice(from, m.index));
    t.names.push(m[1] as string);
    t.wholes.push(m[0]);
    from = m.index + m[0].length;
  }
  t.literals.push(text.slice(from));
  if (templates.size >= TEMPLATE_CACHE_SIZE) templates.clear();
  templates.set(text, t);
  return t;
}

/** Replaces every `{{name}}` in text following §2.13 for the given channel. */
export function mergeText(text: string, ctx: MergeContext, channel: MergeChannel): string {
  if (text.indexOf('{{') === -1) return text;
  const t = templateOf(text);
  let out = t.literals[0]!;
  for (let i = 0; i < t.names.length; i++) out += (resolve(t.names[i]!, ctx, channel) ?? t.wholes[i]!) + t.literals[i + 1]!;
  return out;
}

/**
 * Merge for a URL field (button/chip openUrl and webview URLs). A placeholder at the very start
 * supplies scheme and host (`{{company_website}}/shop`, `{{unsubscribe_link}}`) and goes in as is;
 * anywhere else it is data inside the URL and is percent-encoded so a value like "Anna Maria"
 * cannot break the link.
 */
export function mergeUrl(url: string, ctx: MergeContext): string {
  if (url.indexOf('{{') === -1) return url;
  return url.replace(placeholderPattern(), (whole: string, name: string, offset: number) => {
    const value = resolve(name, ctx, 'rcs');
    if (value === undefined) return whole;
    return offset === 0 || name === UNSUBSCRIBE_MERGE_FIELD ? value : encodeURIComponent(value);
  });
}

/**
 * True when the text uses a field that needs a contact (contact, custom or unsubscribe).
 * Without the account's tag list every non-built-in name is assumed to be a custom field, which
 * errs on the side of creating the contact.
 */
export function needsContact(text: string, customFieldTags?: ReadonlySet<string>): boolean {
  for (const name of findPlaceholders(text)) {
    if (isContactMergeField(name) || name === UNSUBSCRIBE_MERGE_FIELD) return true;
    if (BUILTIN_MERGE_FIELD_SET.has(name)) continue;
    if (!customFieldTags || customFieldTags.has(name)) return true;
  }
  return false;
}
