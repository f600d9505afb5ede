import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigEnvSchema } from '../../../src/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * The README's tables against what the server really reads and serves (issue #30): the
 * Configuration table lists exactly the environment variables of ConfigEnvSchema, and every
 * /api path of "Where things are" is a route of /openapi.json; no row is listed twice.
 */
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The rows of the table under `## heading`, as arrays of cells. */
function table(heading: string): string[][] {
  const start = readme.indexOf(`## ${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  let seen = false;
  for (const line of readme.slice(start).split('\n').slice(1)) {
    if (line.startsWith('## ')) break;
    if (line.startsWith('|')) {
      seen = true;
      rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
    } else if (seen && line.trim() === '') break;
  }
  return rows.slice(2); // header and separator
}

const codes = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('the README', () => {
  it('Configuration lists exactly the environment variables the server reads', () => {
    const documented = table('Configuration').flatMap((r) => codes(r[0]!));
    const read = Object.keys(ConfigEnvSchema.shape);
    expect([...documented].sort()).toEqual([...new Set(documented)].sort());
    expect(new Set(documented)).toEqual(new Set(read));
  });

  it('"Where things are" lists each URL once, and every /api path is a route of /openapi.json', async () => {
    const rows = table('Where things are');
    const first = rows.map((r) => r[0]!);
    expect(first.length).toBe(new Set(first).size);
    const urls = first.flatMap(codes);
    expect(urls.filter((x) => x.startsWith('/api/')).length).toBeGreaterThan(5);
    expect(urls.length).toBe(new Set(urls).size);
    const doc = (await t.api('GET', '/openapi.json')).body as { paths: Record<string, unknown>; servers?: { url: string }[] };
    const paths = Object.keys(doc.paths);
    const base = new URL(doc.servers?.[0]?.url ?? t.url).pathname.replace(/\/$/, '');
    const asPattern = (p: string) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+').replace(/\*/g, '.*')}$`);
    for (const u of urls.filter((x) => x.startsWith('/api/'))) {
      const path = u.split('?')[0]!.replace(/\/\*$/, '');
      const known = paths.some((p) => asPattern(path).test(`${base}${p}`) || `${base}${p}`.startsWith(`${path}/`) || `${base}${p}` === path);
      expect(known, `${u} is not a route of /openapi.json`).toBe(true);
    }
  });
});
