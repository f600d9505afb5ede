import { ALL_TOOLS } from '../../tools/index.js';
import { TOOLSETS, type ToolDef, type Toolset } from '../../tools/types.js';
import { AppError } from '../platform/errors.js';
import { inputJsonSchema, listedOutputJsonSchema } from './tool-schemas.js';

export interface ToolFilter {
  toolsets: ReadonlySet<Toolset> | null;
  readOnly: boolean;
}

/** `?toolsets=messaging,contacts&readonly=1` → a filter; unknown toolset names are a 400. */
export function parseToolFilter(query: Record<string, unknown>): ToolFilter {
  let toolsets: Set<Toolset> | null = null;
  const raw = query.toolsets;
  if (typeof raw === 'string' && raw.trim() !== '' && raw.trim() !== 'all') {
    toolsets = new Set();
    for (const name of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!(TOOLSETS as readonly string[]).includes(name)) {
        throw new AppError('VALIDATION_ERROR', `Unknown toolset "${name}". Known: ${TOOLSETS.join(', ')}`, { details: [{ path: 'toolsets', code: 'invalid_enum', message: `Known: ${TOOLSETS.join(', ')}` }] });
      }
      toolsets.add(name as Toolset);
    }
  }
  const ro = query.readonly ?? query.readOnly;
  const readOnly = ro === '1' || ro === 'true';
  return { toolsets, readOnly };
}

/** Tools served for a filter; read-only mode is derived from the annotations, not a separate list. */
export function selectTools(filter: ToolFilter): ToolDef[] {
  return ALL_TOOLS.filter((t) => (!filter.toolsets || filter.toolsets.has(t.toolset)) && (!filter.readOnly || t.annotations.readOnlyHint));
}

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
  /** Only where the tool declares one (the preview tools' MCP Apps `ui`). */
  _meta?: Record<string, unknown>;
}

/** A tool's inputSchema as listed (built once per tool in tool-schemas.ts). */
export { inputJsonSchema };

/**
 * A tool's outputSchema as listed, built once per tool: the top level of its complete output
 * schema (tool-schemas.ts). The server checks each result against the complete one
 * (`fullOutputJsonSchema`, output-check.ts), which accepts nothing this one refuses.
 */
export function outputJsonSchema(tool: ToolDef): Record<string, unknown> {
  return listedOutputJsonSchema(tool);
}

const filterKey = (filter: ToolFilter) => `${filter.toolsets ? [...filter.toolsets].sort().join(',') : '*'}|${filter.readOnly}`;
/** The list depends on the permissions too; there are few distinct sets (keys are made with presets). */
const listKey = (filter: ToolFilter, permissions: ReadonlySet<string> | undefined) => `${filterKey(filter)}|${permissions ? [...permissions].sort().join(',') : '*'}`;

const listCache = new Map<string, ListedTool[]>();

/**
 * The tools/list entries for a filter, built once per filter: JSON Schema generation is not free.
 * With `permissions` (the credential's), only the tools it may call are listed; the others stay
 * callable (servedTools) so that a call answers what is missing (FORBIDDEN, or OAuth step-up).
 */
export function listedTools(filter: ToolFilter, permissions?: ReadonlySet<string>): ListedTool[] {
  const key = listKey(filter, permissions);
  let cached = listCache.get(key);
  if (!cached) {
    cached = selectTools(filter)
      .filter((t) => !permissions || t.permissions.every((p) => permissions.has(p)))
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: inputJsonSchema(t),
        outputSchema: outputJsonSchema(t),
        // The title is listed once, at the top (annotations.title is its older spelling).
        annotations: listedAnnotations(t.annotations),
        // Toolset and permissions are not listed: the list is already cut to the served toolsets
        // and the credential's permissions, and rcs_api_reference reports both (2.7 KB of tools/list).
        ...(t.meta ? { _meta: { ...t.meta } } : {}),
      }));
    listCache.set(key, cached);
  }
  return cached;
}

/**
 * The annotations as listed: the hints that differ from MCP's defaults (readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true), which is what a client applies
 * to a missing hint; destructiveHint and idempotentHint only when readOnlyHint is false, the only
 * case MCP reads them. destructiveHint: true is listed anyway on sends and deletes, so a client
 * that does not apply the defaults still asks the person. 2.1 KB of tools/list.
 */
export function listedAnnotations(a: ToolDef['annotations']): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  if (a.readOnlyHint) out.readOnlyHint = true;
  else {
    out.destructiveHint = a.destructiveHint;
    if (a.idempotentHint) out.idempotentHint = true;
  }
  if (!a.openWorldHint) out.openWorldHint = false;
  return out;
}

const listJsonCache = new Map<string, string>();

/** The same entries as JSON, serialised once per filter. */
export function listedToolsJson(filter: ToolFilter, permissions?: ReadonlySet<string>): string {
  const key = listKey(filter, permissions);
  let cached = listJsonCache.get(key);
  if (cached === undefined) {
    cached = JSON.stringify(listedTools(filter, permissions));
    listJsonCache.set(key, cached);
  }
  return cached;
}

const servedCache = new Map<string, ReadonlyMap<string, ToolDef>>();

/** The tools a filter serves, by name; built once per filter (there are few distinct filters). */
export function servedTools(filter: ToolFilter): ReadonlyMap<string, ToolDef> {
  const key = filterKey(filter);
  let cached = servedCache.get(key);
  if (!cached) {
    cached = new Map(selectTools(filter).map((t) => [t.name, t]));
    servedCache.set(key, cached);
  }
  return cached;
}

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(ALL_TOOLS.map((t) => [t.name, t]));
