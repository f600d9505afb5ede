/**
 * Delivery receipts (SMPP 3.4 Appendix B): the SMSC's id of the part and its final state, from
 * the receipted_message_id / message_state TLVs or the `id:… sub:… dlvrd:… submit date:… done
 * date:… stat:DELIVRD err:… text:…` text. Pure.
 */

export type ReceiptStat = 'DELIVRD' | 'EXPIRED' | 'DELETED' | 'UNDELIV' | 'ACCEPTD' | 'UNKNOWN' | 'REJECTD' | 'ENROUTE' | 'SCHEDULED';

export interface Receipt {
  id: string;
  /** A ReceiptStat, or whatever other word the SMSC sent. */
  stat: string;
  err: string | null;
}

/** message_state TLV values (SMPP 3.4 §5.2.28) → the stat words of the text form. */
const MESSAGE_STATES: Record<number, ReceiptStat> = {
  0: 'SCHEDULED',
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

/** Final states that mean the part did not arrive. */
export const FAILED_STATS: ReadonlySet<string> = new Set(['EXPIRED', 'DELETED', 'UNDELIV', 'REJECTD', 'UNKNOWN']);
export const DELIVERED_STAT = 'DELIVRD';

export function parseReceipt(input: { text: string; receiptedMessageId?: string | undefined; messageState?: number | undefined }): Receipt | null {
  const fields = new Map<string, string>();
  // Keys may contain a space ("submit date"); values never do. text: is last and may contain anything.
  const body = input.text.split(/\btext:/i)[0] ?? '';
  for (const m of body.matchAll(/([a-z][a-z ]*?):(\S*)/gi)) fields.set(m[1]!.trim().toLowerCase(), m[2]!);
  const id = input.receiptedMessageId?.trim() || fields.get('id');
  const stat = (input.messageState !== undefined ? MESSAGE_STATES[input.messageState] : undefined) ?? fields.get('stat')?.toUpperCase();
  if (!id || !stat) return null;
  const err = fields.get('err');
  return { id, stat, err: err && err !== '000' ? err : null };
}

/**
 * Ids a receipt's id may stand for: SMSCs differ in printing the submit_sm_resp id as hex in one
 * place and decimal in the other, so both readings are tried after the exact one.
 */
export function receiptIdVariants(id: string): string[] {
  const out = new Set<string>([id]);
  try {
    if (/^\d+$/.test(id)) {
      const hex = BigInt(id).toString(16);
      out.add(hex);
      out.add(hex.toUpperCase());
    }
    if (/^[0-9a-f]+$/i.test(id)) out.add(BigInt(`0x${id}`).toString(10));
  } catch {
    /* not a number after all */
  }
  // Leading zeros are sometimes dropped or added.
  const stripped = id.replace(/^0+(?=.)/, '');
  out.add(stripped);
  return [...out];
}
