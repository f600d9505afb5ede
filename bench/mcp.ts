/**
 * MCP endpoint throughput: tools/call of list_sendernames (a read through the database) and
 * rcs_validate (pure validation) over loopback, against a bare express JSON echo measured in the
 * same run. Bar: each tool call reaches ≥ 60% of the echo's requests/s. Also prints the byte size
 * of the full tools/list answer.
 *
 *   npx tsx bench/mcp.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { ALL_PERMISSIONS } from '../src/platform/permissions.js';
import { listen } from '../src/server.js';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = 16;

interface Figures {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

async function load(name: string, url: string, headers: Record<string, string>, payload: string): Promise<Figures> {
  const dispatcher = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  const warmUntil = Date.now() + 500;
  while (Date.now() < warmUntil) {
    const r = await request(url, { method: 'POST', headers, body: payload, dispatcher });
    await r.body.text();
  }
  const end = Date.now() + DURATION_MS;
  const started = process.hrtime.bigint();
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const t0 = process.hrtime.bigint();
        const r = await request(url, { method: 'POST', headers, body: payload, dispatcher });
        const text = await r.body.text();
        if (r.statusCode !== 200 || text.includes('"isError":true')) failures++;
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await dispatcher.close();
  if (failures > 0) throw new Error(`${name}: ${failures} failed requests`);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { name, requests: latencies.length, rps: latencies.length / seconds, p50: pct(50), p99: pct(99) };
}

export async function run(): Promise<{ echo: Figures; tools: Figures[]; toolsListBytes: number; pass: boolean }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-mcp-'));
  const ctx = await createContext(loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }), { logger: createLogger('silent') });
  const server = await listen(ctx, 0, '127.0.0.1');
  const account = await ctx.services.accounts.create({ name: 'Bench', credits: 10 });
  await ctx.services.senders.create(account.id, { name: 'Bench RCS', type: 'RCS', status: 'APPROVED' });
  await ctx.services.senders.create(account.id, { name: 'BENCH', type: 'SMS', status: 'APPROVED' });
  const { key } = await ctx.services.apiKeys.create(account.id, 'bench', ALL_PERMISSIONS);

  // The baseline: express with the same JSON body parser, echoing the body back.
  const echoApp = express();
  echoApp.use(express.json());
  echoApp.post('/echo', (req, res) => res.json({ jsonrpc: '2.0', id: 1, result: req.body }));
  const echo = http.createServer(echoApp);
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/echo`;

  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key };
  const call = (name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const card = {
    messageType: 'richCard',
    content: {
      title: 'Spring sale',
      description: 'Hello {{contact_first_name}}, 20% off everything today only.',
      media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://example.com/img.jpg', contentType: 'image/jpeg' } },
      suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }, { action: { text: 'Open', type: 'openUrl', openUrlAction: { url: 'https://example.com' } } }],
    },
  };

  const list = await request(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  const toolsListBytes = Buffer.byteLength(await list.body.text());

  const echoFig = await load('express JSON echo (baseline)', echoUrl, { 'content-type': 'application/json' }, call('list_sendernames', {}));
  const tools = [
    await load('tools/call list_sendernames', `${server.url}/mcp`, headers, call('list_sendernames', {})),
    await load('tools/call rcs_validate', `${server.url}/mcp`, headers, call('rcs_validate', card)),
  ];

  echo.close();
  await server.close();
  await ctx.database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const pass = tools.every((t) => t.rps >= 0.6 * echoFig.rps);
  return { echo: echoFig, tools, toolsListBytes, pass };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const r = await run();
  const row = (f: Figures, base: number) => `${f.name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  (${((f.rps / base) * 100).toFixed(0)}% of echo)`;
  console.log(`MCP over loopback, ${CONCURRENCY} concurrent connections, ${DURATION_MS} ms each, ${os.cpus().length} cores`);
  console.log(row(r.echo, r.echo.rps));
  for (const t of r.tools) console.log(row(t, r.echo.rps));
  console.log(`tools/list response: ${r.toolsListBytes} bytes`);
  console.log(`bar: each tool call ≥ 60% of the echo → ${r.pass ? 'PASS' : 'FAIL'}`);
}
