import type { z } from 'zod';
import type { BillingService } from '../src/billing/service.js';
import type { ContactsService } from '../src/contacts/service.js';
import type { ContactConsent } from '../src/contacts/consent.js';
import type { ConversationsService } from '../src/conversations/service.js';
import type { FieldsService } from '../src/fields/service.js';
import type { GroupsService } from '../src/groups/service.js';
import type { HealthService } from '../src/health/service.js';
import type { InteractionsService } from '../src/inbound/interactions-service.js';
import type { JobsService } from '../src/messaging/jobs-service.js';
import type { LogService } from '../src/messaging/log-service.js';
import type { PreviewsService } from '../src/previews/service.js';
import type { SendersService } from '../src/senders/service.js';
import type { TemplatesService } from '../src/templates/service.js';
import type { ValidationService } from '../src/validation-api/service.js';
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
 * Every service a tool may name in `uses`, by the name the composition root gives it (the
 * transport passes the app's services, which must include these). A tool sees only the ones it
 * declares: see ToolContext and runTool.
 */
export interface ToolServices {
  billing: BillingService;
  contacts: ContactsService;
  contactConsent: ContactConsent;
  conversations: ConversationsService;
  fields: FieldsService;
  groups: GroupsService;
  health: HealthService;
  interactions: InteractionsService;
  jobs: JobsService;
  log: LogService;
  previews: PreviewsService;
  senders: SendersService;
  templates: TemplatesService;
  validation: ValidationService;
}
export type ToolService = keyof ToolServices;

/**
 * A nextStep for a tool error: one sentence, or alternatives in order of preference. The first
 * whose tools this connection serves is used (src/mcp/tool-errors.ts), so a sentence naming a tool
 * outside `?toolsets=` has a fallback that names none.
 */
export type NextStep = string | readonly string[];
export type NextSteps = Partial<Record<ErrorCode, NextStep>>;

/** What `run` gets: the caller and exactly the services the tool declared in `uses`. */
export type ToolContext<S extends ToolService = never> = Pick<ToolServices, S> & { principal: Principal };

/**
 * One MCP tool as data (the github-mcp-server pattern): name, texts for the assistant, schemas,
 * annotations, toolset and the permissions it needs. `run` is a thin adapter over a service;
 * business rules live in the services, never here.
 */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject, S extends ToolService = ToolService> {
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
  /** Listed as the tool's `_meta` (e.g. the MCP Apps `ui.resourceUri` of the preview tools). */
  meta?: Readonly<Record<string, unknown>>;
  /** The services `run` may use (`[]` for none); it is handed these and no others. */
  uses: readonly S[];
  /**
   * How a read-only list tool pages, for these arguments: src/mcp/result-budget.ts asks for a
   * smaller page when one would exceed the result budget, and tells the assistant how to go on.
   */
  paging?(input: Readonly<Record<string, unknown>>): Paging | undefined;
  run(ctx: ToolContext<S>, input: z.output<I>): Promise<z.input<O>>;
}

type Result = Readonly<Record<string, unknown>>;

/** A list read page by page: by cursor (`pagination.nextCursor`), by page number (`page`, `limit`) or by `offset`. */
export type Paging =
  | { by: 'cursor'; items(result: Result): readonly unknown[]; limitArg?: string; cursorArg: string; nextCursor(result: Result): string | null }
  | { by: 'page'; items(result: Result): readonly unknown[]; limitArg?: string; hasNextPage(result: Result): boolean }
  | { by: 'offset'; items(result: Result): readonly unknown[]; limitArg?: string; hasMore(result: Result): boolean };

interface CursorPage {
  pagination: { nextCursor: string | null };
}
interface NumberedPage {
  pagination: { page: number; totalPages: number };
}

/** The usual cursor list: `{[items]: [...], pagination: {nextCursor}}`, continued with `cursor`. */
export const cursorPaging = (items = 'data'): Paging => ({
  by: 'cursor',
  items: (r) => r[items] as readonly unknown[],
  cursorArg: 'cursor',
  nextCursor: (r) => (r as unknown as CursorPage).pagination.nextCursor,
});

/** The usual page list: `{data: [...], pagination: {page, totalPages}}`, continued with `page`. */
export const pagePaging = (): Paging => ({
  by: 'page',
  items: (r) => r.data as readonly unknown[],
  hasNextPage: (r) => {
    const p = (r as unknown as NumberedPage).pagination;
    return p.page < p.totalPages;
  },
});

export function defineTool<I extends z.ZodObject, O extends z.ZodObject, const S extends ToolService = never>(def: ToolDef<I, O, S>): ToolDef<I, O, S> {
  return def;
}

/**
 * How a transport calls a tool, after it checked permissions and parsed `input` with the tool's
 * input schema: `run` gets the principal and only the services named in `uses`, so a tool cannot
 * reach one it did not declare even through a cast.
 */
export function runTool(tool: ToolDef, services: ToolServices, principal: Principal, input: unknown): Promise<unknown> {
  const ctx: Record<string, unknown> = { principal };
  for (const name of tool.uses) ctx[name] = services[name];
  return tool.run(ctx as ToolContext<ToolService>, input as z.output<z.ZodObject>);
}

/** Shorthands for the common annotation sets. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const WRITE_IDEMPOTENT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const SEND: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
