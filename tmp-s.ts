import { ALL_TOOLS } from './tools/index.js';
import { toolJsonSchema } from './src/mcp/tool-schemas.js';
const descs = new Map<string, number>();
const walk = (v: any) => { if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v === 'object') { for (const [k, x] of Object.entries(v)) { if (k === 'description' && typeof x === 'string') descs.set(x, (descs.get(x) ?? 0) + 1); else walk(x); } } };
const rows: [string, number, number][] = [];
for (const t of ALL_TOOLS) { const j = toolJsonSchema(t.input, 'input'); walk(j); rows.push([t.name, JSON.stringify(j).length, t.description.length]); }
rows.sort((a, b) => b[1] - a[1]); console.log(rows.slice(0, 25).map(r => r.join(' ')).join('\n'));
let tot = 0; for (const [d, n] of descs) tot += d.length * n; console.log('desc bytes', tot);
console.log([...descs].filter(([d, n]) => n > 1).sort((a, b) => b[0].length * b[1] - a[0].length * a[1]).slice(0, 15).map(([d, n]) => `${n} × ${d.length}: ${d.slice(0, 90)}`).join('\n'));
