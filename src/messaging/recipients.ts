import type { PriceList } from '../accounts/service.js';
import type { ContactDirectory, RecipientContact } from '../contacts/directory.js';
import type { DbOrTx } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { SendersTable } from '../platform/db/tables/foundation.js';
import { countryReach, normalizePhone } from '../phone/index.js';
import type { RejectedRecipient } from './schemas.js';

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
}

export interface ResolveOptions {
  channel: 'RCS' | 'SMS';
  hasFallback: boolean;
  sender: SendersTable;
  priceList: PriceList;
  skipContactCreation: boolean;
  skipDisabled: boolean;
  /** For a single send to a given contact id. */
  contact?: RecipientContact;
}

export interface Resolution {
  accepted: Recipient[];
  rejected: RejectedRecipient[];
  duplicates: number;
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
  const candidates: Omit<Recipient, 'contact'>[] = [];

  for (const input of inputs) {
    const n = normalizePhone(input);
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
      if (!reach.sms) {
        rejected.push({ phoneNumber: n.e164, code: 'SMS_COUNTRY_NOT_SUPPORTED', reason: `Neither RCS nor SMS to ${n.country} is in this account's price list` });
        continue;
      }
      if (!opts.hasFallback) {
        rejected.push({ phoneNumber: n.e164, code: 'COUNTRY_NOT_SUPPORTED', reason: `RCS to ${n.country} is not offered; add an smsFallback to reach it by SMS` });
        continue;
      }
      smsOnly = true;
    }
    if (testPhones && !testPhones.has(n.digits)) {
      rejected.push({ phoneNumber: n.e164, code: 'NOT_A_TEST_PHONE', reason: `Test sender "${opts.sender.name}" may only send to its test phones` });
      continue;
    }
    candidates.push({ phone: n.digits, e164: n.e164, country: n.country, testPhone: testPhones !== null, smsOnly });
  }

  const contacts = opts.contact
    ? new Map([[opts.contact.phone, opts.contact]])
    : await directory.findByPhones(tx, accountId, candidates.map((c) => c.phone));
  if (!opts.skipContactCreation) {
    const missing = candidates.filter((c) => !contacts.has(c.phone)).map((c) => ({ phone: c.phone, country: c.country }));
    if (missing.length > 0) for (const [phone, c] of await directory.createMany(tx, accountId, missing)) contacts.set(phone, c);
  }

  const accepted: Recipient[] = [];
  for (const c of candidates) {
    const contact = contacts.get(c.phone) ?? null;
    if (contact?.disabled && opts.skipDisabled) {
      rejected.push({ phoneNumber: c.e164, code: 'CONTACT_DISABLED', reason: 'The contact is disabled or opted out (send with skipDisabled:false to override where lawful)' });
      continue;
    }
    accepted.push({ ...c, contact });
  }
  return { accepted, rejected, duplicates };
}
