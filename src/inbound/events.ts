import type { Tx } from '../platform/db/database.js';
import type { InteractionsTable } from './tables.js';
import type { MessagesTable } from '../messaging/tables.js';
import type { OptInEvent, OptOutEvent } from '../suppression/opt-outs.js';
import type { ConsentReviewEvent } from '../suppression/schemas.js';

/** The person behind an interaction, for payloads such as §6 button_interaction's `contact`. */
export interface EngagementContact {
  id: string | null;
  /** E.164 with +. */
  phone: string;
  /** "First Last", or null when the number is no contact or has no name. */
  name: string | null;
}

/**
 * What the engagement area reports to others (the webhooks issue adds listeners): called inside
 * the transaction that recorded the fact, so an outbox row commits together with it or not at all.
 * Listeners must use `tx` for every query (SQLite has one connection).
 */
export interface EngagementEvents {
  /** An incoming RCS or SMS message was recorded (direction INBOUND, status RECEIVED). */
  inboundReceived(tx: Tx, message: MessagesTable, contact: EngagementContact): Promise<void>;
  /** A chip/button tap (button_click) or a reply (reply_received) was recorded. */
  interactionRecorded(tx: Tx, interaction: InteractionsTable, contact: EngagementContact): Promise<void>;
  /** A number opted out of the account. Not raised again for a number already out. */
  optedOut(tx: Tx, event: OptOutEvent): Promise<void>;
  /** A number that had opted out wrote START (or UNSTOP) and may be messaged again. */
  optedIn(tx: Tx, event: OptInEvent): Promise<void>;
  /** A consent review opened (marketing paused), was confirmed (an opt-out) or released. */
  reviewChanged(tx: Tx, event: ConsentReviewEvent): Promise<void>;
}

export class EngagementEventHub implements EngagementEvents {
  private readonly listeners: Partial<EngagementEvents>[] = [];

  /** Listeners implement the events they care about. */
  add(listener: Partial<EngagementEvents>): void {
    this.listeners.push(listener);
  }

  async inboundReceived(tx: Tx, message: MessagesTable, contact: EngagementContact): Promise<void> {
    for (const l of this.listeners) await l.inboundReceived?.(tx, message, contact);
  }

  async interactionRecorded(tx: Tx, interaction: InteractionsTable, contact: EngagementContact): Promise<void> {
    for (const l of this.listeners) await l.interactionRecorded?.(tx, interaction, contact);
  }

  async optedOut(tx: Tx, event: OptOutEvent): Promise<void> {
    for (const l of this.listeners) await l.optedOut?.(tx, event);
  }

  async optedIn(tx: Tx, event: OptInEvent): Promise<void> {
    for (const l of this.listeners) await l.optedIn?.(tx, event);
  }

  async reviewChanged(tx: Tx, event: ConsentReviewEvent): Promise<void> {
    for (const l of this.listeners) await l.reviewChanged?.(tx, event);
  }
}
