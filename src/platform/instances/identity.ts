import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import os from 'node:os';

let hostCache: string | null = null;

/**
 * Where this process's pid means something: the host name and, on Linux, the process-id namespace
 * (`/proc/self/ns/pid`). Two containers that were given the same host name have different
 * namespaces, so neither takes the other's pids for its own and finds it "not running"; a
 * restarted container keeps its name and gets a new namespace, so its previous life is found dead
 * by its heartbeat instead (PostgreSQL) — SQLite has one process per file and no sibling to confuse.
 */
export function thisHost(): string {
  if (hostCache === null) {
    let ns = '';
    try {
      ns = readlinkSync('/proc/self/ns/pid');
    } catch {
      // Not Linux, or /proc not mounted: the host name alone.
    }
    hostCache = ns ? `${os.hostname()}/${ns}` : os.hostname();
  }
  return hostCache;
}

/** This process's identity in the instances table: host, pid and a random part, new on every start. */
export function newInstanceId(host = os.hostname(), pid = process.pid): string {
  return `${host}:${pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Whether a process of this host is running. A process that ended is gone from the process table
 * at once, so an instance of this host can be found dead without waiting for its heartbeat to go
 * stale (a restart finds its previous life dead this way). EPERM: it runs under another user.
 * A reused pid reads as alive: the heartbeat decides then, the slower but safe direction.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
