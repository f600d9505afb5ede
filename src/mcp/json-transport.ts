import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCRequest, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface JsonExchange {
  status: number;
  body?: unknown;
}

/** A JSON-RPC 2.0 request, notification or response, structurally. */
function isEnvelope(m: unknown): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return false;
  const idOk = o.id === undefined || typeof o.id === 'string' || (typeof o.id === 'number' && Number.isFinite(o.id));
  if (!idOk) return false;
  if (typeof o.method === 'string') return o.params === undefined || (typeof o.params === 'object' && o.params !== null);
  return o.id !== undefined && ('result' in o || 'error' in o);
}

const rpcError = (code: number, message: string, id: RequestId | null = null) => ({ jsonrpc: '2.0' as const, id, error: { code, message } });

/** The JSON-RPC messages of a POST body, or the refusal to answer instead. */
export type CheckedPost = { messages: JSONRPCMessage[]; batch: boolean };

/**
 * The transport-level checks of one POST, before any message is looked at by a server: the client
 * must accept JSON, a MCP-Protocol-Version header must name a version we support, and the body must
 * be a JSON-RPC message or a non-empty batch of them (the envelope only; params are the server's).
 */
export function checkPost(body: unknown, headers: { accept?: string | undefined; protocolVersion?: string | undefined }): CheckedPost | { refused: JsonExchange } {
  const accept = headers.accept ?? '*/*';
  if (!/application\/json|\*\/\*|application\/\*/.test(accept)) {
    return { refused: { status: 406, body: rpcError(-32000, 'Not Acceptable: the client must accept application/json') } };
  }
  if (headers.protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(headers.protocolVersion)) {
    return { refused: { status: 400, body: rpcError(-32000, `Unsupported MCP-Protocol-Version ${headers.protocolVersion}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`) } };
  }
  if (body === undefined || body === null || typeof body !== 'object') return { refused: { status: 400, body: rpcError(-32700, 'Parse error: the body must be a JSON-RPC message or batch') } };
  const batch = Array.isArray(body);
  const raw = batch ? (body as unknown[]) : [body];
  if (raw.length === 0) return { refused: { status: 400, body: rpcError(-32600, 'Invalid Request: empty batch') } };
  for (const m of raw) {
    if (!isEnvelope(m)) return { refused: { status: 400, body: rpcError(-32600, 'Invalid Request: not a JSON-RPC 2.0 message') } };
  }
  return { messages: raw as JSONRPCMessage[], batch };
}

/**
 * The server side of one stateless Streamable HTTP POST, answered with a JSON body (the
 * transport's JSON response mode: no session, no SSE stream). The SDK's Server does the protocol;
 * this only hands it the posted messages and collects its answers. It replaces the SDK's node
 * transport because that one converts every request to a web Request and back, which cost more
 * than the tool calls themselves (bench/mcp.ts). Single tools/call and tools/list requests do not
 * come here at all (direct.ts).
 */
export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  sessionId = undefined;

  private readonly waiting = new Set<RequestId>();
  private readonly answers: JSONRPCMessage[] = [];
  private done: (() => void) | null = null;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message) && this.waiting.has(message.id as RequestId)) {
      this.waiting.delete(message.id as RequestId);
      this.answers.push(message);
      if (this.waiting.size === 0) this.done?.();
    }
    // Server-initiated requests and notifications have nowhere to go without a stream: dropped.
  }

  /** Feeds the checked messages of one POST (see checkPost) to the server and resolves with what to answer. */
  async exchange({ messages, batch }: CheckedPost): Promise<JsonExchange> {
    const requests = messages.filter(isJSONRPCRequest);
    for (const r of requests) this.waiting.add(r.id);
    const finished = new Promise<void>((resolve) => {
      this.done = resolve;
    });
    for (const m of messages) this.onmessage?.(m);
    if (requests.length === 0) return { status: 202 };
    if (this.waiting.size > 0) await finished;
    // Answers in the order of the requests, as a batch when a batch was posted.
    const order = new Map(requests.map((r, i) => [r.id, i]));
    const answers = [...this.answers].sort((a, b) => (order.get((a as { id: RequestId }).id) ?? 0) - (order.get((b as { id: RequestId }).id) ?? 0));
    return { status: 200, body: batch ? answers : answers[0] };
  }
}
