import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { AppError } from '../platform/errors.js';
import { copySqliteToPostgres, describeTarget, type CopyResult } from '../platform/db/copy/copy-to-postgres.js';
import { migrations } from '../bootstrap/migrations.js';
import { CopyProgressReporter, type ProgressStream } from './copy-progress.js';

/** An admin command that opens no application context: it works on databases the server is not running on. */
export interface StandaloneCommand {
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  standalone: true;
  run(values: Record<string, string | boolean | string[] | undefined>, io: { out: (line?: string) => void; err: ProgressStream }): Promise<void>;
}

function flag(values: Record<string, unknown>, name: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new AppError('VALIDATION_ERROR', `--${name} needs a value`);
  return v.trim();
}

function report(result: CopyResult, from: string, to: string, out: (line?: string) => void): void {
  const copied = result.tables.filter((t) => t.source > 0);
  const width = Math.max(5, ...copied.map((t) => t.table.length));
  out(`Copied ${from} into ${to} (schema ${result.schema}); row counts verified per table:`);
  for (const t of copied) out(`  ${t.table.padEnd(width)}  ${String(t.source).padStart(9)} → ${String(t.target).padStart(9)}`);
  const empty = result.tables.length - copied.length;
  if (empty > 0) out(`  (${empty} empty table${empty === 1 ? '' : 's'})`);
  const seconds = result.elapsedMs / 1000;
  out(`${result.rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s (${Math.round(result.rows / Math.max(seconds, 0.001)).toLocaleString('en-US')} rows/s)` + (result.sequences.length ? `; sequences reset: ${result.sequences.join(', ')}` : ''));
}

/**
 * `db:copy-to-postgres`: moves an installation from its SQLite file to PostgreSQL
 * (docs/deployment.md "Moving from SQLite"). TLS to the target follows DATABASE_SSL and
 * DATABASE_SSL_CA, as for the server.
 */
export const copyToPostgresCommand: StandaloneCommand = {
  summary: 'Copy a SQLite installation into an empty PostgreSQL database (stop the server first)',
  usage: '--from <data/rcs.sqlite> --to <postgres://user@host:5432/db> (default DATABASE_URL) [--chunk-rows 1000]',
  options: { from: { type: 'string' }, to: { type: 'string' }, 'chunk-rows': { type: 'string' } },
  standalone: true,
  async run(values, { out, err }) {
    const fromFlag = flag(values, 'from');
    if (!fromFlag) throw new AppError('VALIDATION_ERROR', '--from is required: the SQLite file of the installation (DATA_DIR/rcs.sqlite)');
    const to = flag(values, 'to') ?? process.env.DATABASE_URL;
    if (!to) throw new AppError('VALIDATION_ERROR', '--to is required (or DATABASE_URL): the PostgreSQL database to copy into, postgres://user:password@host:5432/database');
    const rawChunk = flag(values, 'chunk-rows');
    const chunkRows = rawChunk === undefined ? undefined : Number(rawChunk);
    if (chunkRows !== undefined && (!Number.isInteger(chunkRows) || chunkRows < 1 || chunkRows > 100_000)) {
      throw new AppError('VALIDATION_ERROR', `--chunk-rows must be a whole number from 1 to 100000, got ${rawChunk}`);
    }
    // The same parsing (and the same errors, credentials redacted) as the server's DATABASE_URL.
    const config = loadConfig({ DATABASE_URL: to, DATABASE_SSL: process.env.DATABASE_SSL, DATABASE_SSL_CA: process.env.DATABASE_SSL_CA });
    const from = path.resolve(fromFlag);
    const progress = new CopyProgressReporter(err);
    let result: CopyResult;
    try {
      result = await copySqliteToPostgres({ from, to: config.postgres!, migrations, ...(chunkRows ? { chunkRows } : {}), onProgress: (p) => progress.update(p) });
    } catch (e) {
      progress.abort();
      throw e;
    }
    progress.finish();
    report(result, from, describeTarget(to), out);
    const keyFile = path.join(path.dirname(from), 'sealing.key');
    out('');
    out('Next: start every instance with DATABASE_URL set to this database and the SAME sealing key as the old installation:');
    out(
      fs.existsSync(keyFile)
        ? `  SEALING_KEY="$(cat ${keyFile})" (TOTP secrets, the OAuth signing key and webhook secrets are sealed with it).`
        : '  the SEALING_KEY the old installation used (TOTP secrets, the OAuth signing key and webhook secrets are sealed with it).',
    );
  },
};
