import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeStampOf } from '../../src/platform/db/change-stamp.js';

let dir: string;
let db: SQLite.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-stamp-'));
  db = new SQLite(path.join(dir, 'db.sqlite'));
  db.pragma('journal_mode = WAL');
  db.exec("create table t (id integer primary key, v text); insert into t (v) values ('a')");
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('changeStampOf', () => {
  it('stays the same across reads', () => {
    const stamp = changeStampOf(db);
    const s0 = stamp();
    db.prepare('select * from t').all();
    expect(stamp()).toBe(s0);
  });

  it("changes with this connection's writes, committed or rolled back", () => {
    const stamp = changeStampOf(db);
    const s0 = stamp();
    db.prepare("update t set v = 'b'").run();
    const s1 = stamp();
    expect(s1).not.toBe(s0);
    db.exec('begin');
    db.prepare("insert into t (v) values ('c')").run();
    const inside = stamp();
    db.exec('rollback');
    // Rolled back: the stamp does not go back to s1, so nothing cached in between is trusted.
    expect(inside).not.toBe(s1);
    expect(stamp()).not.toBe(s1);
  });

  it("changes when another connection commits (another process, the CLI)", () => {
    const stamp = changeStampOf(db);
    const s0 = stamp();
    const other = new SQLite(path.join(dir, 'db.sqlite'));
    try {
      other.prepare("update t set v = 'from elsewhere'").run();
    } finally {
      other.close();
    }
    expect(stamp()).not.toBe(s0);
  });

  it('does not change when nothing was changed, even by a write statement', () => {
    const stamp = changeStampOf(db);
    const s0 = stamp();
    db.prepare('update t set v = v where id = -1').run();
    expect(stamp()).toBe(s0);
  });
});
