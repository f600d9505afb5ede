/**
 * `npm start`: build only when a source changed, then run the server in this same process.
 *
 * The build is TypeScript's own incremental one (`tsc -b tsconfig.build.json`, its tsbuildinfo in
 * dist/), then the one-file server (scripts/bundle.mjs, dist/server.mjs), which is what runs.
 * Loading TypeScript just to hear "up to date" costs ~0.5–1.5 s, so it is skipped when no input is
 * newer than dist/.tsbuildinfo and the bundle — the same timestamp rule `tsc -b` applies first. The
 * inputs looked at are a superset of what tsc reads (every file and directory under the built
 * folders, the tsconfigs and package.json; a directory's time catches a deleted or renamed file),
 * so any doubt runs `tsc -b`, which decides for itself. A fresh checkout has no dist/: full build.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLE, bundleServer } from './bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = ['src', 'tools', 'oauth', 'preview-pages'];
// The bundle holds the packages' code too: an install (npm rewrites node_modules/.package-lock.json) rebuilds it.
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];
const buildInfo = path.join(root, 'dist', '.tsbuildinfo');

/** True when some input's modification time is after `since` (ms), or an input cannot be read. */
function changedSince(since) {
  const newer = (p) => fs.statSync(p).mtimeMs > since;
  const walk = (dir) => {
    if (newer(dir)) return true;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory() ? walk(p) : newer(p)) return true;
    }
    return false;
  };
  try {
    return CONFIGS.some((f) => fs.existsSync(path.join(root, f)) && newer(path.join(root, f))) || BUILT.some((d) => walk(path.join(root, d)));
  } catch {
    return true;
  }
}

// What runs: the server bundled into one file (scripts/bundle.mjs), built from the same sources after tsc -b.
const entry = BUNDLE;
let builtAt = 0;
try {
  // The older of the two outputs counts: a `tsc -b` run by hand updates the build info but not the bundle.
  if (fs.existsSync(entry)) builtAt = Math.min(fs.statSync(buildInfo).mtimeMs, fs.statSync(entry).mtimeMs);
} catch {
  // no build yet
}
if (builtAt === 0 || changedSince(builtAt)) {
  const started = new Date();
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-b', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  await bundleServer();
  // tsc -b leaves its tsbuildinfo alone when it finds the build up to date, so an input only this
  // script looks at (package.json, a directory) would send every later start through tsc again.
  // Stamped with the time tsc started: whatever was edited while it ran stays newer.
  if (fs.statSync(buildInfo).mtimeMs < started.getTime()) fs.utimesSync(buildInfo, started, started);
}
await import(pathToFileURL(entry).href);
