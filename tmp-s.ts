import { listedTools } from './src/mcp/catalog.js';
const all = listedTools({ toolsets: null, readOnly: false });
for (const t of [...all].sort((a, b) => JSON.stringify(b.inputSchema).length - JSON.stringify(a.inputSchema).length).slice(0, 12)) console.log(JSON.stringify(t.inputSchema).length, t.name, JSON.stringify(t.inputSchema).slice(0, 1500));
