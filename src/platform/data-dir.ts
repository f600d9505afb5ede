import fs from 'node:fs';
import path from 'node:path';

/**
 * The data directory holds the database, the sealing key and (once) the first-start credentials:
 * only the server's user may read it. Modes are set with chmod after creating, because mkdir and
 * open apply the umask, and looser modes found on an existing directory or file are tightened.
 */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

export interface ModeChange {
  path: string;
  from: string;
  to: string;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Sets `target` when the mode gives anything to group or others; returns what it changed. */
function tighten(file: string, target: number): ModeChange | null {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if ((mode & 0o077) === 0) return null;
  fs.chmodSync(file, target);
  return { path: file, from: octal(mode), to: octal(target) };
}

/** Creates the directory 0700 (with missing parents), or tightens an existing one. */
export function secureDirectory(dir: string): ModeChange[] {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
    fs.chmodSync(dir, DATA_DIR_MODE);
    return [];
  }
  const changed = tighten(dir, DATA_DIR_MODE);
  return changed ? [changed] : [];
}

/**
 * Creates the SQLite file 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
 * database file's mode), and tightens the three files when they exist with looser modes.
 */
export function secureDatabaseFiles(file: string): ModeChange[] {
  if (file === ':memory:') return [];
  const out: ModeChange[] = [];
  // A directory created here is private; an existing one outside DATA_DIR is the operator's choice.
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) secureDirectory(dir);
  const fd = fs.openSync(file, 'a', DATA_FILE_MODE);
  fs.closeSync(fd);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    const changed = tighten(f, DATA_FILE_MODE);
    if (changed) out.push(changed);
  }
  return out;
}

/** Writes a file only the server's user can read (mode set after creation, whatever the umask). */
export function writePrivateFile(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: DATA_FILE_MODE });
  fs.chmodSync(file, DATA_FILE_MODE);
}

/** Tightens an existing private file (the sealing key) to 0600 when group or others may read it; null when it was fine or is missing. */
export function securePrivateFile(file: string): ModeChange | null {
  return tighten(file, DATA_FILE_MODE);
}
