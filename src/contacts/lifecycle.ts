import type { DbOrTx } from '../platform/db/database.js';

/**
 * What other areas must do when contacts go away or are disabled (spec §4.4: deleting or
 * disabling a contact cancels its scheduled messages). ContactsService calls it inside the same
 * transaction that deletes or disables the contacts, so both commit together or not at all.
 *
 * The messaging area's implementation is passed in ContactsService's deps by src/context.ts.
 */
export interface ContactLifecycle {
  /**
   * Cancels every scheduled, not yet sent message of the account addressed to these contacts and
   * returns how many were cancelled. Must only touch rows of `accountId`, and must use `tx`.
   */
  cancelScheduledFor(accountId: string, contactIds: readonly string[], tx: DbOrTx): Promise<number>;
}
