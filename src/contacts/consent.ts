import { z } from 'zod';
import type { Db } from '../platform/db/database.js';
import { notFound } from '../platform/errors.js';
import { cursorListSchema, type CursorPage } from '../platform/pagination.js';
import type { ConsentRecord } from '../suppression/consent.js';
import { ConsentEventSchema, type ConsentEvent } from '../suppression/schemas.js';
import { contactRef } from './service.js';

/** Where a number stands now: beside its history on REST, MCP and the console. */
export const ConsentStandingSchema = z.object({
  phone: z.string().describe('E.164.'),
  contactId: z.string().nullable().describe('The number\'s contact now; null when it has none (deleted, or never created).'),
  contactDisabled: z.boolean().nullable().describe('null without a contact.'),
  optedOut: z.boolean().describe('On the suppression list: every send to it is refused CONTACT_OPTED_OUT.'),
  optedOutAt: z.string().nullable(),
  underReview: z.boolean().describe('A reply that may be a request to stop waits for a person: marketing is refused CONSENT_UNDER_REVIEW meanwhile.'),
  reviewId: z.string().nullable().describe('The open consent review (crv_…): GET /api/v1/consent/reviews/{id}.'),
});
export type ConsentStanding = z.infer<typeof ConsentStandingSchema>;

export const ContactConsentPageSchema = cursorListSchema(ConsentEventSchema).extend({ status: ConsentStandingSchema });
export type ContactConsentPage = CursorPage<ConsentEvent> & { status: ConsentStanding };

/** The few latest events in get_contact: kept small (tools/list size). */
export const ConsentBriefSchema = z.object({
  optedOut: z.boolean(),
  optedOutAt: z.string().nullable(),
  underReview: z.boolean().describe('Marketing paused: a reply that may be a request to stop waits for a person of the account.'),
  reviewId: z.string().nullable(),
  latest: z
    .array(z.object({ kind: ConsentEventSchema.shape.kind, source: ConsentEventSchema.shape.source, occurredAt: z.string(), detail: z.string().nullable() }))
    .describe('Newest first; the whole record: GET /api/v1/contacts/{id}/consent.'),
});
export type ConsentBrief = z.infer<typeof ConsentBriefSchema>;

/** Events in get_contact. */
export const CONSENT_BRIEF_EVENTS = 3;

/** One line of evidence: what was received, which form, what was declared and by whom. */
export function consentDetail(e: ConsentEvent): string | null {
  const parts: string[] = [];
  if (e.receivedText !== null) parts.push(`received ${JSON.stringify(e.receivedText.length > 80 ? `${e.receivedText.slice(0, 80)}…` : e.receivedText)}`);
  if (e.formName !== null) parts.push(`form ${JSON.stringify(e.formName)}`);
  if (e.clientAddress !== null) parts.push(`from ${e.clientAddress}`);
  if (e.declaredSource !== null) parts.push(`declared ${JSON.stringify(e.declaredSource)}`);
  if (e.actor !== null) parts.push(`by ${e.actor}`);
  if (e.note !== null) parts.push(e.note);
  return parts.length ? parts.join('; ') : null;
}

/** What reading a contact's consent uses of the suppression area. */
export type ConsentReader = Pick<ConsentRecord, 'history' | 'status' | 'known' | 'lastPhoneOfContact'>;

export interface ContactConsentDeps {
  db: Db;
  consent: ConsentReader;
}

/**
 * The consent record of a contact or number (GET /api/v1/contacts/{id}/consent, get_contact, the console). `{id}`
 * as in GET /contacts/{id}: a contact id — its current number's record — or a phone number. Both keep answering after
 * the contact was deleted (the record and the opt-out are per number): a deleted contact's id answers the record of
 * the number its latest event names (issue #42). 400 INVALID_ID for neither; 404 for a contact id the account has no
 * contact and no event of, and for a number the account has no contact, no event and no opt-out of.
 */
export class ContactConsent {
  constructor(private readonly d: ContactConsentDeps) {}

  async standing(accountId: string, idOrPhone: string): Promise<ConsentStanding> {
    let phone: string;
    let contact: { id: string; disabled: number } | undefined;
    const ref = contactRef(idOrPhone);
    if (ref.id !== null) {
      const row = await this.d.db.selectFrom('contacts').select(['id', 'disabled', 'phone']).where('id', '=', ref.id).where('account_id', '=', accountId).executeTakeFirst();
      if (row) ({ phone, ...contact } = row);
      else {
        // Deleted (or never this account's): the record, scoped to the account, still names the contact.
        const last = await this.d.consent.lastPhoneOfContact(accountId, ref.id);
        if (last === null) throw notFound('Contact');
        phone = last;
        contact = await this.d.db.selectFrom('contacts').select(['id', 'disabled']).where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
      }
    } else {
      if (ref.digits === null) throw notFound('Contact');
      phone = ref.digits;
      contact = await this.d.db.selectFrom('contacts').select(['id', 'disabled']).where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
      if (!contact && !(await this.d.consent.known(accountId, phone))) throw notFound('Contact');
    }
    const s = await this.d.consent.status(accountId, phone);
    return { phone: `+${phone}`, contactId: contact?.id ?? null, contactDisabled: contact ? contact.disabled === 1 : null, optedOut: s.optedOut, optedOutAt: s.optedOutAt, underReview: s.underReview, reviewId: s.reviewId };
  }

  /** Standing and the latest few events of a number (get_contact). */
  async brief(accountId: string, phoneDigits: string): Promise<ConsentBrief> {
    const [s, events] = await Promise.all([this.d.consent.status(accountId, phoneDigits), this.d.consent.history(accountId, phoneDigits, { limit: CONSENT_BRIEF_EVENTS })]);
    return { ...s, latest: events.data.map((e) => ({ kind: e.kind, source: e.source, occurredAt: e.occurredAt, detail: consentDetail(e) })) };
  }

  async history(accountId: string, idOrPhone: string, page: { limit: number; cursor?: string | undefined }): Promise<ContactConsentPage> {
    const status = await this.standing(accountId, idOrPhone);
    const events = await this.d.consent.history(accountId, status.phone.slice(1), page);
    return { ...events, status };
  }
}
