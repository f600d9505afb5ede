import type { Tx } from '../platform/db/database.js';
import type { MessagesTable, MessageStatus } from './tables.js';

/**
 * Things other areas want to know about messages, called inside the transaction that made the
 * change — so a webhook outbox row commits with the status it reports (DESIGN §5.7, issue 9).
 */
export interface MessageEvents {
  statusChanged(tx: Tx, message: MessagesTable, previous: MessageStatus): Promise<void>;
  /**
   * Whether statusChanged does anything for this account. Receipts for 10,000 messages need not
   * read 10,000 whole rows back when nobody listens. Absent: always.
   */
  wantsStatusChanges?(tx: Tx, accountId: string): Promise<boolean>;
}

export class MessageEventHub implements MessageEvents {
  private readonly listeners: MessageEvents[] = [];

  add(listener: MessageEvents): void {
    this.listeners.push(listener);
  }

  async statusChanged(tx: Tx, message: MessagesTable, previous: MessageStatus): Promise<void> {
    for (const l of this.listeners) await l.statusChanged(tx, message, previous);
  }

  async wantsStatusChanges(tx: Tx, accountId: string): Promise<boolean> {
    for (const l of this.listeners) if (!l.wantsStatusChanges || (await l.wantsStatusChanges(tx, accountId))) return true;
    return false;
  }
}

/**
 * Whether an account has a status listener, asked once per account within one transaction:
 * a round of receipts or records touches thousands of messages of a few accounts.
 */
export function statusListenerCheck(events: MessageEvents, tx: Tx): (accountId: string) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return async (accountId) => {
    let wants = known.get(accountId);
    if (wants === undefined) known.set(accountId, (wants = events.wantsStatusChanges ? await events.wantsStatusChanges(tx, accountId) : true));
    return wants;
  };
}
