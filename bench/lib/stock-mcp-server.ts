/**
 * The comparison of bench/mcp.ts, in a process of its own: a stock createMcpHandler server (one trivial tool, express +
 * toNodeHandler, mounted as the SDK's docs show). Prints its URL on stdout and runs until killed. In the bench's own
 * process it left its garbage — about five times our server's allocation per call — to be collected during whichever
 * case came next, our server's first 2025 cases of the following round.
 *
 *   npx tsx bench/lib/stock-mcp-server.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'stock', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echo', inputSchema: z.object({ text: z.string().optional() }) }, async ({ text }) => ({ content: [{ type: 'text', text: text ?? '' }] }));
  return server;
});
const node = toNodeHandler(handler);
const app = express();
app.use(express.json());
app.all('/mcp', (req, res) => void node(req, res, req.body));
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`));
