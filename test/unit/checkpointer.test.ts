import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES, startCheckpointer, type CheckpointResult } from '../../src/platform/db/checkpointer.js';

let dir: string;
let file: string;
let db: SQLite.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-checkpointer-'));
  file = path.join(dir, 'db.sqlite');
  db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 10000');
  db.exec('create table t (id integer primary key, v text not null)');
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (rows: number) => {
  const ins = db.prepare('insert into t (v) values (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) ins.run(`row ${i} ${'x'.repeat(100)}`);
  })();
};

describe('startCheckpointer', () => {
  it('copies the WAL back into the database from its own thread', async () => {
    const seen: CheckpointResult[] = [];
    const ck = startCheckpointer(file, { intervalMs: 20, onCheckpoint: (r) => seen.push(r) })!;
    write(2000);
    const deadline = Date.now() + 10_000;
    while (!seen.some((r) => r.log > 0 && r.checkpointed === r.log) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await ck.stop();
    expect(seen.some((r) => r.busy === 0 && r.log > 0 && r.checkpointed === r.log)).toBe(true);
    // Nothing left for the application's connection to copy: every frame is already backfilled.
    const [own] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    expect(own!.checkpointed).toBe(own!.log);
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 2000 });
  });

  it('reports a pass only when the WAL changed since the last one', async () => {
    const seen: CheckpointResult[] = [];
    write(100); // before the thread starts, so that its first pass sees all of it
    let idle = 0;
    const ck = startCheckpointer(file, { intervalMs: 10, onCheckpoint: (r) => seen.push(r), onIdlePass: () => idle++ })!;
    const deadline = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // Fifteen passes over an unchanged WAL, counted (a fixed sleep could pass before the thread ran any).
    const from = idle;
    while (idle < from + 15 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(idle).toBeGreaterThanOrEqual(from + 15);
    expect(seen).toHaveLength(1);
    write(100);
    while (seen.length === 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await ck.stop();
    expect(seen.length).toBe(2);
  });

  it("raises the writer's own auto-checkpoint to the backstop while it runs and puts it back on stop", async () => {
    const ck = startCheckpointer(file, { writer: db, intervalMs: 1000 })!;
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    await ck.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10000);
  });

  it('stop() ends the thread once, however often it is called', async () => {
    const ck = startCheckpointer(file, { intervalMs: 1000 })!;
    const [a, b] = [ck.stop(), ck.stop()];
    expect(a).toBe(b);
    await a;
    // The thread closed its connection: the file can be taken over exclusively.
    db.pragma('locking_mode = EXCLUSIVE');
    write(10);
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 10 });
  });

  it('reports a database it cannot open as an error instead of throwing', async () => {
    const errors: Error[] = [];
    const ck = startCheckpointer(path.join(dir, 'missing.sqlite'), { intervalMs: 20, onError: (e) => errors.push(e) })!;
    const deadline = Date.now() + 10_000;
    while (errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await ck.stop();
    expect(errors[0]?.message).toMatch(/unable to open|does not exist|SQLITE_CANTOPEN/i);
  });

  it('has nothing to do for an in-memory database', () => {
    expect(startCheckpointer(':memory:')).toBeNull();
  });
});
