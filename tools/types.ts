import type { z } from 'zod';
import type { AppContext } from '../src/context.js';
import type { ErrorCode } from '../src/platform/errors.js';
import type { Permission, Principal } from '../src/platform/permissions.js';

/**
 * Tool groups. A client that caps how many tools it loads asks for a subset:
 * `/mcp?toolsets=messaging,contacts`. Documented in docs/mcp.md.
 */
export const TOOLSETS = [
  'messaging',
  'sms',
  'status',
  'conversations',
  'jobs',
  'analytics',
  'contacts',
  'groups',
  'custom_fields',
  'templates',
  'template_groups',
  'guides',
] as const;
export type Toolset = (typeof TOOLSETS)[number];

export interface ToolAnnotations {
  /** Reads only; safe to call freely. Read-only mode (`?readonly=1`) keeps exactly these. */
  readOnlyHint: boolean;
  /** Sends messages or deletes data: clients should confirm with the person. */
  destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** Reaches outside this server (carriers, recipients' phones). */
  openWorldHint: boolean;
}

/**
 * A nextStep for a tool error: one sentence, or alternatives in order of preference. The first
 * whose tools this connection serves is used (src/mcp/tool-errors.ts), so a sentence naming a tool
 * outside `?toolsets=` has a fallback that names none.
 */
export type NextStep = string | readonly string[];
export type NextSteps = Partial<Record<ErrorCode, NextStep>>;

export interface ToolContext {
  app: AppContext;
  principal: Principal;
}

/**
 * One MCP tool as data (the github-mcp-server pattern): name, texts for the assistant, schemas,
 * annotations, toolset and the permissions it needs. `run` is a thin adapter over a service;
 * business rules live in the services, never here.
 */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** For the assistant: what it does, when to use it, what comes before and after. */
  description: string;
  toolset: Toolset;
  /** Checked on every call; a key or token without them gets a tool error naming them. */
  permissions: readonly Permission[];
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Error codes this tool returns beyond those every tool and its toolset can (tools/next-steps.ts). */
  errors?: readonly ErrorCode[];
  /** What to do next per error code, over its toolset's sentences and the defaults. */
  nextSteps?: NextSteps;
  run(ctx: ToolContext, input: z.output<I>): Promise<z.input<O>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

/** Shorthands for the common annotation sets. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const WRITE_IDEMPOTENT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const SEND: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
