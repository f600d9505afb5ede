import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { malformedParams } from '../../src/mcp/params-check.js';

// The schemas of params-check.ts, here so the short cut (issue #31) is compared with zod's own answer.
const PARAMS: Record<string, z.ZodType> = {
  'tools/call': z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional(), _meta: z.record(z.string(), z.unknown()).optional() }),
  'tools/list': z.looseObject({ cursor: z.string().optional(), _meta: z.record(z.string(), z.unknown()).optional() }).optional(),
};

const field = fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.dictionary(fc.constantFrom('a', 'constructor', '__proto__', 'toString'), fc.jsonValue(), { maxKeys: 3 }));
const params = fc.oneof(
  fc.jsonValue(),
  fc.record({ name: fc.oneof(fc.string(), fc.jsonValue()), arguments: field, _meta: field, cursor: field, constructor: fc.oneof(fc.constant(undefined), fc.jsonValue()) }, { requiredKeys: [] }),
);

describe('malformedParams short cut', () => {
  it('refuses exactly what zod refuses, for JSON-parsed params of tools/call and tools/list', () => {
    fc.assert(
      fc.property(fc.constantFrom('tools/call', 'tools/list'), params, (method, p) => {
        // Through JSON, as express.json hands the body over ("__proto__" and "constructor" become own keys).
        const body = JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: p })) as unknown;
        const parsedParams = (body as { params?: unknown }).params;
        expect(malformedParams(body) === null).toBe(PARAMS[method]!.safeParse(parsedParams).success);
      }),
      { numRuns: 3000 },
    );
  });
});
