import type { CopyProgress } from '../platform/db/copy/copy-to-postgres.js';

/** Where progress goes: stderr, so stdout carries only the result. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const percent = (done: number, total: number): number => (total === 0 ? 100 : Math.floor((done / total) * 100));

/**
 * Shows the copy's progress: on a terminal one line redrawn in place (a bar, the overall rows and
 * the current table), at most every `redrawMs`; elsewhere (a log file, CI) plain lines — one when a
 * table with rows is done, and one every `lineMs` while a long table is under way — since
 * carriage returns make a mess of a log.
 */
export class CopyProgressReporter {
  private lastDraw = -Infinity;
  private lastLine: number;
  private drawn = false;
  private last: CopyProgress | null = null;

  constructor(
    private readonly out: ProgressStream,
    private readonly now: () => number = Date.now,
    private readonly opts: { redrawMs: number; lineMs: number } = { redrawMs: 100, lineMs: 2000 },
  ) {
    this.lastLine = now();
  }

  update(p: CopyProgress): void {
    const previous = this.last;
    this.last = p;
    if (this.out.isTTY === true) {
      const tableDone = p.tableRowsDone === p.tableRows;
      if (tableDone || this.now() - this.lastDraw >= this.opts.redrawMs) this.draw(p);
      return;
    }
    // The previous table is done once the next one starts (empty tables print nothing).
    if (previous && previous.table !== p.table && previous.tableRows > 0) this.line(previous, true);
    else if (p.tableRowsDone > 0 && p.tableRowsDone < p.tableRows && this.now() - this.lastLine >= this.opts.lineMs) this.line(p, false);
  }

  /** The last state, completed: the bar at 100 % on a terminal, the last table's line elsewhere. */
  finish(): void {
    const p = this.last;
    if (!p) return;
    if (this.out.isTTY === true) {
      this.draw(p);
      this.out.write('\n');
    } else if (p.tableRows > 0) this.line(p, true);
  }

  /** Ends a drawn line before an error message is printed under it. */
  abort(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }

  private draw(p: CopyProgress): void {
    this.lastDraw = this.now();
    const pct = percent(p.rowsDone, p.rowsTotal);
    const tail = ` ${String(pct).padStart(3)}%  ${fmt(p.rowsDone)}/${fmt(p.rowsTotal)} rows  ${p.table} (${p.tableNumber}/${p.tableCount})`;
    const width = Math.max(10, Math.min(30, (this.out.columns || 80) - tail.length - 3));
    const filled = Math.round((pct / 100) * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${tail}`;
    this.out.write(`\r\x1b[2K${line.slice(0, Math.max(20, (this.out.columns || 80) - 1))}`);
    this.drawn = true;
  }

  private line(p: CopyProgress, tableDone: boolean): void {
    this.lastLine = this.now();
    const table = tableDone ? `${p.table}: ${fmt(p.tableRows)} row${p.tableRows === 1 ? '' : 's'} copied` : `${p.table}: ${fmt(p.tableRowsDone)} of ${fmt(p.tableRows)} rows`;
    this.out.write(`copy ${String(percent(p.rowsDone, p.rowsTotal)).padStart(3)}%  ${table} (table ${p.tableNumber} of ${p.tableCount}; ${fmt(p.rowsDone)} of ${fmt(p.rowsTotal)} rows in all)\n`);
  }
}
