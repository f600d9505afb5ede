import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/platform/settings.js';
import { sourceFiles } from '../helpers/source-files.js';

/**
 * Each table has one area that writes it (issue #32): "who changes this table?" has one folder as
 * its answer. The test reads the sources (src/, oauth/, tools/; migrations aside) for Kysely writes
 * (insertInto, updateTable, deleteFrom, replaceInto, mergeInto) and raw INSERT/UPDATE/DELETE, and
 * fails on a table written from a second area. SHARED lists the tables that still have two, each
 * with why; it may only shrink: an entry that no longer has two writers fails too, so it is removed.
 */

const ROOT = join(import.meta.dirname, '../..');

const SHARED: Record<string, { areas: string[]; why: string }> = {
  accounts: { areas: ['accounts', 'billing'], why: 'billing/ledger.ts is the one writer of credits_milli (the money test holds it); accounts owns the rest of the row.' },
};

/** The sources that write tables: src/, oauth/, tools/ (migrations aside: they create the tables). */
const sources = (): string[] => sourceFiles(['src', 'oauth', 'tools'], ['migrations']);

/** The area of a source file: its folder under src/, or the top folder (oauth, tools). */
function areaOf(file: string): string {
  const parts = relative(ROOT, file).split('/');
  return parts[0] === 'src' ? parts[1]!.replace(/\.tsx?$/, '') : parts[0]!;
}

const WRITES = [
  /\b(?:insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*'(\w+)'/g,
  /\b(?:INSERT\s+INTO|DELETE\s+FROM)\s+"?(\w+)/g,
  /\bUPDATE\s+"?(\w+)"?\s+(?:AS\s+\w+\s+)?SET\b/g,
];

function writersByTable(): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of WRITES) {
      for (const m of text.matchAll(pattern)) {
        const table = m[1]!;
        if (!writers.has(table)) writers.set(table, new Set());
        writers.get(table)!.add(areaOf(file));
      }
    }
  }
  return writers;
}

describe('table owners', () => {
  const writers = writersByTable();

  it('finds the writes (the scan itself works)', () => {
    expect(writers.size).toBeGreaterThan(30);
    expect([...(writers.get('contacts') ?? [])]).toContain('contacts');
  });

  it('every table is written by one area, apart from the listed ones', () => {
    const second = [...writers]
      .filter(([table, areas]) => areas.size > 1 && !(table in SHARED))
      .map(([table, areas]) => `${table}: ${[...areas].sort().join(', ')}`);
    expect(second).toEqual([]);
  });

  it('the listed exceptions are exactly what the code does (the list only shrinks)', () => {
    for (const [table, entry] of Object.entries(SHARED)) {
      expect([...(writers.get(table) ?? [])].sort(), table).toEqual([...entry.areas].sort());
    }
  });

  it("each table's type sits with the area that writes it (src/<area>/tables.ts; the platform's own in src/platform/db/tables)", () => {
    const declared = new Map<string, string>();
    for (const file of sourceFiles(['src', 'oauth'])) {
      const rel = relative(ROOT, file);
      if (!/(^|\/)tables(\.ts|\/[\w-]+\.ts)$/.test(rel)) continue;
      const block = /export interface \w+Tables \{([^}]*)\}/.exec(readFileSync(file, 'utf8'));
      for (const m of block?.[1]?.matchAll(/^\s*(\w+): \w+;/gm) ?? []) declared.set(m[1]!, rel.startsWith('src/platform/') ? 'platform' : areaOf(file));
    }
    expect(declared.size).toBeGreaterThan(40);
    const misplaced = [...writers]
      .filter(([table, areas]) => !(table in SHARED) && declared.has(table) && !areas.has(declared.get(table)!))
      .map(([table, areas]) => `${table}: declared in ${declared.get(table)}, written by ${[...areas].join(', ')}`);
    expect(misplaced).toEqual([]);
    // Every table the code writes has a declared type.
    expect([...writers.keys()].filter((t) => !declared.has(t) && t !== 't').sort()).toEqual([]);
  });

  it('settings: platform/settings.ts is its only writer, and each key is used by its declared owner only', () => {
    const settingsWriters = sources().filter((f) => WRITES.some((p) => [...readFileSync(f, 'utf8').matchAll(p)].some((m) => m[1] === 'settings')));
    expect(settingsWriters.map((f) => relative(ROOT, f))).toEqual(['src/platform/settings.ts']);
    const readers = sources().filter((f) => /\bselectFrom\(\s*'settings'/.test(readFileSync(f, 'utf8')));
    expect(readers.map((f) => relative(ROOT, f))).toEqual(['src/platform/settings.ts']);
    for (const [key, { owner }] of Object.entries(SETTINGS)) {
      const users = sources()
        .filter((f) => readFileSync(f, 'utf8').includes(`'${key}'`))
        .map((f) => relative(ROOT, f))
        .filter((f) => f !== 'src/platform/settings.ts');
      expect(users, key).toEqual([owner]);
    }
  });
});
