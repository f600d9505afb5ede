import { z } from 'zod';
import { zodDetails } from '../platform/validation.js';

/**
 * The params of the two methods assistants call, checked before the SDK sees them. The SDK answers
 * malformed params with -32602 too, but its message is the whole zod issue dump; an assistant (and
 * the specification) wants a short message naming the path. Only the shape is checked here —
 * what the SDK would refuse anyway — so a request that passes is the SDK's, unchanged.
 */
const PARAMS: Record<string, z.ZodType> = {
  'tools/call': z.looseObject({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    _meta: z.record(z.string(), z.unknown()).optional(),
  }),
  'tools/list': z.looseObject({ cursor: z.string().optional(), _meta: z.record(z.string(), z.unknown()).optional() }).optional(),
};

/** The JSON-RPC error answer for the first request of `body` whose params are malformed, or null. */
export function malformedParams(body: unknown): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } | null {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!m || typeof m !== 'object') continue;
    const { id, method, params } = m as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !(typeof id === 'string' || typeof id === 'number')) continue;
    const schema = PARAMS[method];
    if (!schema || certainlyValid(method, params)) continue;
    const parsed = schema.safeParse(params);
    if (!parsed.success) return { jsonrpc: '2.0', id, error: { code: -32602, message: invalidParamsMessage(parsed.error) } };
  }
  return null;
}

/**
 * True only when PARAMS[method] certainly accepts `params`, decided without zod: the runtime parser
 * copies every key of `arguments` into a new record on each call (~10–20 µs a request, issue #31),
 * although its result is only ever thrown away here. Anything this does not vouch for goes to zod.
 */
function certainlyValid(method: string, params: unknown): boolean {
  if (method === 'tools/list' && params === undefined) return true;
  if (!plainRecord(params)) return false;
  const optionalRecord = (v: unknown) => v === undefined || plainRecord(v);
  if (method === 'tools/call') return typeof params.name === 'string' && optionalRecord(params.arguments) && optionalRecord(params._meta);
  return method === 'tools/list' && (params.cursor === undefined || typeof params.cursor === 'string') && optionalRecord(params._meta);
}

/** An object zod's record and object schemas take as is: Object.prototype, no own `constructor` (what JSON.parse gives). */
function plainRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, 'constructor');
}

/** "Invalid params: params.arguments: expected an object, received array" — the paths, no validation dump. */
function invalidParamsMessage(error: z.ZodError): string {
  const details = zodDetails(error, 'params');
  const shown = details.slice(0, 3).map((d) => `${d.path || 'params'}: ${d.message.replace(/^Invalid input: /, '').replace('expected record', 'expected an object')}`);
  return `Invalid params: ${shown.join('; ')}${details.length > shown.length ? ` (and ${details.length - shown.length} more)` : ''}`;
}
