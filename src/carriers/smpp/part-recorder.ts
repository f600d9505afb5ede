import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';

export interface AcknowledgedPart {
  message_id: string;
  part_index: number;
  carrier_id: string;
  connection: string;
  submitted_at: number;
}

/**
 * Records each acknowledged part (its smpp_parts row, with the SMSC id) as a group commit: acknowledgements that arrive
 * while a write is under way are written together by the next one (one statement for all of
 * them), instead of one UPDATE per submit_sm_resp. A send awaits flush() before it answers, so
 * every id is committed before the engine records SENT; what a crash can lose is only the ids of
 * the write in progress (docs/carriers.md, "What an SMSC may still double").
 */
const GATHER_MS = 2;

export class PartRecorder {
  private pending: AcknowledgedPart[] = [];
  private running: Promise<void> | null = null;
  private failure: unknown = null;
  /** Statements written (bench and tests). */
  writes = 0;

  constructor(private readonly db: Db) {}

  add(part: AcknowledgedPart): void {
    this.pending.push(part);
    void this.drain();
  }

  /** Resolves once every part added so far is committed; throws when a write failed meanwhile. */
  async flush(): Promise<void> {
    if (this.pending.length > 0 || this.running) await this.drain();
    if (this.failure !== null) {
      const err = this.failure;
      this.failure = null;
      throw err;
    }
  }

  private drain(): Promise<void> {
    this.running ??= (async () => {
      // Let the acknowledgements of the next few milliseconds join this write: one statement (and
      // one WAL commit) per ~2 ms instead of per socket read.
      await new Promise<void>((resolve) => setTimeout(resolve, GATHER_MS));
      try {
        while (this.pending.length > 0) {
          const batch = this.pending.splice(0, 2000);
          try {
            await this.write(batch);
          } catch (err) {
            this.failure = err;
          }
        }
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async write(batch: readonly AcknowledgedPart[]): Promise<void> {
    this.writes++;
    const data = JSON.stringify(batch.map((p) => [p.message_id, p.part_index, p.carrier_id, p.connection, p.submitted_at]));
    // `where true`: without a WHERE, SQLite would read the upsert's ON CONFLICT as a join constraint.
    await sql`insert into smpp_parts (message_id, part_index, carrier_id, connection, submitted_at)
      select j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4 from json_each(${data}) j where true
      on conflict (message_id, part_index) do update set carrier_id = excluded.carrier_id, connection = excluded.connection, submitted_at = excluded.submitted_at`.execute(this.db);
  }
}
