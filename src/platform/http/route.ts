import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import type { Permission, Principal } from '../permissions.js';
import { assertNotApprovalBound, assertPermission, requireAuth, type ApprovalBoundRefusal, type CredentialResolver } from './auth.js';
import { parseOrThrow } from '../validation.js';
import { AppError } from '../errors.js';
import { idempotencyKeyOf } from '../idempotency/key.js';
import { runIdempotent, type FreshResponse } from '../idempotency/run.js';
import type { IdempotencyStore } from '../idempotency/store.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route: nobody needs a key ('public'), any valid key ('authenticated'), or a permission. */
export type RouteAuth = 'public' | 'authenticated' | Permission;

export interface ResponseSpec {
  description: string;
  /** The JSON body (an error status without one answers the shared ErrorResponse). */
  schema?: z.ZodType;
  /**
   * Media types of a body that is not JSON (CSV exports, sample files), each documented as a
   * string (`format: binary` unless it is text/*). Set instead of `schema`.
   */
  mediaTypes?: readonly string[];
}

export interface HandlerInput<B, Q, P> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  /** Present on every route whose auth is not 'public'. */
  principal: Principal;
}

/** A handler returns the JSON body; `reply()` when the status depends on the outcome. */
// Written as `unknown` (a Reply is one of the values): the union `unknown | Reply` says nothing more to the compiler.
export type HandlerResult = unknown;

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = (status: number, body: unknown, headers?: Record<string, string>): Reply => new Reply(status, body, headers);

/**
 * One REST route as data: method, path, auth, validators beside it, documented responses and a
 * thin handler. Mounting it records it for the OpenAPI document, so the document lists exactly
 * the routes that exist.
 */
export interface RouteSpec<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** Express path relative to the router's base, e.g. `/:id/fields`. */
  path: string;
  /**
   * The OpenAPI operationId, camelCase verb + noun (`sendMessage`, `listContacts`): the method
   * name generated clients give this route, so keep it stable. Without it one is derived from
   * method and path (operationIdOf).
   */
  operationId?: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /**
   * Refuses credentials whose sends need approval (OAuth tokens, approval-bound keys): 'send' on
   * every route that sends or schedules a message (403 APPROVAL_REQUIRED naming the preview flow),
   * 'secret' on every answer that carries a webhook signing secret (403 FORBIDDEN).
   */
  approvalBound?: ApprovalBoundRefusal;
  body?: B;
  /**
   * Documents the body without parsing it: for routes whose service validates the raw body itself
   * (sends run the content validator, which reports better paths than a schema parse).
   */
  bodyDoc?: z.ZodType;
  query?: Q;
  params?: P;
  /** The status a plain return value is sent with (default 200). */
  status?: number;
  /**
   * Accepts an `Idempotency-Key` header (src/platform/idempotency/run.ts): a repeat with the same
   * key and body within 24 h answers the first response and does nothing again. Every POST that
   * sends or creates sets it. The handler must return its answer (not write to res), and its
   * writes must run in inTransaction: the first committed one carries the key's "work done" mark.
   */
  idempotent?: boolean;
  responses: Record<number, ResponseSpec>;
  handler: (input: HandlerInput<z.output<B>, z.output<Q>, z.output<P>>) => HandlerResult; // or a Promise of it
}

/** Helper that keeps the generic types of one route together. */
export function defineRoute<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType>(spec: RouteSpec<B, Q, P>): RouteSpec<B, Q, P> {
  return spec;
}

export interface RegisteredRoute {
  method: HttpMethod;
  /** Full path in OpenAPI form: /api/v1/contacts/{id}. */
  path: string;
  spec: RouteSpec;
}

/**
 * The route's operationId: its own, or `get` + `ContactsById` style words from the full path with
 * the /api, /api/v1, /api/rcs prefix dropped (deterministic, and unique as long as paths are).
 */
export function operationIdOf(route: RegisteredRoute): string {
  if (route.spec.operationId) return route.spec.operationId;
  const pascal = (s: string): string => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  const words = route.path
    .replace(/^\/api(\/v1|\/rcs)?(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((seg) => (/^\{.+\}$/.test(seg) ? `By${pascal(seg.slice(1, -1))}` : pascal(seg)));
  return `${route.method}${words.join('')}`;
}

/** Every route mounted through mountRoutes, for the OpenAPI document. */
export class RouteRegistry {
  readonly routes: RegisteredRoute[] = [];

  add(base: string, spec: RouteSpec): void {
    const full = `${base}${spec.path === '/' ? '' : spec.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}') || '/';
    this.routes.push({ method: spec.method, path: full, spec });
  }
}

/**
 * Builds a router for `base` from route specs. Order matters as in express: put literal paths
 * (`/count`, `/bulk`) before parameterised ones (`/:id`).
 */
export function mountRoutes(registry: RouteRegistry, resolvers: readonly CredentialResolver[], base: string, specs: readonly RouteSpec[], idempotency?: IdempotencyStore): Router {
  const router = Router();
  const authenticate = requireAuth(resolvers);
  for (const spec of specs) {
    if (spec.idempotent && (!idempotency || spec.auth === 'public')) {
      throw new Error(`${spec.method.toUpperCase()} ${base}${spec.path}: an idempotent route needs an authenticated caller and the idempotency store`);
    }
    registry.add(base, spec);
    const handlers = [];
    if (spec.auth !== 'public') handlers.push(authenticate);
    router[spec.method](spec.path, ...handlers, async (req: Request, res: Response) => {
      const principal = req.principal;
      if (spec.auth !== 'public' && spec.auth !== 'authenticated') assertPermission(principal!, spec.auth);
      if (spec.approvalBound && principal) assertNotApprovalBound(principal, spec.approvalBound);
      const key = spec.idempotent ? idempotencyKeyOf(req) : null;
      let body: unknown = undefined;
      if (spec.bodyDoc && !spec.body) {
        if (req.body === undefined) throw new AppError('VALIDATION_ERROR', 'A JSON body is required (Content-Type: application/json)');
        body = req.body;
      }
      if (spec.body) {
        if (req.body === undefined) throw new AppError('VALIDATION_ERROR', 'A JSON body is required (Content-Type: application/json)');
        body = parseOrThrow(spec.body, req.body, 'Request body');
      }
      const query = spec.query ? parseOrThrow(spec.query, req.query, 'Query') : req.query;
      const params = spec.params ? parseOrThrow(spec.params, req.params, 'Path') : req.params;
      const run = () => spec.handler({ req, res, body, query, params, principal: principal! });
      if (key === null) {
        const result = await run();
        if (res.headersSent) return;
        if (result instanceof Reply) {
          for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
          res.status(result.status).json(result.body);
        } else {
          res.status(spec.status ?? 200).json(result);
        }
        return;
      }
      const work = async (): Promise<FreshResponse> => {
        const result = await run();
        if (res.headersSent) throw new Error(`${req.method} ${req.path}: an idempotent handler wrote the response itself`);
        return result instanceof Reply ? { status: result.status, headers: result.headers, body: result.body } : { status: spec.status ?? 200, headers: {}, body: result };
      };
      const answer = await runIdempotent(idempotency!, { accountId: principal!.accountId, key, method: req.method, path: `${req.baseUrl}${req.path}`, body: req.body }, work);
      for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
      if (answer.replayed) res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
      res.status(answer.status).type('application/json').send(answer.json);
    });
  }
  return router;
}

/** Set on an answer that is the stored first response of an earlier request with the same Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
