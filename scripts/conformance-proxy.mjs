// A pass-through HTTP proxy for the MCP conformance runner: the runner's client sends no
// credentials, /mcp needs an API key. Every request is forwarded unchanged (Host and Origin
// included, so the DNS-rebinding checks still reach the server) with X-API-Key added.
//   node scripts/conformance-proxy.mjs <listen-port> <upstream-url> <api-key>
import http from 'node:http';

const [port, upstream, key] = process.argv.slice(2);
const target = new URL(upstream);
http
  .createServer((req, res) => {
    const headers = { ...req.headers, 'x-api-key': key };
    const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    req.pipe(out);
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`proxy on ${port} → ${upstream}`));
