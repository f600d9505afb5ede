import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A client generated from the live /openapi.json compiles and works (issue #30): openapi-typescript
 * turns the document into `paths` types, the TypeScript compiler checks test/api/openapi-client/calls.ts
 * against them, and the same calls then run through openapi-fetch against this server.
 *
 * The types are generated at test time, not checked in: the document changes with every route, and a
 * checked-in copy would make each change also a regeneration (and a merge conflict between branches)
 * while testing nothing more — what must not drift is the document itself and code written against it.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CLIENT_DIR = path.join(ROOT, 'test/api/openapi-client');
const CALLS = path.join(CLIENT_DIR, 'calls.ts');
/** Where calls.ts imports the generated types from; never written there, served to the compiler below. */
const SCHEMA = path.join(CLIENT_DIR, 'schema.d.ts');

interface CallsModule {
  exerciseGeneratedClient(opts: { baseUrl: string; apiKey: string; rcsSender: string; phone: string }): Promise<void>;
}

let t: TestServer;
let generated: string;
let dir: string;

beforeAll(async () => {
  t = await startTestServer({ workers: false });
  const doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body as Record<string, unknown>;
  generated = astToString(await openapiTS(doc as never));
  // A copy to read when the compiler complains.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-client-'));
  fs.writeFileSync(path.join(dir, 'schema.d.ts'), generated);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The project's compiler options, with the generated types standing in for test/api/openapi-client/schema.d.ts. */
function typeErrors(): string[] {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const { fileExists, readFile } = host;
  host.fileExists = (f) => path.resolve(f) === SCHEMA || fileExists.call(host, f);
  host.readFile = (f) => (path.resolve(f) === SCHEMA ? generated : readFile.call(host, f));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, ...rest) => (path.resolve(f) === SCHEMA ? ts.createSourceFile(f, generated, lang) : getSourceFile(f, lang, ...rest));
  const program = ts.createProgram({ rootNames: [CALLS], options: { ...options, noEmit: true }, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  it('generates types with every operation and the shared error shape', () => {
    expect(generated).toContain('"/api/v1/contacts/{id}": {');
    expect(generated).toContain('ErrorResponse: {');
    // openapi-typescript writes the document's root $defs as a type: empty, every named schema is a component.
    expect(generated).toContain('export type $defs = Record<string, never>;');
  });

  it('type-checks the calling code against the generated types', () => {
    expect(fs.existsSync(SCHEMA), 'the generated types are never checked in').toBe(false);
    expect(typeErrors()).toEqual([]);
  }, 60_000);

  it('calls a dozen routes through the generated client: contacts CRUD, groups, templates, validate, an idempotent send, the log, health, a 404 and a 400', async () => {
    // Imported by its path in a variable: the project's typecheck must not follow it (its types exist only here).
    const { exerciseGeneratedClient } = (await import(/* @vite-ignore */ CALLS)) as CallsModule;
    await exerciseGeneratedClient({ baseUrl: t.url, apiKey: t.account.apiKey, rcsSender: t.account.senders.rcs, phone: '+4915112340077' });
  });
});
