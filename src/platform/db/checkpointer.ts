import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What one checkpoint did, in WAL frames (SQLite's wal_checkpoint result). */
export interface CheckpointResult {
  /** 1 when the checkpoint could not finish because another connection held a lock. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames copied back into the database file so far. */
  checkpointed: number;
}

export interface CheckpointerOptions {
  /** How often to copy the WAL back into the database; default 1 s. */
  intervalMs?: number;
  /**
   * The application's connection. While the thread runs, its auto-checkpoint is raised from
   * `wal_autocheckpoint` to a backstop of BACKSTOP_PAGES, and put back on stop.
   */
  writer?: { readonly open: boolean; pragma(source: string, options?: { simple: boolean }): unknown };
  onCheckpoint?: (r: CheckpointResult) => void;
  /** A pass that found nothing new to report (tests count these instead of sleeping; posted only when set). */
  onIdlePass?: () => void;
  onError?: (err: Error) => void;
}

export interface Checkpointer {
  /** Runs a last checkpoint, closes the thread's connection and waits for the thread to end. */
  stop(): Promise<void>;
}

// The thread's code is plain CommonJS, evaluated: it runs the same under tsx, vitest and the
// compiled server, with no second entry point to build. The driver's path is resolved here.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const report = (err) => parentPort.postMessage({ kind: 'error', message: String((err && (err.message || err.code)) || err) });
let db = null;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
} catch (err) {
  // Errors of the driver's own class lose their message crossing threads: send it as text.
  report(err);
}
let last = '';
const checkpoint = () => {
  if (!db) return;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    // Reported when the WAL changed since the last pass: an idle database says nothing.
    const now = r.log + '/' + r.checkpointed + '/' + r.busy;
    if (r.log > 0 && now !== last) parentPort.postMessage({ kind: 'checkpoint', result: r });
    else if (workerData.reportIdle) parentPort.postMessage({ kind: 'idle' });
    last = now;
  } catch (err) {
    report(err);
  }
};
const timer = db ? setInterval(checkpoint, workerData.intervalMs) : null;
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  if (timer) clearInterval(timer);
  checkpoint();
  if (db) db.close();
  parentPort.close();
});
`;

/**
 * While a batch is written, the WAL cannot start over (some frame is always newer than the last
 * checkpoint), so it grows past the writer's own auto-checkpoint threshold and the writer would
 * checkpoint (and fsync) on the event loop after all, if only the frames since the thread's last
 * pass. ~160 MiB: a backstop for when the thread is gone or stuck, not part of normal operation.
 */
export const BACKSTOP_PAGES = 40_000;

/**
 * Copies the WAL back into the database file on a thread of its own. SQLite otherwise checkpoints
 * inside whichever commit crosses wal_autocheckpoint, on the event loop: copying ~40 MiB of WAL
 * took 75–90 ms of one request (measured in bench/batch, where it landed in a 10,000-message
 * batch about every other run). A PASSIVE checkpoint from another connection never blocks
 * readers or the writer (SQLite's documented pattern for applications that want checkpoints off
 * the writing thread); the connection's own auto-checkpoint stays on as a backstop should this
 * thread fall behind or die. Only for a database file: an in-memory database has no WAL.
 */
export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer | null {
  if (file === ':memory:' || file === '') return null;
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: options.intervalMs ?? 1000, reportIdle: options.onIdlePass !== undefined },
  });
  // The thread alone does not keep the process alive.
  worker.unref();
  const writer = options.writer;
  const ownThreshold = writer ? Number(writer.pragma('wal_autocheckpoint', { simple: true })) : 0;
  writer?.pragma(`wal_autocheckpoint = ${Math.max(ownThreshold, BACKSTOP_PAGES)}`);
  worker.on('message', (m: { kind: 'checkpoint'; result: CheckpointResult } | { kind: 'idle' } | { kind: 'error'; message: string }) => {
    if (m.kind === 'checkpoint') options.onCheckpoint?.(m.result);
    else if (m.kind === 'idle') options.onIdlePass?.();
    else options.onError?.(new Error(`WAL checkpoint failed: ${m.message}`));
  });
  worker.on('error', (err: unknown) => options.onError?.(err instanceof Error ? err : new Error(`WAL checkpoint thread failed: ${String(err)}`)));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      stopping ??= (async () => {
        worker.postMessage('stop');
        // A thread stuck in a checkpoint (a lock held elsewhere) is ended rather than waited for.
        const timeout = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timeout);
        if (writer?.open) writer.pragma(`wal_autocheckpoint = ${ownThreshold}`);
      })();
      return stopping;
    },
  };
}
