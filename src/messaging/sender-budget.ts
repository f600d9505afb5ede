import { sql } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';

/** A bucket refills for at most this long: after a second it is full whatever the gap. */
const FULL_AFTER_MS = 1000;

/**
 * SENDER_MAX_PER_SECOND for every instance together: a token bucket per sender in the
 * `sender_throughput` table (migration 021), holding up to one second's worth of tokens and
 * refilled continuously. A take is one atomic upsert — portable SQL, integer arithmetic in
 * thousandths of a token — so instances sharing a PostgreSQL database draw from one budget, and
 * on SQLite it costs one small statement per sender and dispatcher round.
 */
export class SenderBudget {
  constructor(private readonly perSecond: number) {}

  /** The sender's tokens now, without taking any (a send sizes what it leases to this process). */
  async available(db: DbOrTx, senderId: string, now: number): Promise<number> {
    const row = await db.selectFrom('sender_throughput').select(['tokens_milli', 'refilled_at']).where('sender_id', '=', senderId).executeTakeFirst();
    if (!row) return this.perSecond;
    const elapsed = Math.min(FULL_AFTER_MS, Math.max(0, now - row.refilled_at));
    return Math.floor(Math.min(this.perSecond * 1000, row.tokens_milli + elapsed * this.perSecond) / 1000);
  }

  /**
   * Takes up to `wants` tokens per sender and returns what each got. Senders in id order: on
   * PostgreSQL each take locks the sender's row until the caller's transaction ends, and one order
   * for every instance means two claims never wait for each other in a circle.
   */
  async take(db: DbOrTx, wants: ReadonlyMap<string, number>, now: number): Promise<Map<string, number>> {
    const got = new Map<string, number>();
    for (const senderId of [...wants.keys()].sort()) {
      const want = wants.get(senderId)!;
      got.set(senderId, want > 0 ? await this.takeOne(db, senderId, want, now) : 0);
    }
    return got;
  }

  private async takeOne(db: DbOrTx, senderId: string, want: number, now: number): Promise<number> {
    const rate = this.perSecond;
    const capMilli = rate * 1000;
    const first = Math.min(want, rate);
    // Every SET expression reads the row as it was before this statement: `granted` and
    // `tokens_milli` are computed from the same old tokens. Another instance's clock may be a
    // little behind: its refill counts no negative time and refilled_at never moves back.
    const t = sql.table('sender_throughput');
    const elapsed = sql`(case when excluded.refilled_at - ${t}.refilled_at > ${FULL_AFTER_MS} then ${FULL_AFTER_MS} when excluded.refilled_at > ${t}.refilled_at then excluded.refilled_at - ${t}.refilled_at else 0 end)`;
    const refilled = sql`(${t}.tokens_milli + ${elapsed} * ${rate})`;
    const available = sql`(case when ${refilled} > ${capMilli} then ${capMilli} else ${refilled} end)`;
    // Whole tokens: the cast truncates on both (better-sqlite3 binds numbers as REAL, so SQLite's `/` alone would not).
    const whole = sql`cast(${available} / 1000 as bigint)`;
    const granted = sql`(case when ${want} < ${whole} then ${want} else ${whole} end)`;
    const row = await sql<{ granted: number }>`
      insert into ${t} (sender_id, tokens_milli, refilled_at, granted) values (${senderId}, ${(rate - first) * 1000}, ${now}, ${first})
      on conflict (sender_id) do update set
        granted = ${granted},
        tokens_milli = ${available} - ${granted} * 1000,
        refilled_at = case when excluded.refilled_at > ${t}.refilled_at then excluded.refilled_at else ${t}.refilled_at end
      returning granted`.execute(db);
    return Number(row.rows[0]?.granted ?? 0);
  }
}
