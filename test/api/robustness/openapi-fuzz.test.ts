import http from 'node:http';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Every operation of /openapi.json, fed what a careless or hostile client sends (issue #30): bad
 * percent-escapes in path parameters, invalid UTF-8, wrong Content-Type and Content-Encoding,
 * oversize and deeply nested bodies, JSON that is not an object, wrong types for every declared
 * field, missing required fields, one past every maxLength / maxItems / maximum, and random JSON
 * (fast-check, fixed seed) — with a real key so requests get past authentication, and without.
 * No answer may be a 5xx; every 4xx has the project's error shape; the server logs no error and
 * no stack trace. The operations come from the document, so a new route is fuzzed the day it is added.
 */
const SEED = 20261127;
const RANDOM_RUNS = 12;
const CONCURRENCY = 4;

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Schema;
}
interface Case {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send the account's key (default) or nothing. */
  key?: boolean;
}
interface Answer {
  status: number;
  text: string;
}

let t: TestServer;
let doc: Schema;
let operations: Operation[] = [];
const logLines: string[] = [];
/** Real ids of the account's rows, so requests to `/{id}` routes get past the lookup to the body checks. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  // TRUST_PROXY: each request names another client address (X-Forwarded-For), so the sandbox's
  // per-address limit (20 a minute) does not answer 429 before the body is even looked at.
  t = await startTestServer({ workers: false, env: { TRUST_PROXY: 'true' }, logger: pino({ level: 'warn', base: undefined }, sink) });
  doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body as Schema;
  operations = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method, path, op })));
  // Deletes last, so the rows above stay for the other routes.
  operations.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));

  const created = async (path: string, body: unknown): Promise<string> => {
    const r = await t.api('POST', path, body);
    expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body.data.id as string;
  };
  ids.contact = await created('/api/v1/contacts', { phone: '+4915112345678', firstName: 'Fuzz' });
  ids.group = await created('/api/v1/groups', { name: 'Fuzz group' });
  ids.field = await created('/api/v1/contacts/fields', { name: 'Fuzz field', tag: 'fuzz_field' });
  ids.template = await created('/api/v1/templates', { name: 'Fuzz template', type: 'SMS', content: 'Hello' });
  ids.form = await created('/api/v1/forms', { name: 'Fuzz form', doubleOptIn: false });
  const message = { messageType: 'text', content: { text: 'Hello' }, sendernameId: t.account.senders.rcs };
  const preview = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: '+4915112345679', ...message });
  const sent = await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915112345670', ...message });
  const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: ['+4915112345671', '+4915112345672'], ...message, scheduleAt: '2099-01-01T10:00:00Z' });
  ids.preview = preview.body.data.preview_id;
  ids.message = sent.body.messageRecordId;
  ids.job = batch.body.jobId;
  for (const [what, id] of Object.entries(ids)) expect(id, what).toMatch(/^[a-z]+_[0-9A-Z]{26}$/);
}, 60_000);
afterAll(async () => {
  agent.destroy();
  await t?.close();
});

let sent = 0;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function send(c: Case): Promise<Answer> {
  const u = new URL(t.url);
  const n = ++sent;
  const client = `198.18.${(n >> 8) & 255}.${n & 255}`;
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Forwarded-For': client, ...(c.key !== false && { 'X-API-Key': t.account.apiKey }), ...c.headers };
  if (c.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(c.body));
  // A body the server may refuse before reading all of it (oversize, or a Content-Encoding) goes on a
  // connection of its own: the server closes that connection after answering.
  const refusedUnread = c.body !== undefined && (Buffer.byteLength(c.body) > 1024 * 1024 || 'Content-Encoding' in headers);
  const attempt = (retry: boolean): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, method: c.method.toUpperCase(), path: c.path, headers, agent: refusedUnread ? false : agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed just as it was reused: Node's documented retry.
        if (retry && req.reusedSocket && err.code === 'ECONNRESET') return resolve(attempt(false));
        // Refused unread: the answer (413) may be lost when the server closes while the body is still being written.
        if (refusedUnread && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) return resolve({ status: 413, text: '' });
        reject(err);
      });
      if (c.body !== undefined) req.write(c.body);
      req.end();
    });
  return attempt(true);
}

/** What is wrong with an answer, or null: no 5xx, and a 4xx carries `{success: false, error: {code, message}}`. */
function fault(a: Answer): string | null {
  if (a.status >= 500) return `${a.status} ${a.text.slice(0, 300)}`;
  if (a.status < 400 || a.text === '') return null;
  try {
    const body = JSON.parse(a.text) as { success?: unknown; error?: { code?: unknown; message?: unknown } };
    if (body.success === false && typeof body.error?.code === 'string' && typeof body.error.message === 'string') return null;
  } catch {
    // falls through
  }
  return `${a.status} without the error shape: ${a.text.slice(0, 200)}`;
}

async function runAll(cases: Case[]): Promise<string[]> {
  const faults: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const a = await send(c);
      // With the account's key every request must get past authentication, or the case tests nothing.
      const f = c.key !== false && a.status === 401 ? `401 with a valid key: ${a.text.slice(0, 200)}` : fault(a);
      if (f) faults.push(`${c.method.toUpperCase()} ${c.path.slice(0, 120)} [${c.label}]: ${f}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return faults;
}

// ---------------------------------------------------------------------------------------------
// Schemas of the document

function deref(s: Schema | undefined): Schema {
  let x = s ?? {};
  for (let i = 0; i < 10 && typeof x.$ref === 'string'; i++) x = doc.components.schemas[(x.$ref).split('/').pop()!] ?? {};
  return x;
}
const alternatives = (s: Schema): Schema[] | undefined => (s.anyOf ?? s.oneOf) as Schema[] | undefined;
function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return (s.type as string[]).find((x) => x !== 'null');
  if (typeof s.type === 'string') return s.type;
  const alt = alternatives(s);
  if (alt?.[0]) return typeOf(deref(alt[0]));
  return undefined;
}

/** A value the schema accepts, as far as a generic generator can tell: what a field holds before one thing is broken. */
function plausible(schema: Schema | undefined, name = '', depth = 0): unknown {
  const s = deref(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = alternatives(s);
  if (alt?.[0]) return plausible(alt.find((a) => deref(a).type !== 'null') ?? alt[0], name, depth);
  switch (typeOf(s)) {
    case 'string':
      if (s.format === 'date-time') return '2030-01-01T10:00:00Z';
      if (s.format === 'email') return 'fuzz@example.com';
      // Loopback only: nothing here may make the server ask a resolver or reach another host.
      if (s.format === 'uri' || /url/i.test(name)) return 'https://localhost/fuzz.png';
      if (/phone/i.test(name)) return '+4915112345678';
      return 'x'.repeat(Math.max(1, (s.minLength as number | undefined) ?? 1));
    case 'integer':
    case 'number':
      return (s.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 ? [] : Array.from({ length: (s.minItems as number | undefined) ?? 0 }, () => plausible(s.items as Schema, name, depth + 1));
    case 'object': {
      const o: Record<string, unknown> = {};
      if (depth > 4) return o;
      for (const k of (s.required as string[] | undefined) ?? []) o[k] = plausible((s.properties as Record<string, Schema> | undefined)?.[k], k, depth + 1);
      return o;
    }
    default:
      return 'x';
  }
}

// One of each JSON type (numbers that are not integers, strings with a NUL and a lone surrogate); below zero and
// huge numbers come from the stated limits.
const WRONG_VALUES: unknown[] = [12345, 1.5, 'str', '\u0000\ud800', true, null, [1, 'a'], { a: { b: 1 } }];

/** Below the top level, one value per JSON kind is enough (and keeps the run under a minute on PostgreSQL). */
const NESTED_WRONG_VALUES: unknown[] = [12345, 'str', null, { a: { b: 1 } }];

function wrongTypes(s: Schema, topLevel = false): unknown[] {
  const type = typeOf(s);
  const same = (v: unknown): boolean =>
    (type === 'string' && typeof v === 'string') || ((type === 'number' || type === 'integer') && typeof v === 'number') || (type === 'boolean' && typeof v === 'boolean') || (type === 'array' && Array.isArray(v));
  // A long string only at the top: at every depth it would make the run slow, not more thorough.
  return (topLevel ? [...WRONG_VALUES, 'x'.repeat(70_000)] : NESTED_WRONG_VALUES).filter((v) => !same(v));
}

/** Strings a database may refuse to store (PostgreSQL text holds no NUL; a lone surrogate is not UTF-8). */
const ODD_STRINGS = ['nul \u0000 byte', 'lone \ud800 surrogate', 'bidi \u202e override', 'emoji 😀 and ZWJ \u200d'];

/** Values one past each limit the schema states, and odd strings for a string. */
function pastLimits(s: Schema, name: string): unknown[] {
  const out: unknown[] = typeOf(s) === 'string' && s.enum === undefined && s.const === undefined ? [...ODD_STRINGS] : [];
  if (typeof s.maxLength === 'number') out.push('x'.repeat(s.maxLength + 1), '€'.repeat(s.maxLength + 1));
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('x'.repeat(s.minLength - 1));
  if (typeof s.maxItems === 'number') out.push(Array.from({ length: s.maxItems + 1 }, () => plausible(s.items as Schema, name, 1)));
  if (typeof s.maximum === 'number') out.push(s.maximum + 1);
  if (typeof s.minimum === 'number') out.push(s.minimum - 1);
  if (typeof s.pattern === 'string') out.push('%%%\u202e<script>');
  if (Array.isArray(s.enum)) out.push('NOT_AN_ENUM_VALUE');
  return out;
}

/**
 * Bodies that each break one thing of a plausible body: every property (to depth 2) of a wrong
 * type, past a limit, or missing when required.
 */
function bodyVariants(schema: Schema): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const base = plausible(schema);
  out.push(['plausible', base]);
  const walk = (s: Schema, at: string[], depth: number) => {
    const props = (deref(s).properties ?? {}) as Record<string, Schema>;
    const required = (deref(s).required ?? []) as string[];
    for (const [name, sub] of Object.entries(props)) {
      const path = [...at, name];
      const d = deref(sub);
      const variants: unknown[] = [...wrongTypes(d, depth === 0), ...pastLimits(d, name)];
      for (const v of variants) out.push([`${path.join('.')}=${JSON.stringify(v)?.slice(0, 40)}`, setAt(base, path, v)]);
      if (required.includes(name)) out.push([`${path.join('.')} missing`, setAt(base, path, undefined)]);
      if (depth < 2 && typeOf(d) === 'object') walk(d, path, depth + 1);
      const items = deref(d.items as Schema | undefined);
      if (depth < 2 && typeOf(d) === 'array' && typeOf(items) === 'object') {
        for (const [iname, isub] of Object.entries((items.properties ?? {}) as Record<string, Schema>)) {
          for (const v of [...wrongTypes(deref(isub)), ...pastLimits(deref(isub), iname)]) {
            out.push([`${path.join('.')}[0].${iname}=${JSON.stringify(v)?.slice(0, 40)}`, setAt(base, path, [{ ...(plausible(items) as object), [iname]: v }])]);
          }
        }
      }
    }
  };
  walk(schema, [], 0);
  return out;
}

/** A copy of `base` with the value at `path` replaced (undefined: removed); parents are created. */
function setAt(base: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(base ?? {}) as Record<string, unknown>;
  let o = copy;
  for (const k of path.slice(0, -1)) {
    if (typeof o[k] !== 'object' || o[k] === null || Array.isArray(o[k])) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  if (value === undefined) delete o[path.at(-1)!];
  else o[path.at(-1)!] = value;
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Requests

/** A path parameter's value: a real row of the account where the route names one, else a well-formed unknown id. */
function paramValue(path: string, name: string): string {
  if (name === 'fieldId') return ids.field!;
  if (path.startsWith('/api/v1/contacts/{id}')) return ids.contact!;
  if (path.startsWith('/api/v1/groups/{id}')) return ids.group!;
  if (path.startsWith('/api/v1/templates/{id}')) return ids.template!;
  if (path.startsWith('/api/v1/forms/{id}')) return ids.form!;
  if (path.startsWith('/api/rcs/previews/{id}')) return ids.preview!;
  if (path.startsWith('/api/messages/{id}')) return ids.message!;
  if (name === 'jobId') return ids.job!;
  if (name === 'phoneNumber') return '%2B4915112345678';
  return 'zz_01JAAAAAAAAAAAAAAAAAAAAAAA';
}
const fill = (path: string, values: Record<string, string> = {}): string => path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? paramValue(path, name));
const params = (o: Operation, where: string): Schema[] => ((o.op.parameters ?? []) as Schema[]).filter((p) => p.in === where);
const bodySchema = (o: Operation): Schema | undefined => o.op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
const json = { 'Content-Type': 'application/json' };

const BAD_ESCAPES = ['%ZZ', '%FF', '%E0%A4%A', '%C0%AF', '%00', '%', '%2e%2e%2f%2e%2e', 'a%0D%0AX-Injected:%201', 'x'.repeat(4000), '%F0%9F%98%80'];
const BAD_QUERY_VALUES = ['%ZZ', '%FF', '%ED%A0%80', 'abc', '-1', '0', '1.5', '1e309', '99999999999999999999999', '', 'null', '%00', 'x'.repeat(3000)];

function pathCases(o: Operation): Case[] {
  return params(o, 'path').flatMap((p) =>
    BAD_ESCAPES.map((v) => ({ label: `path ${p.name as string}=${v.slice(0, 20)}`, method: o.method, path: fill(o.path, { [p.name as string]: v }) })),
  );
}

function queryCases(o: Operation): Case[] {
  const base = fill(o.path);
  return params(o, 'query').flatMap((p) => {
    const name = p.name as string;
    const s = deref(p.schema as Schema);
    const values = [...BAD_QUERY_VALUES, ...pastLimits(s, name).filter((v) => typeof v !== 'object').map(String)];
    const raw = (q: string): Case => ({ label: `query ${q.slice(0, 40)}`, method: o.method, path: `${base}?${q}` });
    return [
      // A lone surrogate cannot be percent-encoded as UTF-8; '%ED%A0%80' above is its bytes.
      ...values.map((v) => raw(`${name}=${/^%|^$/.test(v) ? v : encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '?'))}`)),
      raw(`${name}=1&${name}=2`),
      raw(`${name}[a]=1`),
      raw(`${name}[]=1`),
      raw(`${name}`),
    ];
  });
}

function bodyCases(o: Operation): Case[] {
  const path = fill(o.path);
  const c = (label: string, body: Buffer | string, headers: Record<string, string> = json): Case => ({ label, method: o.method, path, body, headers });
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const cases: Case[] = [
    c('invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d])),
    c('lone surrogate escape', '{"a":"\\ud800"}'),
    c('broken JSON', '{"a":'),
    c('JSON 42', '42'),
    c('JSON null', 'null'),
    c('JSON string', '"str"'),
    c('JSON array', '[]'),
    c('JSON true', 'true'),
    c('__proto__', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
    c('duplicate keys', '{"a":1,"a":{"b":2}}'),
    c('deep arrays', deep(100_000)),
    c('deep objects', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)),
    c('oversize', `{"a":"${'x'.repeat(2 * 1024 * 1024 + 1)}"}`),
    c('text/plain', '{}', { 'Content-Type': 'text/plain' }),
    c('xml', '<a/>', { 'Content-Type': 'application/xml' }),
    c('multipart', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', { 'Content-Type': 'multipart/form-data; boundary=x' }),
    c('urlencoded', 'a=1&b[c]=2&phone=%FF', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    c('no Content-Type', '{}', {}),
    c('charset latin1', '{}', { 'Content-Type': 'application/json; charset=latin1' }),
    c('charset utf-16', '{}', { 'Content-Type': 'application/json; charset=utf-16' }),
    c('bad media type', '{}', { 'Content-Type': ';;;' }),
    c('gzip that is not', '{}', { ...json, 'Content-Encoding': 'gzip' }),
    c('deflate that is not', '{}', { ...json, 'Content-Encoding': 'deflate' }),
    c('br that is not', '{}', { ...json, 'Content-Encoding': 'br' }),
    c('unknown encoding', '{}', { ...json, 'Content-Encoding': 'compress' }),
    c('gzip bomb', gzipSync(Buffer.from(`{"a":"${' '.repeat(8 * 1024 * 1024)}"}`)), { ...json, 'Content-Encoding': 'gzip' }),
  ];
  const schema = bodySchema(o);
  if (schema) for (const [label, body] of bodyVariants(schema)) cases.push(c(`body ${label}`, JSON.stringify(body)));
  return cases;
}

function authCases(o: Operation): Case[] {
  const path = fill(o.path);
  const body = bodySchema(o) ? JSON.stringify(plausible(bodySchema(o))) : undefined;
  const headers = body ? json : {};
  return [
    { label: 'no key', method: o.method, path, body, headers, key: false },
    { label: 'unknown key', method: o.method, path, body, headers: { ...headers, 'X-API-Key': 'rcs_live_notakey' }, key: false },
    { label: 'bad bearer', method: o.method, path, body, headers: { ...headers, Authorization: 'Bearer a.b.c' }, key: false },
    { label: 'basic auth', method: o.method, path, body, headers: { ...headers, Authorization: 'Basic %%%' }, key: false },
    { label: 'empty key', method: o.method, path, body, headers: { ...headers, 'X-API-Key': '' }, key: false },
  ];
}

describe('every operation of /openapi.json answers malformed input with a 4xx, never a 5xx', () => {
  it('has operations to fuzz', () => {
    expect(operations.length).toBeGreaterThan(80);
  });

  it('bad percent-escapes and odd values in path parameters', async () => {
    expect(await runAll(operations.flatMap(pathCases))).toEqual([]);
  });

  it('query parameters of wrong types, past their limits, repeated and nested', async () => {
    expect(await runAll(operations.flatMap(queryCases))).toEqual([]);
  });

  it('bodies: encodings, media types, sizes, nesting, and each declared field wrong, missing or one past its limit', async () => {
    expect(await runAll(operations.filter((o) => o.method !== 'get').flatMap(bodyCases))).toEqual([]);
  }, 120_000);

  it('without a key, with an unknown key, a bad bearer token or a Basic header', async () => {
    expect(await runAll(operations.flatMap(authCases))).toEqual([]);
  });

  it('random JSON over the declared fields (fast-check, fixed seed)', async () => {
    const faults: string[] = [];
    for (const o of operations.filter((x) => bodySchema(x))) {
      const schema = deref(bodySchema(o));
      const names = Object.keys((schema.properties ?? {}) as object);
      const arb = fc.dictionary(fc.constantFrom(...names, 'unknownField'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: names.length + 1 });
      const path = fill(o.path);
      const result = await fc.check(
        fc.asyncProperty(arb, async (body) => fault(await send({ label: 'random', method: o.method, path, body: JSON.stringify(body), headers: json })) === null),
        { seed: SEED, numRuns: RANDOM_RUNS },
      );
      if (result.failed) faults.push(`${o.method.toUpperCase()} ${o.path}: ${JSON.stringify(result.counterexample)?.slice(0, 300)}`);
    }
    expect(faults).toEqual([]);
  }, 60_000);

  it('logged no error and no stack trace for any of it', () => {
    const bad = logLines.filter((l) => {
      const line = JSON.parse(l) as { level?: number };
      return (line.level ?? 0) >= 50 || l.includes('"stack"');
    });
    expect(bad.map((l) => l.slice(0, 400))).toEqual([]);
  });
});
