import { sql } from 'kysely';
import { toIso } from '../platform/clock.js';
import type { DbOrTx, Tx } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { jsonList } from '../platform/db/sql.js';
import type { ConsentReview } from './schemas.js';
import type { ConsentReviewsTable } from './tables.js';

/*
 * The consent_reviews rows as the suppression area reads and closes them (issue #42). Shared by reviews.ts (opening,
 * listing, a person's decision) and opt-outs.ts (the recipient's own STOP or START closes an open review), which both
 * belong to this area, the table's one owner.
 */

export function presentReview(r: ConsentReviewsTable): ConsentReview {
  return {
    id: r.id,
    phone: `+${r.phone}`,
    contactId: r.contact_id,
    status: r.status,
    reason: r.reason,
    keyword: r.keyword,
    receivedText: r.received_text,
    senderId: r.sender_id,
    messageId: r.message_id,
    replies: Number(r.replies),
    lastText: Number(r.replies) > 1 ? r.last_text : null,
    cancelledMessages: Number(r.cancelled_messages),
    openedAt: toIso(Number(r.opened_at))!,
    decidedAt: toIso(r.decided_at === null ? null : Number(r.decided_at)),
    decidedBy: r.decided_by,
    decidedVia: r.decided_via,
    note: r.note,
  };
}

/** Takes the number's review lock for the rest of `tx` (PostgreSQL; SQLite runs one transaction at a time). */
export async function lockNumberReview(tx: Tx, accountId: string, phone: string): Promise<void> {
  await lockForTransaction(tx, 'consentReview', [`${accountId}|${phone}`]);
}

/** The number's open review, if any. Call after lockNumberReview when the answer decides a write. */
export async function openReviewOf(tx: DbOrTx, accountId: string, phone: string): Promise<ConsentReviewsTable | undefined> {
  return tx.selectFrom('consent_reviews').selectAll().where('account_id', '=', accountId).where('phone', '=', phone).where('status', '=', 'open').executeTakeFirst();
}

/**
 * Which of these numbers (digits) have an open review: marketing to them is paused (every send that is not
 * transactional refuses them, src/messaging/recipients.ts). One statement for a whole batch.
 */
export async function pausedPhones(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (phones.length === 0) return out;
  const rows = await tx
    .selectFrom('consent_reviews')
    .select('phone')
    .where('account_id', '=', accountId)
    .where('status', '=', 'open')
    .where('phone', 'in', jsonList(tx, phones))
    .execute();
  for (const r of rows) out.add(r.phone);
  return out;
}

export interface ReviewDecider {
  /** `user "a@b.c"`, `key "…"`, or `recipient`. */
  label: string;
  id: string | null;
  /** session, api_key, oauth, or keyword (the recipient's own STOP/START). */
  via: string;
}

/** Closes the number's open review as `status` (in `tx`, after lockNumberReview); the closed row, or null when none was open. */
export async function closeOpenReview(tx: Tx, accountId: string, phone: string, status: 'confirmed' | 'released', by: ReviewDecider, at: number, note: string | null = null): Promise<ConsentReviewsTable | null> {
  const open = await openReviewOf(tx, accountId, phone);
  if (!open) return null;
  const closed: Partial<ConsentReviewsTable> = { status, decided_at: at, decided_by: by.label.slice(0, 300), decided_by_id: by.id, decided_via: by.via, note: note === null ? null : note.slice(0, 500) };
  await tx.updateTable('consent_reviews').set(closed).where('id', '=', open.id).where('status', '=', 'open').execute();
  return { ...open, ...closed };
}

/** Pending outbound messages to the number that a pause cancels: not transactional, not automatic answers. */
export async function pendingMarketing(tx: Tx, accountId: string, phone: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('messages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('direction', '=', 'OUTBOUND')
    // Unary plus: as in opt-outs.ts, the number's own index, not messages_dispatch.
    .where(sql<number>`+${sql.ref('pending')}`, '=', 1)
    .where('transactional', '=', 0)
    .where('source', '!=', 'SYSTEM')
    .execute();
  return rows.map((r) => r.id);
}
