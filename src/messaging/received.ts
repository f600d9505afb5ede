import type { DbOrTx } from '../platform/db/database.js';
import type { MessagesTable } from '../platform/db/tables/messaging.js';
import { newId } from '../platform/ids.js';
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
    id: newId('msg', m.at),
    account_id: m.accountId,
    job_id: null,
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
    sms_fallback: null,
    fallback_text: null,
    campaign_name: m.campaignName,
    credits_cost_milli: null,
    sms_segments: sms?.segments ?? null,
    sms_encoding: sms?.encoding ?? null,
    method: m.channel,
    fallback_used: 0,
    fallback_reason: null,
    error: null,
    carrier_message_id: m.carrierMessageId,
    created_at: m.at,
    scheduled_at: null,
    sent_at: null,
    delivered_at: null,
    read_at: null,
    failed_at: null,
    pending: 0,
    due_at: m.at,
    lease_until: null,
    attempts: 0,
    time_zone: null,
    preview_id: null,
    quiet_place: null,
  };
  await tx.insertInto('messages').values(row).execute();
  return row;
}
