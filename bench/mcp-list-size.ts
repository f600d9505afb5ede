/**
 * Size of the tools/list answer (the JSON-RPC result as /mcp serves it), in full and per toolset,
 * against the bars of issue #16 / DESIGN §6: full list ≤ 60 KB, no toolset above 25 KB. Also the
 * biggest tools, so a regression points at its cause.
 *
 *   npx tsx bench/mcp-list-size.ts
 */
import { listedTools } from '../src/mcp/catalog.js';
import { TOOLSETS } from '../tools/types.js';

export const FULL_LIST_MAX_BYTES = 60 * 1024;
export const TOOLSET_MAX_BYTES = 25 * 1024;

/** Bytes of `{"tools":[…]}` as tools/list answers it (UTF-8). */
export function listBytes(toolsets: ReadonlySet<(typeof TOOLSETS)[number]> | null): number {
  return Buffer.byteLength(JSON.stringify({ tools: listedTools({ toolsets, readOnly: false }) }));
}

export function measure(): { full: number; toolsets: Record<string, number>; biggest: Array<[string, number]>; pass: boolean } {
  const full = listBytes(null);
  const toolsets = Object.fromEntries(TOOLSETS.map((s) => [s, listBytes(new Set([s]))]));
  const biggest = listedTools({ toolsets: null, readOnly: false })
    .map((t) => [t.name, Buffer.byteLength(JSON.stringify(t))] as [string, number])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  const pass = full <= FULL_LIST_MAX_BYTES && Object.values(toolsets).every((n) => n <= TOOLSET_MAX_BYTES);
  return { full, toolsets, biggest, pass };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = measure();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`tools/list, all tools: ${kb(r.full)} (bar ${kb(FULL_LIST_MAX_BYTES)}) ${r.full <= FULL_LIST_MAX_BYTES ? 'ok' : 'OVER'}`);
  for (const [name, n] of Object.entries(r.toolsets)) console.log(`  toolset ${name.padEnd(16)} ${kb(n).padStart(9)} (bar ${kb(TOOLSET_MAX_BYTES)}) ${n <= TOOLSET_MAX_BYTES ? 'ok' : 'OVER'}`);
  console.log('biggest tools:');
  for (const [name, n] of r.biggest) console.log(`  ${name.padEnd(36)} ${kb(n).padStart(9)}`);
  console.log(r.pass ? 'PASS' : 'FAIL');
  process.exitCode = r.pass ? 0 : 1;
}
