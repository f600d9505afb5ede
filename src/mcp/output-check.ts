import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolDef } from '../../tools/types.js';
import { fullOutputJsonSchema } from './tool-schemas.js';

type Check = (value: unknown) => { valid: boolean; errorMessage?: string };

/**
 * The check a client such as the SDK's own Client runs on structuredContent, with the same
 * validator (Ajv), against the tool's complete output schema (the listed one is its top level). Checking
 * the zod schema instead would let stray fields through (z.object strips them), which is exactly
 * what such a client refuses. Each tool's schema is compiled once, on its first call.
 */
const validator = new AjvJsonSchemaValidator();
const checks = new WeakMap<ToolDef, Check>();

/** Undefined when `value` matches the tool's outputSchema, else Ajv's description of the mismatch. */
export function outputMismatch(tool: ToolDef, value: unknown): string | undefined {
  let check = checks.get(tool);
  if (!check) checks.set(tool, (check = validator.getValidator(fullOutputJsonSchema(tool)) as Check));
  const res = check(value);
  return res.valid ? undefined : (res.errorMessage ?? 'does not match the outputSchema');
}
