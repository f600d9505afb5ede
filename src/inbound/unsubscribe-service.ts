import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import { sha256Hex } from '../platform/secrets.js';
import { markUnsubscribeTokenUsed } from '../messaging/unsubscribe.js';
import type { OptOutService } from '../suppression/opt-outs.js';

/**
 * What the unsubscribe page shows: `confirm` (ask for the one click), `done` (this click opted the
 * number out), `already` (the number is out already — a second visit, or STOP before).
 */
export interface UnsubscribeView {
  state: 'confirm' | 'done' | 'already';
  accountName: string;
  /** Last four digits only: the page must not reveal the whole number to whoever holds the link. */
  phoneEnding: string;
  /** When the number opted out, for `done` and `already`. */
  optedOutAt: number | null;
}

/** Tokens are 24 random bytes in base64url (src/messaging/unsubscribe.ts); anything else is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

export interface UnsubscribeDeps {
  db: Db;
  clock: Clock;
  /** The one opt-out STOP uses too (suppression/), done in the confirming transaction. */
  optOuts: Pick<OptOutService, 'optOut'>;
}

/**
 * The per-send unsubscribe link `${PUBLIC_URL}/u/<token>` (spec §2.13 rule 4). Tokens are stored
 * as SHA-256 only. Opening the link changes nothing (link scanners and previews open links);
 * the confirm button does the opt-out — the same one STOP does. A used token keeps answering
 * "already unsubscribed" while the number stays out. When the account has a custom unsubscribe
 * URL no token exists and this page is never involved.
 */
export class UnsubscribeService {
  constructor(private readonly d: UnsubscribeDeps) {}

  private async find(q: DbOrTx, token: string) {
    if (!TOKEN_SHAPE.test(token)) return null;
    const row = await q
      .selectFrom('unsubscribe_tokens')
      .innerJoin('accounts', 'accounts.id', 'unsubscribe_tokens.account_id')
      .innerJoin('messages', (j) => j.onRef('messages.id', '=', 'unsubscribe_tokens.message_id').onRef('messages.account_id', '=', 'unsubscribe_tokens.account_id'))
      .select([
        'unsubscribe_tokens.token_hash',
        'unsubscribe_tokens.account_id',
        'unsubscribe_tokens.message_id',
        'unsubscribe_tokens.used_at',
        'accounts.name as account_name',
        'accounts.active as account_active',
        'messages.phone as phone',
      ])
      .where('unsubscribe_tokens.token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    // The number is the one the message went to (issue #42), not the contact's phone now: after the business edits a
    // contact's number, a link in the old number's inbox still belongs to the person there. Every token names its message
    // (tokens, old ones included, are issued per message, and a message leaves the log only together with its token).
    if (!row || row.account_active !== 1) return null;
    return row;
  }

  private async optedOutAt(q: DbOrTx, accountId: string, phone: string): Promise<number | null> {
    const r = await q.selectFrom('opt_outs').select('created_at').where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    return r?.created_at ?? null;
  }

  /** GET /u/<token>: null for an unknown or unusable token (a 404 page). Read-only. */
  async view(token: string): Promise<UnsubscribeView | null> {
    const row = await this.find(this.d.db, token);
    if (!row) return null;
    const at = await this.optedOutAt(this.d.db, row.account_id, row.phone);
    return { state: at !== null ? 'already' : 'confirm', accountName: row.account_name, phoneEnding: row.phone.slice(-4), optedOutAt: at };
  }

  /** POST /u/<token>: opts the number out (idempotent) and marks the token used. */
  async confirm(token: string): Promise<UnsubscribeView | null> {
    const now = this.d.clock.now();
    return inTransaction(this.d.db, async (tx) => {
      const row = await this.find(tx, token);
      if (!row) return null;
      const result = await this.d.optOuts.optOut(tx, { accountId: row.account_id, phone: row.phone, source: 'link', messageId: row.message_id, at: now });
      if (row.used_at === null) await markUnsubscribeTokenUsed(tx, row.token_hash, now);
      const at = await this.optedOutAt(tx, row.account_id, row.phone);
      return { state: result.alreadyOptedOut ? 'already' : 'done', accountName: row.account_name, phoneEnding: row.phone.slice(-4), optedOutAt: at };
    });
  }
}
