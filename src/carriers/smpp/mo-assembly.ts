import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Db } from '../../platform/db/database.js';
import { lockForTransaction } from '../../platform/db/locks.js';

/** One part of a concatenated incoming message, as the UDH numbered it. */
export interface MoPartIn {
  /** The SMSC key of the bind it came over. */
  smsc: string;
  /** Digits, no +. */
  source: string;
  dest: string;
  ref: number;
  total: number;
  /** 1-based. */
  seq: number;
  text: string;
}

/** A message put together from its stored parts. */
export interface AssembledMo {
  key: string;
  smsc: string;
  source: string;
  dest: string;
  /** The parts' texts in order (only those that came, when `complete` is false). */
  text: string;
  complete: boolean;
  /** The part numbers put together: only these are forgotten (a part arriving meanwhile stays). */
  seqs: number[];
  got: number;
  total: number;
  /** When the first part came: what names the message (a stable id) wherever it is put together. */
  firstAt: number;
}

/** Messages looked at per query of `due`. */
export const DUE_PAGE = 100;

type PartRow = { seq: number; text: string; received_at: number; total: number; smsc: string; source: string; dest: string };

/**
 * Puts concatenated incoming SMS together in the database (smpp_mo_parts, migration 022), not in
 * a bind's memory: an SMSC may hand the parts of one message to binds of different instances, and
 * a part it already had acknowledged must not be lost to a restart.
 *
 * Delivery is at least once; the caller names each message by its parts (source, text, first
 * part's time), so the inbound path records a repeat once. The parts are deleted only after the
 * message was handed on: a crash in between leaves them for `due`, which hands them on again.
 */
export class MoAssembly {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Keeps a part (a repeat of one already kept changes nothing). Answers the whole message once
   * every part is there, to whichever instance stored the last one. The lock on the message makes
   * two instances storing the last two parts at once see each other's: without it, each would
   * count only its own and neither would complete it.
   */
  async add(part: MoPartIn): Promise<AssembledMo | null> {
    const key = moKey(part);
    return inTransaction(this.db, async (tx) => {
      await lockForTransaction(tx, 'smppMoParts', [key]);
      await tx
        .insertInto('smpp_mo_parts')
        .values({ mo_key: key, seq: part.seq, total: part.total, smsc: part.smsc, source: part.source, dest: part.dest, text: part.text, received_at: this.clock.now() })
        .onConflict((oc) => oc.columns(['mo_key', 'seq']).doNothing())
        .execute();
      const rows = await tx.selectFrom('smpp_mo_parts').select(['seq', 'text', 'received_at', 'total', 'smsc', 'source', 'dest']).where('mo_key', '=', key).execute();
      return rows.length >= part.total ? assemble(key, rows) : null;
    });
  }

  /**
   * Messages whose first part came more than `waitMs` ago: incomplete ones (their siblings are not
   * coming; better the parts that came than nothing) and complete ones a crash left behind.
   */
  async due(waitMs: number, limit = DUE_PAGE): Promise<AssembledMo[]> {
    const cutoff = this.clock.now() - waitMs;
    const keys = await this.db
      .selectFrom('smpp_mo_parts')
      .select('mo_key')
      .where('received_at', '<=', cutoff)
      .groupBy('mo_key')
      .limit(limit)
      .execute();
    if (keys.length === 0) return [];
    const rows = await this.db
      .selectFrom('smpp_mo_parts')
      .select(['mo_key', 'seq', 'text', 'received_at', 'total', 'smsc', 'source', 'dest'])
      .where(
        'mo_key',
        'in',
        keys.map((k) => k.mo_key),
      )
      .execute();
    const byKey = new Map<string, PartRow[]>();
    for (const r of rows) byKey.set(r.mo_key, [...(byKey.get(r.mo_key) ?? []), r]);
    return [...byKey.entries()].map(([key, parts]) => assemble(key, parts));
  }

  /** Forgets the parts of a message that was handed on. */
  async done(m: Pick<AssembledMo, 'key' | 'seqs'>): Promise<void> {
    await this.db.deleteFrom('smpp_mo_parts').where('mo_key', '=', m.key).where('seq', 'in', m.seqs).execute();
  }
}

/** The message a part belongs to: the UDH reference is only unique per SMSC, sender, recipient and part count. */
function moKey(p: MoPartIn): string {
  return `${p.smsc}|${p.source}|${p.dest}|${p.ref}|${p.total}`;
}

function assemble(key: string, rows: readonly PartRow[]): AssembledMo {
  const sorted = [...rows].sort((a, b) => a.seq - b.seq);
  const first = sorted[0]!;
  const total = first.total;
  return {
    key,
    smsc: first.smsc,
    source: first.source,
    dest: first.dest,
    text: sorted.map((r) => r.text).join(''),
    complete: sorted.length >= total,
    seqs: sorted.map((r) => r.seq),
    got: sorted.length,
    total,
    firstAt: Math.min(...sorted.map((r) => r.received_at)),
  };
}
