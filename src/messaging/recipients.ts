import type { PriceList } from '../accounts/service.js';
import { isTestTraffic } from '../billing/pricing.js';
import type { ContactDirectory, RecipientContact } from '../contacts/directory.js';
import type { DbOrTx } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { Database } from '../platform/db/schema.js';
import { candidateDigits, countryReach, normalizePhone } from '../phone/index.js';
import { optedOutPhones } from '../suppression/opt-outs.js';
import { pausedPhones } from '../suppression/review-rows.js';
import type { RejectedRecipient } from './schemas.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

export interface Recipient {
  /** Digits with country code (the stored form). */
  phone: string;
  e164: string;
  country: string;
  contact: RecipientContact | null;
  /** A test sender's test phone: free (spec §4.1). */
  testPhone: boolean;
  /** RCS is not priced for the country but SMS is: goes straight to the SMS fallback. */
  smsOnly: boolean;
  /** The contact was created by this send (unknown number, §2.13 rule 3). */
  contactCreated?: boolean;
}

export interface ResolveOptions {
  channel: 'RCS' | 'SMS';
  /** The send is marked transactional: numbers under a consent review (marketing paused) still get it. */
  transactional: boolean;
  hasFallback: boolean;
  sender: SendersTable;
  priceList: PriceList;
  skipContactCreation: boolean;
  skipDisabled: boolean;
  /** For a single send to a given contact id. */
  contact?: RecipientContact;
  /** The per-recipient throttle (src/conversations/throttle.ts); omitted: no throttle. */
  throttle?: RecipientThrottle;
}

/** Numbers that may not get another message right now, with the reason and when to try again. */
export interface RecipientThrottle {
  limited(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<ReadonlyMap<string, { reason: string; retryAfterSeconds: number }>>;
}

export interface Resolution {
  accepted: Recipient[];
  rejected: RejectedRecipient[];
  duplicates: number;
  /** Accepted numbers whose marketing is paused for a consent review: reached only because the send is transactional. */
  underReview: number;
}

/**
 * Step 2 of the message path (DESIGN §5): normalise, de-duplicate, check country and sender,
 * find or create contacts, and drop disabled ones. Every refusal is reported with a reason.
 */
export async function resolveRecipients(tx: DbOrTx, directory: ContactDirectory, accountId: string, inputs: readonly string[], opts: ResolveOptions): Promise<Resolution> {
  const rejected: RejectedRecipient[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const testPhones = opts.sender.is_test === 1 ? new Set(parseJson<string[]>(opts.sender.test_phones, [])) : null;
  const testSender = { isTest: testPhones !== null, testPhones: testPhones ?? new Set<string>() };
  const candidates: Omit<Recipient, 'contact'>[] = [];

  // Numbers written exactly as a saved contact's phone were validated when that contact was saved:
  // they skip libphonenumber, which costs 10–16 µs a number and was the largest single cost of
  // accepting a 10,000-recipient batch (bench/batch.ts). Lists are mostly the account's contacts.
  const contacts = new Map<string, RecipientContact>();
  const looked = new Set<string>();
  const digits: (string | null)[] = inputs.map((input) => (typeof input === 'string' && !opts.contact ? candidateDigits(input) : null));
  if (opts.contact) contacts.set(opts.contact.phone, opts.contact);
  else {
    for (const d of digits) if (d !== null) looked.add(d);
    for (const [phone, c] of await directory.findByPhones(tx, accountId, [...looked])) contacts.set(phone, c);
  }

  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    const d = digits[i]!;
    const known = d !== null ? contacts.get(d) : undefined;
    const n = known ? ({ ok: true, e164: `+${known.phone}`, digits: known.phone, country: known.country } as const) : normalizePhone(input);
    if (!n.ok) {
      rejected.push({ phoneNumber: String(input), code: 'INVALID_PHONE', reason: n.message });
      continue;
    }
    if (seen.has(n.digits)) {
      duplicates++;
      continue;
    }
    seen.add(n.digits);
    const reach = countryReach(n.country, opts.priceList);
    let smsOnly = false;
    if (opts.channel === 'SMS') {
      if (!reach.sms) {
        rejected.push({ phoneNumber: n.e164, code: 'SMS_COUNTRY_NOT_SUPPORTED', reason: `SMS to ${n.country} is not in this account's price list` });
        continue;
      }
    } else if (!reach.rcs) {
      // Without a fallback only RCS was asked for: COUNTRY_NOT_SUPPORTED. With one, the number is
      // lost only when SMS cannot reach it either: SMS_COUNTRY_NOT_SUPPORTED (spec §4.7 rule 6).
      if (!opts.hasFallback) {
        const hint = reach.sms ? '; add an smsFallback to reach it by SMS' : '';
        rejected.push({ phoneNumber: n.e164, code: 'COUNTRY_NOT_SUPPORTED', reason: `RCS to ${n.country} is not in this account's price list${hint}` });
        continue;
      }
      if (!reach.sms) {
        rejected.push({ phoneNumber: n.e164, code: 'SMS_COUNTRY_NOT_SUPPORTED', reason: `Neither RCS nor SMS to ${n.country} is in this account's price list` });
        continue;
      }
      smsOnly = true;
    }
    if (testPhones && !testPhones.has(n.digits)) {
      rejected.push({ phoneNumber: n.e164, code: 'NOT_A_TEST_PHONE', reason: `Test sender "${opts.sender.name}" may only send to its test phones` });
      continue;
    }
    candidates.push({ phone: n.digits, e164: n.e164, country: n.country, testPhone: isTestTraffic(testSender, n.digits), smsOnly });
  }

  // Opted-out numbers (STOP, the sender's keyword, the unsubscribe link) are refused always —
  // skipDisabled cannot override a person's opt-out — and before any contact is created for them.
  const optedOut = await optedOutPhones(tx, accountId, candidates.map((c) => c.phone));
  // A reply that may be a request to stop paused marketing to the number until a person decides (issue #42): only
  // transactional sends go to it meanwhile.
  const reviewed = await pausedPhones(tx, accountId, candidates.filter((c) => !optedOut.has(c.phone)).map((c) => c.phone));
  // A transactional send still reaches them; the preview says how many, so the person approving sees it.
  const paused = opts.transactional ? new Set<string>() : reviewed;
  const underReview = opts.transactional ? reviewed.size : 0;
  const limited = opts.throttle ? await opts.throttle.limited(tx, accountId, candidates.filter((c) => !optedOut.has(c.phone) && !paused.has(c.phone)).map((c) => c.phone)) : new Map<string, { reason: string; retryAfterSeconds: number }>();
  if (optedOut.size > 0 || paused.size > 0 || limited.size > 0) {
    const kept: typeof candidates = [];
    for (const c of candidates) {
      const limit = limited.get(c.phone);
      if (optedOut.has(c.phone)) rejected.push({ phoneNumber: c.e164, code: 'CONTACT_OPTED_OUT', reason: 'The recipient opted out (STOP keyword or unsubscribe link); an opt-out cannot be overridden' });
      else if (paused.has(c.phone)) rejected.push({ phoneNumber: c.e164, code: 'CONSENT_UNDER_REVIEW', reason: 'The recipient replied something that may be a request to stop; marketing to the number is paused until a person of the account reviews it (console: Consent). Only transactional sends go meanwhile' });
      else if (limit) rejected.push({ phoneNumber: c.e164, code: 'RATE_LIMITED', reason: limit.reason, retryAfterSeconds: limit.retryAfterSeconds });
      else kept.push(c);
    }
    candidates.length = 0;
    candidates.push(...kept);
  }

  if (!opts.contact) {
    // Numbers that were written differently from their stored form (spaces, 0049…) are looked up now.
    const unlooked = candidates.filter((c) => !contacts.has(c.phone) && !looked.has(c.phone)).map((c) => c.phone);
    if (unlooked.length > 0) for (const [phone, c] of await directory.findByPhones(tx, accountId, unlooked)) contacts.set(phone, c);
  }
  const created = new Set<string>();
  if (!opts.skipContactCreation) {
    const missing = candidates.filter((c) => !contacts.has(c.phone)).map((c) => ({ phone: c.phone, country: c.country }));
    if (missing.length > 0) {
      for (const [phone, c] of await directory.createMany(tx, accountId, missing)) {
        contacts.set(phone, c);
        created.add(phone);
      }
    }
  }

  const accepted: Recipient[] = [];
  for (const c of candidates) {
    const contact = contacts.get(c.phone) ?? null;
    if (contact?.disabled && opts.skipDisabled) {
      rejected.push({ phoneNumber: c.e164, code: 'CONTACT_DISABLED', reason: 'The contact is disabled or opted out (send with skipDisabled:false to override where lawful)' });
      continue;
    }
    accepted.push({ phone: c.phone, e164: c.e164, country: c.country, contact, testPhone: c.testPhone, smsOnly: c.smsOnly, contactCreated: created.has(c.phone) });
  }
  return { accepted, rejected, duplicates, underReview };
}
