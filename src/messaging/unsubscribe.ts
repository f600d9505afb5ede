import { randomToken, sha256Hex } from '../platform/secrets.js';

export interface IssuedToken {
  url: string;
  row: { token_hash: string; account_id: string; contact_id: string; message_id: string; created_at: number; used_at: null };
}

/**
 * A fresh opt-out link per recipient and send (spec §2.13 rule 4). Only the hash is stored; the
 * account's custom unsubscribe URL, when set, is used instead and no token is issued.
 */
export function issueUnsubscribeLink(publicUrl: string, customUrl: string | null, accountId: string, contactId: string, messageId: string, now: number): IssuedToken | { url: string; row: null } {
  if (customUrl) return { url: customUrl, row: null };
  const token = randomToken(24);
  return {
    url: `${publicUrl}/u/${token}`,
    row: { token_hash: sha256Hex(token), account_id: accountId, contact_id: contactId, message_id: messageId, created_at: now, used_at: null },
  };
}
