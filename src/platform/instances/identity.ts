import { randomBytes } from 'node:crypto';
import os from 'node:os';

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
