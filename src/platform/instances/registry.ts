import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { dialectOf } from '../db/dialect.js';
import type { Logger } from '../logger.js';
import { processRunning, thisHost } from './identity.js';

/**
 * An area that claims rows of a shared queue with a lease (the dispatcher's messages, the webhook
 * worker's deliveries) and stamps them with the claiming instance's id.
 */
export interface ClaimHolder {
  /** For the logs. */
  readonly name: string;
  /**
   * Gives back, at once, the pending rows the given instances had claimed: they are dead, so the
   * rows become claimable instead of waiting for their leases. Returns how many rows were given back.
   */
  releaseClaimsOf(instances: readonly string[]): Promise<Released>;
  /**
   * Called on every heartbeat: extends the leases of rows this instance still holds and is still
   * working on, so a live but slow instance keeps its own work past the lease length.
   */
  renewClaims?(): Promise<void>;
}

/**
 * What a give-back did: rows made claimable, and rows of those instances it left because another transaction held
 * them at that moment (on PostgreSQL the give-back skips locked rows rather than wait: waiting while that transaction
 * waits for rows the give-back holds is a deadlock, seen with three instances). The dead instance stays listed while
 * any are left, so the next heartbeat tries again.
 */
export interface Released {
  released: number;
  left: number;
}

export interface InstanceRegistryOptions {
  /** How often the instance writes its heartbeat and looks for dead ones. */
  heartbeatMs: number;
  /**
   * A heartbeat older than this marks its instance dead. Several beats, so a busy event loop or a
   * slow statement does not kill a live instance; small enough that the survivors take over within
   * about deadAfterMs + heartbeatMs of a crash.
   */
  deadAfterMs: number;
}

export const DEFAULT_INSTANCE_OPTIONS: InstanceRegistryOptions = { heartbeatMs: 1_000, deadAfterMs: 3_000 };

export interface InstanceRegistryDeps {
  db: Db;
  logger: Logger;
  /** newInstanceId() */
  id: string;
  /** processRunning() (tests replace it). */
  processRunning?: (pid: number) => boolean;
  options?: InstanceRegistryOptions;
}

/** Registries started in this process and not stopped (tests run several servers in one process). */
const liveHere = new Set<string>();

/** The database's own clock in ms, so instances on hosts whose clocks differ agree on "stale". */
function databaseNow(db: Db): RawBuilder<number> {
  return dialectOf(db) === 'postgres' ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint` : sql<number>`${Date.now()}`;
}

/**
 * The instances working the shared queues, each a row in the `instances` table (issue #31). Any
 * live instance finds the dead ones and has each ClaimHolder give their claims back, so a killed
 * instance's messages and webhook deliveries go out again within seconds instead of after their
 * leases (30 s and more). Dead is either of:
 *
 * - its host is this host and its process is not running (identity.ts): known at once. A restart
 *   finds its previous life dead as it starts, before it claims anything; so does a sibling on the
 *   same host at its next beat. An instance that is shutting down is still running, so a rolling
 *   restart never takes a draining instance's work away from it.
 * - PostgreSQL, an instance on another host: its heartbeat is older than deadAfterMs. (On this host the
 *   process table decides alone: a running process is alive, however silent its heartbeat.)
 *
 * On SQLite one process works the file: its row is written at start for the first rule, and no
 * heartbeat is written (nobody on another host could read it).
 */
export class InstanceRegistry {
  private readonly holders: ClaimHolder[] = [];
  private readonly options: InstanceRegistryOptions;
  private readonly shared: boolean;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private started = false;

  constructor(private readonly d: InstanceRegistryDeps) {
    this.options = d.options ?? DEFAULT_INSTANCE_OPTIONS;
    this.shared = dialectOf(d.db) === 'postgres';
  }

  get id(): string {
    return this.d.id;
  }

  /** Registers an area's claims; before start(). */
  holds(holder: ClaimHolder): void {
    this.holders.push(holder);
  }

  /**
   * Joins: gives back what a previous life left claimed, writes this instance's row, starts the
   * heartbeat. Before the holders start claiming, so the give-back cannot touch this life's work.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const { db } = this.d;
    liveHere.add(this.id);
    await db.insertInto('instances').values({ id: this.id, host: thisHost(), pid: process.pid, started_at: Date.now(), heartbeat_at: databaseNow(db) }).execute();
    await this.reapDead();
    this.schedule();
  }

  /** Stops the heartbeat and leaves (the holders have given their work back by then). */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.beating;
    liveHere.delete(this.id);
    try {
      await this.d.db.deleteFrom('instances').where('id', '=', this.id).execute();
    } catch (err) {
      // A shutdown goes on without the database: the row stays, and a live instance finds it dead (its process
      // is gone, or its heartbeat stops) and removes it.
      this.d.logger.warn({ err, instance: this.id }, 'could not leave the instances table at stop');
    }
  }

  /** One heartbeat now (tests; the timer calls the same). */
  async beat(): Promise<void> {
    const { db } = this.d;
    if (this.shared) {
      const beat = await db.updateTable('instances').set({ heartbeat_at: databaseNow(db) }).where('id', '=', this.id).executeTakeFirst();
      // Taken for dead (a stall longer than deadAfterMs) and reaped: its claims were given back and may be another's
      // by now. It joins again; rows it still sends are recorded only where still pending (the dispatcher's record).
      if (Number(beat.numUpdatedRows) === 0) {
        this.d.logger.warn({ instance: this.id }, 'this instance was taken for dead (its heartbeat stalled); joining again');
        await db.insertInto('instances').values({ id: this.id, host: thisHost(), pid: process.pid, started_at: Date.now(), heartbeat_at: databaseNow(db) }).onConflict((oc) => oc.column('id').doNothing()).execute();
      }
    }
    await this.reapDead();
    for (const h of this.holders) await h.renewClaims?.();
  }

  /** Finds the dead instances (see the class comment), gives their claims back, removes them. */
  private async reapDead(): Promise<void> {
    const { db } = this.d;
    const host = thisHost();
    const running = this.d.processRunning ?? processRunning;
    const others = await db
      .selectFrom('instances')
      .select(['id', 'host', 'pid', 'heartbeat_at'])
      .select(sql<number>`${databaseNow(db)} - heartbeat_at`.as('silent_ms'))
      .where('id', '!=', this.id)
      .execute();
    // This process number: alive only if it is one of this process's own registries (a previous life of a
    // container restarted as pid 1 again is not).
    // Same host: on PostgreSQL the same name and pid namespace (identity.ts thisHost); on SQLite, where one process
    // works the file, the same name is enough — a restarted container keeps its name but not its namespace.
    const hostName = (h: string) => h.split('/')[0];
    const sameHost = (h: string) => (this.shared ? h === host : hostName(h) === hostName(host));
    const endedHere = (o: (typeof others)[number]) => sameHost(o.host) && (o.pid === process.pid ? !liveHere.has(o.id) : !running(o.pid));
    // On this host the process table is the authority: a running process is alive however long its heartbeat has been
    // silent (a busy event loop, a heartbeat waiting for a pooled connection), so only instances elsewhere are judged by
    // their heartbeat. Taking a live one for dead would hand its messages over a second time.
    const dead = others.filter((o) => (sameHost(o.host) ? endedHere(o) : this.shared && Number(o.silent_ms) > this.options.deadAfterMs));
    for (const instance of dead) {
      const left = await this.release([instance.id], endedHere(instance) ? 'an instance of this host that is no longer running' : 'an instance whose heartbeat stopped');
      // Rows it still claims that were held elsewhere at the give-back: listed until the next beat gives them back.
      if (left > 0) continue;
      // Only while still stale: an instance that beat again meanwhile (it was slow, not dead) stays.
      await db.deleteFrom('instances').where('id', '=', instance.id).where('heartbeat_at', '=', instance.heartbeat_at).execute();
    }
  }

  /** Gives the instances' claims back through every holder; returns how many rows were left for a later beat. */
  private async release(instances: readonly string[], whose: string): Promise<number> {
    let left = 0;
    for (const h of this.holders) {
      const r = await h.releaseClaimsOf(instances);
      if (r.released > 0) this.d.logger.info({ holder: h.name, rows: r.released, instances }, `took over ${r.released} ${h.name} claimed by ${whose}`);
      left += r.left;
    }
    return left;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat()
        .catch((err: unknown) => this.d.logger.warn({ err }, 'instance heartbeat failed'))
        .finally(() => {
          this.beating = null;
          this.schedule();
        });
    }, this.options.heartbeatMs);
    this.timer.unref();
  }
}
