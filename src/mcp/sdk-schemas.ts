import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { ToolDef } from '../../tools/types.js';
import { AppError } from '../platform/errors.js';
import { zodDetails } from '../platform/validation.js';
import { inputJsonSchema, outputJsonSchema } from './catalog.js';
import { outputMismatch } from './output-check.js';

/**
 * The Standard Schema objects each tool is registered with on the SDK's McpServer (server.ts).
 * Built once per tool at first use, never per request: the per-request factory only hands them over.
 *
 * The JSON Schema the SDK lists comes from catalog.ts (the one place the listed schemas are
 * built), so tools/list shows exactly what it showed before and what clients validate against.
 *
 * Input: the SDK calls `validate` at its input seam on every tools/call. Arguments that fail the
 * tool's zod schema are the caller's mistake and must reach the assistant as our VALIDATION_ERROR
 * tool result (code, paths, nextStep); the SDK would turn a failed Standard Schema into a
 * plain-text "Input validation error: …" result instead. So a failed parse is handed on as a
 * value the handler answers with that error (ParsedInput), a successful one as the parsed data.
 *
 * Output: `validate` is the check a client runs on structuredContent — the listed outputSchema
 * with Ajv (output-check.ts) — so the SDK refuses on the server what a strict client would refuse.
 */
export type ParsedInput = { ok: true; data: Record<string, unknown> } | { ok: false; error: AppError };

export interface ToolSchemas {
  input: StandardSchemaWithJSON<unknown, ParsedInput>;
  output: StandardSchemaWithJSON<unknown, Record<string, unknown>>;
}

const VENDOR = 'rcs-sms-mcp-server';

function inputSchemaOf(tool: ToolDef): ToolSchemas['input'] {
  const json = () => inputJsonSchema(tool);
  return {
    '~standard': {
      version: 1,
      vendor: VENDOR,
      validate(value: unknown) {
        const parsed = tool.input.safeParse(value ?? {});
        if (parsed.success) return { value: { ok: true, data: parsed.data } };
        const details = zodDetails(parsed.error);
        const first = details[0];
        const message = `Invalid arguments for ${tool.name}: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? ''}`;
        return { value: { ok: false, error: new AppError('VALIDATION_ERROR', message, { details }) } };
      },
      jsonSchema: { input: json, output: json },
    },
  };
}

function outputSchemaOf(tool: ToolDef): ToolSchemas['output'] {
  const json = () => outputJsonSchema(tool);
  return {
    '~standard': {
      version: 1,
      vendor: VENDOR,
      validate(value: unknown) {
        const mismatch = outputMismatch(tool, value);
        if (mismatch === undefined) return { value: value as Record<string, unknown> };
        return { issues: [{ message: mismatch }] };
      },
      jsonSchema: { input: json, output: json },
    },
  };
}

const schemas = new WeakMap<ToolDef, ToolSchemas>();

export function toolSchemas(tool: ToolDef): ToolSchemas {
  let s = schemas.get(tool);
  if (!s) schemas.set(tool, (s = { input: inputSchemaOf(tool), output: outputSchemaOf(tool) }));
  return s;
}
