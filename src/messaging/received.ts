import type { DbOrTx } from '../platform/db/database.js';
import type { MessagesTable } from './tables.js';
import { newId } from '../platform/ids.js';
import { ONE_OFF_MESSAGE_DEFAULTS } from './message-row.js';
import { analyzeSms } from '../sms/index.js';

/** A message a person sent to one of the account's senders, as inbound/ hands it over. */
export interface ReceivedMessage {
  accountId: string;
  channel: 'RCS' | 'SMS';
  /** E.164 digits. */
  phone: string;
  country: MessagesTable['country'];
  contactId: MessagesTable['contact_id'];
  senderId: string;
  /** Already cut to the stored maximum. */
  text: string;
  /** The campaign of the message it answers, if any. */
  campaignName: string | null;
  carrierMessageId: string;
  at: number;
}

/**
 * Stores a received message in the message log. messaging/ owns the `messages` table (issue #32):
 * inbound/ decides what was received and what it means (duplicates, consent words), this writes
 * the row, so every rule about a message row's columns lives in one area.
 */
export async function recordReceivedMessage(tx: DbOrTx, m: ReceivedMessage): Promise<MessagesTable> {
  const sms = m.channel === 'SMS' ? analyzeSms(m.text) : null;
  const row: MessagesTable = {
    ...ONE_OFF_MESSAGE_DEFAULTS,
    id: newId('msg', m.at),
    account_id: m.accountId,
    type: m.channel,
    status: 'RECEIVED',
    direction: 'INBOUND',
    source: 'INBOUND',
    phone: m.phone,
    country: m.country,
    contact_id: m.contactId,
    sendername_id: m.senderId,
    message_type: m.channel === 'RCS' ? 'text' : null,
    content: m.channel === 'RCS' ? JSON.stringify({ text: m.text }) : null,
    text: m.text,
    campaign_name: m.campaignName,
    credits_cost_milli: null,
    sms_segments: sms?.segments ?? null,
    sms_encoding: sms?.encoding ?? null,
    method: m.channel,
    carrier_message_id: m.carrierMessageId,
    created_at: m.at,
    pending: 0,
    due_at: m.at,
  };
  await tx.insertInto('messages').values(row).execute();
  return row;
}
