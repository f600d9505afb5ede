import type { DbOrTx } from '../platform/db/database.js';
import { sha256Hex } from '../platform/secrets.js';
import type { LinkTokens } from '../platform/link-tokens.js';

export interface IssuedToken {
  url: string;
  row: { token_hash: string; account_id: string; contact_id: string; message_id: string; created_at: number; used_at: null };
}

/**
 * A fresh opt-out link per recipient and send (spec §2.13 rule 4). The token is derived from the
 * message id (platform/link-tokens.ts): the returned URL is the masked one that is stored, and only the
 * token's hash is kept for the lookup. The account's custom unsubscribe URL, when set, is used
 * instead and no token is issued.
 */
export function issueUnsubscribeLink(links: LinkTokens, publicUrl: string, customUrl: string | null, accountId: string, contactId: string, messageId: string, now: number): IssuedToken | { url: string; row: null } {
  if (customUrl) return { url: customUrl, row: null };
  return {
    url: links.maskedUrl(publicUrl, 'unsubscribe'),
    row: { token_hash: sha256Hex(links.token('unsubscribe', messageId)), account_id: accountId, contact_id: contactId, message_id: messageId, created_at: now, used_at: null },
  };
}

/**
 * Records that a person used their opt-out link. messaging/ issues the tokens and owns their table
 * (issue #32); the unsubscribe page (inbound/) reports the use through this.
 */
export async function markUnsubscribeTokenUsed(tx: DbOrTx, tokenHash: string, at: number): Promise<void> {
  await tx.updateTable('unsubscribe_tokens').set({ used_at: at }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).execute();
}
