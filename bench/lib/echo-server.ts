/**
 * The reference of bench/mcp.ts in a process of its own: express with the same JSON body parser as
 * /mcp, answering `{jsonrpc, id, result: body}`. Prints its URL on stdout and runs until killed.
 *
 *   npx tsx bench/lib/echo-server.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.use(express.json());
app.post('/echo', (req, res) => res.json({ jsonrpc: '2.0', id: 1, result: req.body as unknown }));
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/echo\n`));
