import { describe, expect, it } from 'vitest';
import { CopyProgressReporter } from '../../src/admin/copy-progress.js';
import type { CopyProgress } from '../../src/platform/db/copy/copy-to-postgres.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, s: { isTTY, columns: 100, write: (t: string) => written.push(t) } };
}

/** A copy of two tables: accounts (2 rows, one chunk) and messages (3,000 rows, three chunks), then an empty one. */
function* copy(): Generator<CopyProgress> {
  const base = { rowsTotal: 3002, tableCount: 3 };
  yield { ...base, table: 'accounts', tableNumber: 1, tableRows: 2, tableRowsDone: 0, rowsDone: 0 };
  yield { ...base, table: 'accounts', tableNumber: 1, tableRows: 2, tableRowsDone: 2, rowsDone: 2 };
  for (let done = 0; done <= 3000; done += 1000) yield { ...base, table: 'messages', tableNumber: 2, tableRows: 3000, tableRowsDone: done, rowsDone: 2 + done };
  yield { ...base, table: 'settings', tableNumber: 3, tableRows: 0, tableRowsDone: 0, rowsDone: 3002 };
}

describe('copy progress', () => {
  it('on a terminal: one line redrawn in place with a bar, at most every redraw interval, ending at 100%', () => {
    const { written, s } = stream(true);
    let now = 0;
    const p = new CopyProgressReporter(s, () => now, { redrawMs: 100, lineMs: 2000 });
    for (const step of copy()) {
      p.update(step);
      now += 30;
    }
    p.finish();
    expect(written.every((w) => w === '\n' || w.startsWith('\r\x1b[2K'))).toBe(true);
    expect(written.at(-1)).toBe('\n');
    const last = written.at(-2)!;
    expect(last.startsWith('\r\u001b[2K')).toBe(true);
    expect(last.slice(5)).toBe(`[${'#'.repeat(30)}] 100%  3,002/3,002 rows  settings (3/3)`);
    expect(last.length).toBeLessThan(100);
    // Seven updates 30 ms apart: drawn at the first, whenever a table is done, and at the finish; the
    // messages chunks in between came faster than the redraw interval.
    const drawn = written.filter((w) => w !== '\n').map((w) => /\s(\d+)%.* (\w+) \(\d\/3\)$/.exec(w)!.slice(1, 3).join(' '));
    expect(drawn).toEqual(['0 accounts', '0 accounts', '100 messages', '100 settings', '100 settings']);
  });

  it('elsewhere: plain lines, one per table with rows and one per interval during a long table, no carriage returns', () => {
    const { written, s } = stream(false);
    let now = 0;
    const p = new CopyProgressReporter(s, () => now, { redrawMs: 100, lineMs: 2000 });
    for (const step of copy()) {
      p.update(step);
      now += 1500;
    }
    p.finish();
    expect(written.join('')).not.toContain('\r');
    expect(written).toEqual([
      'copy   0%  accounts: 2 rows copied (table 1 of 3; 2 of 3,002 rows in all)\n',
      'copy  66%  messages: 2,000 of 3,000 rows (table 2 of 3; 2,002 of 3,002 rows in all)\n',
      'copy 100%  messages: 3,000 rows copied (table 2 of 3; 3,002 of 3,002 rows in all)\n',
    ]);
  });

  it('abort ends a drawn line so an error prints below it', () => {
    const { written, s } = stream(true);
    const p = new CopyProgressReporter(s, () => 0);
    p.abort();
    expect(written).toEqual([]);
    p.update({ table: 'a', tableNumber: 1, tableCount: 1, tableRows: 5, tableRowsDone: 0, rowsDone: 0, rowsTotal: 5 });
    p.abort();
    expect(written.at(-1)).toBe('\n');
  });
});
