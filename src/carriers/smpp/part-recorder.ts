import { sql } from 'kysely';
import { insertRowsAsJson } from '../../platform/db/bulk.js';
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
 * the write being gathered or in progress (docs/carriers.md, "What an SMSC may still double").
 *
 * A commit costs ~100–200 µs whatever it holds (WAL frames for three B-trees, locks), a row a few
 * µs: gathering for 2 ms (~20 acknowledgements at 10,000 submit_sm/s) spent ~10 µs per part,
 * more than the whole client spends per submit (bench/smpp.ts). So a write gathers up to
 * GATHER_MS or MAX_GATHERED parts, whichever comes first, and flush() — a round has submitted
 * everything — writes at once instead of waiting out the gather.
 */
const GATHER_MS = 5;
const MAX_GATHERED = 200;
const MAX_STATEMENT = 2000;

export class PartRecorder {
  private pending: AcknowledgedPart[] = [];
  private running: Promise<void> | null = null;
  /** Ends the current gather early (flush, or enough parts gathered). */
  private wake: (() => void) | null = null;
  private failure: unknown = null;
  /** Statements written (bench and tests). */
  writes = 0;

  constructor(private readonly db: Db) {}

  add(part: AcknowledgedPart): void {
    this.pending.push(part);
    if (this.running === null) void this.drain();
    else if (this.pending.length >= MAX_GATHERED) this.wake?.();
  }

  /** Resolves once every part added so far is committed; throws when a write failed meanwhile. */
  async flush(): Promise<void> {
    if (this.pending.length > 0 || this.running) {
      this.wake?.();
      await this.drain();
    }
    if (this.failure !== null) {
      const err = this.failure;
      this.failure = null;
      throw err instanceof Error ? err : new Error('SMPP part write failed', { cause: err });
    }
  }

  private drain(): Promise<void> {
    this.running ??= (async () => {
      // Let the acknowledgements of the next few milliseconds join this write (see above).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.wake?.(), GATHER_MS);
        this.wake = () => {
          this.wake = null;
          clearTimeout(timer);
          resolve();
        };
      });
      try {
        while (this.pending.length > 0) {
          const batch = this.pending.length <= MAX_STATEMENT ? this.pending : this.pending.slice(0, MAX_STATEMENT);
          this.pending = this.pending.length <= MAX_STATEMENT ? [] : this.pending.slice(MAX_STATEMENT);
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
    // PostgreSQL refuses an upsert that touches one row twice in a statement (SQLite lets the last
    // win): a part acknowledged twice within one gather keeps its latest acknowledgement only.
    const latest = new Map<string, AcknowledgedPart>();
    for (const p of batch) latest.set(`${p.message_id}\u0000${p.part_index}`, p);
    const rows = latest.size === batch.length ? batch : [...latest.values()];
    // One statement for the whole batch (its rows as one JSON parameter), compiled once per shape.
    await insertRowsAsJson(this.db, 'smpp_parts', rows, { chunk: MAX_STATEMENT, suffix: PART_UPSERT });
  }
}

/** An acknowledgement repeated (a retried submit of the same part) keeps the SMSC's latest id. */
const PART_UPSERT = sql`on conflict (message_id, part_index) do update set carrier_id = excluded.carrier_id, connection = excluded.connection, submitted_at = excluded.submitted_at`;
