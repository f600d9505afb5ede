import type { CallToolResult } from '@modelcontextprotocol/server';
import { runTool, type ToolDef } from '../../tools/types.js';
import type { McpDeps } from './deps.js';
import { AppError } from '../platform/errors.js';
import type { Principal } from '../platform/permissions.js';
import { outputMismatch } from './output-check.js';
import { fitResult } from './result-budget.js';
import type { ParsedInput } from './sdk-schemas.js';
import { isCallerError, toolError } from './tool-errors.js';
import { unstorableTextError } from '../platform/db/sql-errors.js';

/** What a tool call ended in: the result, or the caller error it was refused with (approval.ts reads it). */
export type ToolOutcome = { result: CallToolResult; error?: AppError };

/** The FORBIDDEN result for a tool the principal lacks a permission of, naming the missing ones. */
export function forbidden(tool: ToolDef, principal: Principal): AppError | null {
  const missing = tool.permissions.filter((p) => !principal.permissions.has(p));
  if (missing.length === 0) return null;
  return new AppError('FORBIDDEN', `This connection lacks the permission ${missing.join(', ')} needed by ${tool.name}`, { extra: { requiredPermissions: missing } });
}

/**
 * One tools/call after the SDK checked the request and ran the input schema (sdk-schemas.ts):
 * the principal must hold the tool's permissions (checked on every call), the arguments must have
 * parsed. Caller mistakes become tool errors whose nextStep names only tools of `served` (the
 * connection's tools); a result its own outputSchema forbids, or a failure inside, is our bug:
 * logged with its details, answered as a plain INTERNAL tool error that says nothing about the
 * server's insides.
 */
export async function callTool(app: McpDeps, principal: Principal, tool: ToolDef, input: ParsedInput, served: ReadonlyMap<string, ToolDef>): Promise<ToolOutcome> {
  const refuse = (error: AppError): ToolOutcome => ({ result: toolError(error, { tool, served }), error });
  const denied = forbidden(tool, principal);
  if (denied) return refuse(denied);
  if (!input.ok) return refuse(input.error);
  let structured: Record<string, unknown>;
  let text: string;
  let note: string | undefined;
  try {
    const run = async (args: unknown) => (await runTool(tool, app.services, principal, args)) as Record<string, unknown>;
    ({ structured, text, note } = await fitResult(tool, input.data, await run(input.data), run));
  } catch (err) {
    if (isCallerError(err)) return refuse(err);
    const unstorable = unstorableTextError(err);
    if (unstorable) return refuse(unstorable);
    app.logger.error({ err, tool: tool.name, accountId: principal.accountId }, 'tool failed');
    return { result: internalError(tool, served) };
  }
  // Clients that check (the SDK's Client does) would throw on a result its own outputSchema
  // forbids, so it never leaves the server. The SDK runs the same check after us (sdk-schemas.ts);
  // here it is logged with the account and answered with a nextStep.
  const mismatch = outputMismatch(tool, structured);
  if (mismatch !== undefined) {
    app.logger.error({ tool: tool.name, accountId: principal.accountId, mismatch }, 'tool result does not match its outputSchema');
    return { result: internalError(tool, served) };
  }
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  if (note !== undefined) content.push({ type: 'text', text: note });
  return { result: { content, structuredContent: structured } };
}

function internalError(tool: ToolDef, served: ReadonlyMap<string, ToolDef>): CallToolResult {
  return toolError(new AppError('INTERNAL', `${tool.name} failed on the server; nothing about your arguments is wrong.`), {
    tool,
    served,
    nextStep: tool.annotations.readOnlyHint
      ? 'This is a server bug, reported in its log. Tell the user; a retry gives the same answer.'
      : ['This is a server bug, reported in its log. The action may have been carried out: check (rcs_message_log, rcs_jobs or the list tools) before calling again, and tell the user.', 'This is a server bug, reported in its log. The action may have been carried out: check with the list tools before calling again, and tell the user.'],
  });
}
