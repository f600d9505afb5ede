import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { fromBool, parseJson, toBool } from '../platform/db/sql.js';
import type { SendersTable } from './tables.js';
import type { ChangeStamp } from '../platform/db/change-stamp.js';
import { selectCompiledOnce } from '../platform/db/compiled-once.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { parseOrThrow } from '../platform/validation.js';
import { checkSenderWords, readSenderWords, type SenderWords } from '../inbound/consent-words.js';
import { CreateSenderSchema, type CreateSenderInput, type Sendername, type SenderType } from './schemas.js';

const digitsOnly = (p: string) => p.replace(/^\+/, '').replace(/^00/, '');

/** Accounts whose lists are kept; beyond it the cache starts over (a few hundred bytes each). */
const LIST_CACHE_MAX = 10_000;

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) Object.freeze(v);
  return Object.freeze(o);
}

/** The columns a Sendername is made of (not the account, not the carrier configuration). */
const SENDERNAME_COLUMNS = ['id', 'name', 'type', 'status', 'is_default', 'is_test', 'supports_conversation_billing', 'rejection_reason', 'test_phones', 'stop_keyword', 'created_at'] as const;

export const toSendername = (row: Pick<SendersTable, (typeof SENDERNAME_COLUMNS)[number]>): Sendername => ({
  id: row.id,
  name: row.name,
  type: row.type,
  status: row.status,
  isDefault: toBool(row.is_default),
  isTest: toBool(row.is_test),
  supportsConversationBilling: toBool(row.supports_conversation_billing),
  ...(row.status === 'REJECTED' && row.rejection_reason ? { rejectionReason: row.rejection_reason } : {}),
  ...(toBool(row.is_test) ? { testPhones: parseJson<string[]>(row.test_phones, []).map((p) => `+${p}`) } : {}),
  stopKeyword: row.stop_keyword,
  createdAt: toIso(row.created_at)!,
});

export interface SendersDeps {
  db: Db;
  clock: Clock;
  /** The database's change stamp (change-stamp.ts): while it is the same, sender lists come from memory; absent, every list is read. */
  stamp?: ChangeStamp;
}

/** Sender identities (spec §2.6, §3.2). Status changes are operator actions (admin CLI). */
export class SendersService {
  /** Sender lists by account and type, valid while the database's change stamp is the same. */
  private readonly lists = new Map<string, { stamp: string; value: readonly Sendername[] }>();

  constructor(private readonly d: SendersDeps) {}

  async create(accountId: string, input: CreateSenderInput, tx: DbOrTx = this.d.db): Promise<Sendername> {
    const data = parseOrThrow(CreateSenderSchema, input, 'Sender');
    if (data.isDefault) {
      await tx.updateTable('senders').set({ is_default: 0 }).where('account_id', '=', accountId).where('type', '=', data.type).execute();
    }
    const row: SendersTable = {
      id: newId('snd'),
      account_id: accountId,
      name: data.name,
      type: data.type,
      status: data.status,
      is_default: fromBool(data.isDefault),
      is_test: fromBool(data.isTest),
      supports_conversation_billing: fromBool(data.supportsConversationBilling),
      rejection_reason: null,
      test_phones: JSON.stringify(data.testPhones.map(digitsOnly)),
      stop_keyword: data.stopKeyword.toUpperCase(),
      carrier_config: null,
      consent_words: '{}',
      created_at: this.d.clock.now(),
    };
    await tx.insertInto('senders').values(row).execute();
    return toSendername(row);
  }

  /**
   * The account's senders, from memory while the database has not changed at all (change-stamp.ts):
   * list_sendernames is the tool assistants call first and most (bench/mcp.ts), and the data
   * changes rarely. Otherwise one query, compiled once per shape, of only the columns shown. The
   * list is frozen: it is shared by every caller until the next change.
   */
  async list(accountId: string, type?: SenderType): Promise<readonly Sendername[]> {
    const key = `${accountId}|${type ?? ''}`;
    const stamp = await this.d.stamp?.();
    const hit = this.lists.get(key);
    if (hit && hit.stamp === stamp) return hit.value;
    const rows = await selectCompiledOnce(this.d.db, type ? 'senders.list|type' : 'senders.list', type ? [accountId, type] : [accountId], () => {
      let q = this.d.db.selectFrom('senders').select(SENDERNAME_COLUMNS).where('account_id', '=', accountId);
      if (type) q = q.where('type', '=', type);
      return q.orderBy('type').orderBy('is_default', 'desc').orderBy('created_at');
    });
    const value = Object.freeze(rows.map((r) => deepFreeze(toSendername(r))));
    if (stamp !== undefined) {
      if (this.lists.size >= LIST_CACHE_MAX) this.lists.clear();
      this.lists.set(key, { stamp, value });
    }
    return value;
  }

  /** Row access for the messaging engine; scoped by account so a foreign id is simply not found. */
  async getRow(accountId: string, id: string): Promise<SendersTable> {
    const row = await this.d.db.selectFrom('senders').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Sender');
    return row;
  }

  async get(accountId: string, id: string): Promise<Sendername> {
    return toSendername(await this.getRow(accountId, id));
  }

  /** Operator decision on a sender. A rejection needs a reason people can act on. */
  async setStatus(accountId: string, id: string, status: 'APPROVED' | 'REJECTED' | 'PENDING', reason?: string): Promise<Sendername> {
    if (status === 'REJECTED' && !reason?.trim()) throw new AppError('VALIDATION_ERROR', 'A rejection needs a reason');
    await this.getRow(accountId, id);
    await this.d.db
      .updateTable('senders')
      .set({ status, rejection_reason: status === 'REJECTED' ? reason!.trim() : null })
      .where('id', '=', id)
      .execute();
    return this.get(accountId, id);
  }

  /** The sender's own consent words (issue #28), beside the lists every sender has (src/inbound/consent-words.ts). */
  async consentWords(accountId: string, id: string): Promise<SenderWords> {
    return readSenderWords((await this.getRow(accountId, id)).consent_words);
  }

  /** Every sender's own consent words of the account, by sender id (the console's Senders page). */
  async consentWordsOf(accountId: string): Promise<Map<string, SenderWords>> {
    const rows = await this.d.db.selectFrom('senders').select(['id', 'consent_words']).where('account_id', '=', accountId).execute();
    return new Map(rows.map((r) => [r.id, readSenderWords(r.consent_words)]));
  }

  /**
   * Replaces the sender's own consent words with `input` (what a person typed, one word or phrase per
   * item), checked by checkSenderWords: 400 naming every problem, nothing stored then.
   */
  async setConsentWords(accountId: string, id: string, input: Readonly<Record<keyof SenderWords, readonly string[]>>): Promise<SenderWords> {
    const row = await this.getRow(accountId, id);
    const checked = checkSenderWords(input, row.stop_keyword);
    if (!checked.ok) {
      throw new AppError('VALIDATION_ERROR', checked.problems.join('; '), { details: checked.problems.map((message) => ({ path: 'consentWords', code: 'invalid_consent_word', message })) });
    }
    await this.d.db.updateTable('senders').set({ consent_words: JSON.stringify(checked.words) }).where('id', '=', id).where('account_id', '=', accountId).execute();
    return checked.words;
  }

  /** Operator lookup (admin CLI) across accounts; never reachable from a tenant's request. */
  async findForOperator(id: string): Promise<SendersTable | undefined> {
    return this.d.db.selectFrom('senders').selectAll().where('id', '=', id).executeTakeFirst();
  }
}
