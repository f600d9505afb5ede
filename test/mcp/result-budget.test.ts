import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULT_BUDGET_BYTES } from '../../src/mcp/result-budget.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient } from './helpers.js';

/**
 * Tool results stay within 16 KB (issue #30): a list whose page would be larger is read again as a
 * smaller page by its own service, and a second text block tells the assistant how to get the
 * rest. Following those sentences must give every item exactly once, in order.
 */

type Result = { content: { type: string; text: string }[]; structuredContent: any; isError?: boolean };

let t: TestServer;
let client: Client;
const CONTACTS = 130;
const TEMPLATES = 45;

const call = async (name: string, args: Record<string, unknown>): Promise<Result> => (await client.callTool({ name, arguments: args })) as unknown as Result;
const bytes = (r: Result) => Buffer.byteLength(r.content[0]!.text, 'utf8');

beforeAll(async () => {
  t = await startTestServer();
  // About 450 bytes each: a page of 100 is ~45 KB.
  const contacts = Array.from({ length: CONTACTS }, (_, i) => ({ phone: `+49151${40000000 + i}`, firstName: `F${i}-${'a'.repeat(90)}`, lastName: 'b'.repeat(100), email: `budget${i}@example.com` }));
  const bulk = await t.api('POST', '/api/v1/contacts/bulk', { contacts });
  expect(bulk.body).toMatchObject({ created: CONTACTS });
  for (let i = 0; i < TEMPLATES; i++) {
    const r = await t.api('POST', '/api/v1/templates', { name: `Budget ${String(i).padStart(2, '0')}`, type: 'SMS', content: `T${i} ${'y'.repeat(900)}` });
    expect(r.status).toBe(201);
  }
  client = await mcpClient(t.url, t.account.apiKey);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('a list over the budget', () => {
  it('list_contacts: smaller pages whose notes lead through every contact exactly once', async () => {
    const seen: string[] = [];
    let args: Record<string, unknown> = { limit: 100 };
    let pages = 0;
    for (;;) {
      const r = await call('list_contacts', args);
      expect(r.isError).toBeFalsy();
      expect(bytes(r)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
      const page = r.structuredContent;
      seen.push(...page.data.map((c: { id: string }) => c.id));
      pages++;
      if (!page.pagination.hasNext) break;
      // A trimmed page's note names the arguments of the next call, which the assistant copies;
      // pages that fit go on by pagination.nextCursor as usual.
      const note = r.content[1]?.text;
      if (pages === 1) expect(note).toMatch(/^Only \d+ of up to 100 items fit in one result of 16 KB/);
      if (note !== undefined) {
        const cursor = /cursor: ("[^"]+")/.exec(note)?.[1];
        expect(JSON.parse(cursor!)).toBe(page.pagination.nextCursor);
        args = { limit: Number(/limit: (\d+) and cursor/.exec(note)?.[1]), cursor: JSON.parse(cursor!) };
      } else args = { ...args, cursor: page.pagination.nextCursor };
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBeGreaterThan(2);
    expect(new Set(seen).size).toBe(CONTACTS);
    expect(seen).toHaveLength(CONTACTS);
    // Same order as REST's own pages of a size that needs no trimming.
    const rest = [...(await t.api('GET', '/api/v1/contacts?limit=100')).body.data];
    const more = await t.api('GET', `/api/v1/contacts?limit=100&cursor=${encodeURIComponent((await t.api('GET', '/api/v1/contacts?limit=100')).body.pagination.nextCursor)}`);
    rest.push(...more.body.data);
    expect(seen).toEqual(rest.map((c: { id: string }) => c.id));
  });

  it('list_templates (page numbers): page 2 of 20 keeps its first item, and the next pages follow on', async () => {
    const all = (await t.api('GET', '/api/v1/templates?limit=100')).body.data.map((x: { id: string }) => x.id);
    expect(all).toHaveLength(TEMPLATES);
    const r = await call('list_templates', { page: 2, limit: 20 });
    expect(bytes(r)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    const first = r.structuredContent.data.map((x: { id: string }) => x.id);
    expect(first.length).toBeLessThan(20);
    expect(20 % first.length).toBe(0); // the new page size divides the offset 20
    expect(first).toEqual(all.slice(20, 20 + first.length));
    const seen = [...first];
    // The note names the next call; after it, the pages go on as numbered (or as the next note says).
    let page = Number(/page: (\d+)/.exec(r.content[1]!.text)![1]);
    let limit = Number(/and limit: (\d+)/.exec(r.content[1]!.text)![1]);
    expect(limit).toBe(first.length);
    for (let i = 0; i < 20; i++) {
      const next = await call('list_templates', { page, limit });
      expect(bytes(next)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
      seen.push(...next.structuredContent.data.map((x: { id: string }) => x.id));
      const note = next.content[1]?.text;
      if (note !== undefined && /page: \d+/.test(note)) {
        page = Number(/page: (\d+)/.exec(note)![1]);
        limit = Number(/and limit: (\d+)/.exec(note)![1]);
      } else if (next.structuredContent.pagination.page < next.structuredContent.pagination.totalPages) page++;
      else break;
    }
    expect(seen).toEqual(all.slice(20));
  });

  it('get_group members (offset): a smaller page from the same offset, and the note names the next offset', async () => {
    const group = (await t.api('POST', '/api/v1/groups', { name: 'Budget group' })).body.data;
    const ids = (await t.api('GET', '/api/v1/contacts?limit=100')).body.data.map((c: { id: string }) => c.id);
    expect((await t.api('POST', `/api/v1/groups/${group.id}/contacts`, { contactIds: ids })).status).toBe(200);
    const r = await call('get_group', { id: group.id, includeContacts: true, limit: 100, offset: 10 });
    expect(bytes(r)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    const got = r.structuredContent.data.contacts.length;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(90);
    expect(r.content[1]!.text).toContain(`offset: ${10 + got} and limit: ${got}`);
    const next = await call('get_group', { id: group.id, includeContacts: true, limit: got, offset: 10 + got });
    const full = (await t.api('GET', `/api/v1/groups/${group.id}?includeContacts=true&limit=100`)).body.data.contacts.map((c: { id: string }) => c.id);
    const pages = [...r.structuredContent.data.contacts, ...next.structuredContent.data.contacts].map((c: { id: string }) => c.id);
    expect(pages).toEqual(full.slice(10, 10 + pages.length));
    // Without members the group is one small resource: no note.
    expect((await call('get_group', { id: group.id })).content).toHaveLength(1);
  });

  it('a page that fits is answered as it was: one text block, the limit asked for', async () => {
    const r = await call('list_contacts', { limit: 10 });
    expect(r.content).toHaveLength(1);
    expect(r.structuredContent.data).toHaveLength(10);
    expect(r.structuredContent.pagination.limit).toBe(10);
  });
});

describe('results that are not lists', () => {
  it('every read-only tool without arguments answers within the budget', async () => {
    const over: string[] = [];
    for (const tool of ALL_TOOLS.filter((x) => x.annotations.readOnlyHint)) {
      const r = await call(tool.name, {});
      if (!r.isError && bytes(r) > RESULT_BUDGET_BYTES && !tool.paging) over.push(`${tool.name}: ${bytes(r)} bytes`);
    }
    expect(over).toEqual([]);
  });
});
