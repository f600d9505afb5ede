import { sql } from 'kysely';
import { toIso } from '../platform/clock.js';
import type { Db, DbOrTx, Tx } from '../platform/db/database.js';
import type { ConsentEventsTable } from './tables.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import { optedOutPhones } from './opt-outs.js';
import { openReviewOf } from './review-rows.js';
import type { ConsentEvent, ConsentEventInput, ConsentRecorder, ConsentStatus } from './schemas.js';
import { csvCell } from '../platform/csv.js';

/*
 * The consent record (issue #28): per account and number, every change of consent, append-only. This module is the
 * only code that touches consent_events, and it only inserts and reads: no method edits or removes a row (rows go
 * only with their account). Callers record a change inside the transaction that makes it — OptOutService (keyword,
 * chip, link, START), forms (a confirmed opt-in), contacts (API/console declared consent, the business's disable and
 * enable) — through the narrow ConsentRecorder port.
 */

/** Longest received text kept on a row (an incoming message is at most 8,192 characters; evidence needs far less). */
export const CONSENT_TEXT_MAX = 1000;

const cut = (s: string | null | undefined, max = CONSENT_TEXT_MAX): string | null => (s === undefined || s === null ? null : s.length > max ? s.slice(0, max) : s);

function present(r: ConsentEventsTable): ConsentEvent {
  return {
    id: r.id,
    phone: `+${r.phone}`,
    contactId: r.contact_id,
    kind: r.kind,
    source: r.source,
    occurredAt: toIso(r.occurred_at)!,
    receivedText: r.received_text,
    keyword: r.keyword,
    formId: r.form_id,
    formName: r.form_name,
    submissionId: r.submission_id,
    clientAddress: r.client_address,
    declaredSource: r.declared_source,
    actor: r.actor,
    actorId: r.actor_id,
    senderId: r.sender_id,
    messageId: r.message_id,
    note: r.note,
  };
}

/** The CSV export's columns, in order (docs/storage.md "consent_events"). */
export const CONSENT_CSV_COLUMNS = [
  'id',
  'occurred_at',
  'phone',
  'contact_id',
  'kind',
  'source',
  'received_text',
  'keyword',
  'form_id',
  'form_name',
  'submission_id',
  'client_address',
  'declared_source',
  'actor',
  'actor_id',
  'sender_id',
  'message_id',
  'note',
] as const;

/** The cell writer every export shares (src/platform/csv.ts); re-exported for this area's tests. */
export { csvCell };

function csvLine(r: ConsentEventsTable): string {
  const cells: Array<string | number | null> = [
    r.id,
    toIso(r.occurred_at),
    // Digits with country code, as stored: a + would have to be escaped as a formula sign.
    r.phone,
    r.contact_id,
    r.kind,
    r.source,
    r.received_text,
    r.keyword,
    r.form_id,
    r.form_name,
    r.submission_id,
    r.client_address,
    r.declared_source,
    r.actor,
    r.actor_id,
    r.sender_id,
    r.message_id,
    r.note,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** Rows read per statement of the export: memory stays bounded whatever the record's size. */
export const CONSENT_EXPORT_CHUNK = 1000;

function row(e: ConsentEventInput): ConsentEventsTable {
  return {
    id: newId('cev', e.at),
    account_id: e.accountId,
    phone: e.phone,
    contact_id: e.contactId ?? null,
    kind: e.kind,
    source: e.source,
    received_text: cut(e.receivedText),
    keyword: cut(e.keyword, 100),
    form_id: e.formId ?? null,
    form_name: cut(e.formName, 200),
    submission_id: e.submissionId ?? null,
    client_address: cut(e.clientAddress, 100),
    declared_source: cut(e.declaredSource, 500),
    actor: cut(e.actor, 300),
    actor_id: cut(e.actorId, 300),
    sender_id: e.senderId ?? null,
    message_id: e.messageId ?? null,
    note: cut(e.note, 500),
    occurred_at: e.at,
  };
}

/** Rows per insert statement: 19 parameters each, well under SQLite's and PostgreSQL's limits. */
const RECORD_CHUNK = 200;

export interface ConsentRecordDeps {
  db: Db;
}

export class ConsentRecord implements ConsentRecorder {
  constructor(private readonly d: ConsentRecordDeps) {}

  /** The only writer of consent_events: it inserts. */
  async record(tx: Tx, e: ConsentEventInput): Promise<void> {
    await this.recordMany(tx, [e]);
  }

  /** Several events in few statements (bulk imports, bulk enable/disable). */
  async recordMany(tx: Tx, events: readonly ConsentEventInput[]): Promise<void> {
    for (let i = 0; i < events.length; i += RECORD_CHUNK) {
      await tx.insertInto('consent_events').values(events.slice(i, i + RECORD_CHUNK).map(row)).execute();
    }
  }

  async optedOut(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<Set<string>> {
    return optedOutPhones(tx, accountId, phones);
  }

  /** Whether the number is on the suppression list and since when. */
  async status(accountId: string, phone: string, q: DbOrTx = this.d.db): Promise<ConsentStatus> {
    const r = await q.selectFrom('opt_outs').select('created_at').where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    const review = await openReviewOf(q, accountId, phone);
    return { optedOut: r !== undefined, optedOutAt: toIso(r?.created_at ?? null), underReview: review !== undefined, reviewId: review?.id ?? null };
  }

  /** Whether the account has anything on record for the number (an event or an opt-out). */
  async known(accountId: string, phone: string): Promise<boolean> {
    const ev = await this.d.db.selectFrom('consent_events').select('id').where('account_id', '=', accountId).where('phone', '=', phone).limit(1).executeTakeFirst();
    if (ev) return true;
    return (await this.status(accountId, phone)).optedOut;
  }

  /**
   * The number a contact had at its latest event on the record (digits), or null when the record never names the
   * contact. For a deleted contact's id, whose contacts row is gone: the record keeps contact_id (index 036).
   */
  async lastPhoneOfContact(accountId: string, contactId: string): Promise<string | null> {
    const r = await this.d.db
      .selectFrom('consent_events')
      .select('phone')
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r?.phone ?? null;
  }

  /** The number's history, newest first, cursor-paged. */
  async history(accountId: string, phone: string, page: { limit: number; cursor?: string | undefined }): Promise<CursorPage<ConsentEvent>> {
    const q = this.d.db.selectFrom('consent_events').selectAll().where('account_id', '=', accountId).where('phone', '=', phone);
    const { rows, pagination } = await keysetPage(q, {
      scope: { kind: 'consent', sort: 'occurredAt', order: 'desc' },
      sortExpr: sql.ref('occurred_at'),
      idExpr: sql.ref('id'),
      limit: page.limit,
      cursor: page.cursor,
    });
    return { data: rows.map(present), pagination };
  }

  /**
   * The account's whole record as CSV, oldest first, handed to `write` a chunk of CONSENT_EXPORT_CHUNK rows at a
   * time (header first). `write` resolves when the consumer can take more; returning false stops the export (the
   * client went away).
   */
  async exportCsv(accountId: string, write: (chunk: string) => Promise<boolean>): Promise<number> {
    if (!(await write(`${CONSENT_CSV_COLUMNS.join(',')}\r\n`))) return 0;
    let after: { at: number; id: string } | null = null;
    let count = 0;
    for (;;) {
      let q = this.d.db.selectFrom('consent_events').selectAll().where('account_id', '=', accountId);
      if (after) {
        const { at, id } = after;
        q = q.where((eb) => eb.or([eb('occurred_at', '>', at), eb.and([eb('occurred_at', '=', at), eb('id', '>', id)])]));
      }
      const rows = await q.orderBy('occurred_at', 'asc').orderBy('id', 'asc').limit(CONSENT_EXPORT_CHUNK).execute();
      if (rows.length === 0) return count;
      count += rows.length;
      if (!(await write(rows.map(csvLine).join('')))) return count;
      if (rows.length < CONSENT_EXPORT_CHUNK) return count;
      const last = rows[rows.length - 1]!;
      after = { at: Number(last.occurred_at), id: last.id };
    }
  }
}
