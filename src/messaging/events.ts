import type { Tx } from '../platform/db/database.js';
import type { MessagesTable, MessageStatus } from '../platform/db/tables/messaging.js';

/**
 * Things other areas want to know about messages, called inside the transaction that made the
 * change — so a webhook outbox row commits with the status it reports (DESIGN §5.7, issue 9).
 */
export interface MessageEvents {
  statusChanged(tx: Tx, message: MessagesTable, previous: MessageStatus): Promise<void>;
}

export class MessageEventHub implements MessageEvents {
  private readonly listeners: MessageEvents[] = [];

  add(listener: MessageEvents): void {
    this.listeners.push(listener);
  }

  async statusChanged(tx: Tx, message: MessagesTable, previous: MessageStatus): Promise<void> {
    for (const l of this.listeners) await l.statusChanged(tx, message, previous);
  }
}
