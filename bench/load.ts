/**
 * HTTP load generator, run as its own process so it does not share the server's event loop:
 *   npx tsx bench/load.ts <url> <durationMs> <concurrency> <headers-json> <body>
 * Prints {requests, rps, p50, p99, failures, warmRequests} as JSON on stdout (warmRequests: the
 * unmeasured requests of the 300 ms warm-up).
 */
import { Agent, request } from 'undici';

const [url, durationArg, concurrencyArg, headersJson, body] = process.argv.slice(2);
const durationMs = Number(durationArg);
const concurrency = Number(concurrencyArg);
const headers = JSON.parse(headersJson!) as Record<string, string>;
const dispatcher = new Agent({ connections: concurrency, pipelining: 1 });

const once = async () => {
  const r = await request(url!, { method: 'POST', headers, body: body!, dispatcher });
  const text = await r.body.text();
  return r.statusCode === 200 && !text.includes('"isError":true');
};

const warmUntil = Date.now() + 300;
let warmRequests = 0;
for (; Date.now() < warmUntil; warmRequests++) await once();
const latencies: number[] = [];
let failures = 0;
const end = Date.now() + durationMs;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      if (!(await once())) failures++;
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
await dispatcher.close();
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
process.stdout.write(JSON.stringify({ requests: latencies.length, rps: latencies.length / seconds, p50: pct(50), p99: pct(99), failures, warmRequests }));
