import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * /openapi.json as the tools integrators feed it to (issue #30): swagger-parser validates it, and
 * Redocly CLI's recommended rules (redocly.yaml) find no error and only the warnings that file
 * explains. Both run offline on the document of a real server.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let t: TestServer;
let dir: string;
let file: string;
let doc: Record<string, any>;

beforeAll(async () => {
  t = await startTestServer({ workers: false });
  const r = await t.api('GET', '/openapi.json', undefined, { key: null });
  doc = r.body as Record<string, any>;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
});
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

describe('/openapi.json against the OpenAPI tools', () => {
  it('passes @apidevtools/swagger-parser validation (every $ref resolves, the schema of OpenAPI 3.1 holds)', async () => {
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('keeps named schemas in components.schemas, no $defs refs, one shared error shape', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('#/$defs/');
    expect(text).not.toContain('"$defs"');
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const name of new Set(refs)) expect(doc.components.schemas[name], name).toBeDefined();
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ErrorResponse', 'Media', 'Action', 'Suggestion', 'CarouselCard']));
    expect(doc.paths['/api/v1/contacts/{id}'].get.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });

  it("passes Redocly's recommended rules with 0 errors and only the warnings redocly.yaml explains", async () => {
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const run = promisify(execFile);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // Exit code 1 when there are errors: read the JSON report either way.
    const out = await run(process.execPath, [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'], { env, cwd: dir, maxBuffer: 64 << 20 }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
    );
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as { problems: RedoclyProblem[] };
    const seen = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}`);
    expect(seen.filter((p) => p.startsWith('error')), report.problems.map((p) => p.message).join('\n')).toEqual([]);
    expect(seen.sort()).toEqual([
      'warn no-ambiguous-paths #/paths/~1api~1v1~1contacts~1{id}~1consent',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1contacts~1{id}~1fields',
      'warn operation-4xx-response #/paths/~1api~1rcs~1health/get/responses',
    ]);
  });
});
