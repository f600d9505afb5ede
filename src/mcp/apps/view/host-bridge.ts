/**
 * The view's side of the MCP Apps protocol (ext-apps spec 2026-01-26): JSON-RPC 2.0 over
 * postMessage with the host. Written out here instead of bundling the ext-apps `App` class,
 * because `App` extends the MCP SDK's `Protocol` and validates every message with the SDK's zod
 * schemas: bundled, that is ~330 KB of script for the six messages below, and the ui://
 * resource must stay under 150 KB (issue #30; measurements in docs/decisions.md).
 *
 * Only what this view uses, with the `App`'s wire behaviour:
 * - view → host: `ui/initialize` (request), then `ui/notifications/initialized`;
 *   `ui/notifications/size-changed` as the document grows; `ui/open-link` (request).
 * - host → view: `ui/notifications/tool-result` and `ui/notifications/tool-cancelled` are drawn;
 *   `ping` and `ui/resource-teardown` are answered `{}` (the view holds nothing to save); any
 *   other request is answered "method not found"; other notifications (tool input, host
 *   context) are ignored: the view draws the result alone.
 * The message shapes are the ext-apps types (type-only imports: nothing of the package is
 * bundled); test/mcp/apps-bridge.test.ts runs this bridge against the ext-apps AppBridge.
 */
import type {
  McpUiAppCapabilities,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiInitializedNotification,
  McpUiOpenLinkRequest,
  McpUiOpenLinkResult,
  McpUiSizeChangedNotification,
  McpUiToolCancelledNotification,
  McpUiToolResultNotification,
} from '@modelcontextprotocol/ext-apps';

/** The MCP Apps revision this view speaks (ext-apps `LATEST_PROTOCOL_VERSION`; a test keeps them equal). */
export const UI_PROTOCOL_VERSION = '2026-01-26';

/** JSON-RPC "method not found": the answer to a host request this view does not implement. */
const METHOD_NOT_FOUND = -32601;

type JsonRpcId = string | number;
type Params = Record<string, unknown>;

/** One JSON-RPC 2.0 message as the view sends it. */
export type OutgoingMessage =
  | { jsonrpc: '2.0'; id: JsonRpcId; method: string; params: Params }
  | { jsonrpc: '2.0'; method: string; params?: Params }
  | { jsonrpc: '2.0'; id: JsonRpcId; result: Params }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: { code: number; message: string } };

/** Where messages go and come from: the parent window in a host's frame (parentWindowChannel), a test double elsewhere. */
export interface HostChannel {
  send(message: OutgoingMessage): void;
  /** Calls `listener` with every message from the host (anything else never reaches it). */
  listen(listener: (message: unknown) => void): void;
}

export interface ViewHandlers {
  /** A tool result the host hands over (a CallToolResult). */
  onToolResult(result: McpUiToolResultNotification['params']): void;
  onToolCancelled(params: McpUiToolCancelledNotification['params']): void;
}

export interface HostBridge {
  /** Settles when the host answered `ui/initialize` and `ui/notifications/initialized` is sent. */
  readonly ready: Promise<McpUiInitializeResult>;
  /** Asks the host to open a link (a sandboxed view may not open windows itself). */
  openLink(url: string): Promise<McpUiOpenLinkResult>;
  /** Tells the host the view's size changed (the App's `sendSizeChanged`). */
  sizeChanged(size: McpUiSizeChangedNotification['params']): void;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isId = (v: unknown): v is JsonRpcId => typeof v === 'string' || typeof v === 'number';

/**
 * The host's tool result when it has a CallToolResult's shape; the App (validating with the
 * SDK's schema) dropped any other, and so does this.
 */
function toolResultOf(params: unknown): McpUiToolResultNotification['params'] | null {
  if (!isObject(params)) return null;
  if (params.content !== undefined && !Array.isArray(params.content)) return null;
  if (params.structuredContent !== undefined && !isObject(params.structuredContent)) return null;
  if (params.isError !== undefined && typeof params.isError !== 'boolean') return null;
  return { ...params, content: (params.content as McpUiToolResultNotification['params']['content'] | undefined) ?? [] };
}

/**
 * Connects the view to its host: sends `ui/initialize` at once and routes what the host sends.
 * If the host refuses the handshake, `ready` rejects and the bridge stops listening (as the App
 * closes its transport).
 */
export function connectHost(channel: HostChannel, appInfo: McpUiInitializeRequest['params']['appInfo'], handlers: ViewHandlers): HostBridge {
  const pending = new Map<JsonRpcId, { resolve(result: Params): void; reject(err: Error): void }>();
  let nextId = 0;
  let closed = false;

  function request(method: string, params: Params): Promise<Params> {
    const id = nextId++;
    return new Promise<Params>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      channel.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  function answer(id: JsonRpcId, method: string): void {
    if (method === 'ping' || method === 'ui/resource-teardown') {
      channel.send({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    channel.send({ jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` } });
  }

  function notified(method: string, params: unknown): void {
    if (method === 'ui/notifications/tool-result') {
      const result = toolResultOf(params);
      if (result) handlers.onToolResult(result);
    } else if (method === 'ui/notifications/tool-cancelled') {
      if (!isObject(params)) return;
      handlers.onToolCancelled(typeof params.reason === 'string' ? { reason: params.reason } : {});
    }
  }

  channel.listen((message) => {
    if (closed || !isObject(message) || message.jsonrpc !== '2.0') return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (isId(id)) answer(id, method);
      else if (id === undefined) notified(method, message.params);
      return;
    }
    if (!isId(id)) return;
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    if (isObject(message.result)) waiting.resolve(message.result);
    else {
      const error = isObject(message.error) ? message.error : {};
      waiting.reject(new Error(typeof error.message === 'string' ? error.message : 'The host answered with an error.'));
    }
  });

  const appCapabilities: McpUiAppCapabilities = {};
  const init: McpUiInitializeRequest = { method: 'ui/initialize', params: { appInfo, appCapabilities, protocolVersion: UI_PROTOCOL_VERSION } };
  const ready = request(init.method, init.params).then(
    (result) => {
      const initialized: McpUiInitializedNotification = { method: 'ui/notifications/initialized' };
      channel.send({ jsonrpc: '2.0', ...initialized });
      return result as McpUiInitializeResult;
    },
    (err: unknown) => {
      closed = true;
      throw err;
    },
  );

  return {
    ready,
    openLink: (url) => {
      const open: McpUiOpenLinkRequest = { method: 'ui/open-link', params: { url } };
      return request(open.method, open.params);
    },
    sizeChanged: (size) => {
      const changed: McpUiSizeChangedNotification = { method: 'ui/notifications/size-changed', params: size };
      channel.send({ jsonrpc: '2.0', ...changed });
    },
  };
}

/** The little of the browser's window the bridge uses (the project compiles without the DOM library). */
export interface ViewWindow {
  parent: { postMessage(message: unknown, targetOrigin: string): void };
  addEventListener(type: 'message', listener: (event: { source: unknown; data: unknown }) => void): void;
  innerWidth: number;
  requestAnimationFrame(callback: () => void): unknown;
  ResizeObserver: new (callback: () => void) => { observe(target: unknown): void };
  document: {
    documentElement: { style: { height: string }; getBoundingClientRect(): { height: number } };
    body: unknown;
  };
}

/**
 * The channel of a view in a host's iframe: posts to the parent window and hears only it. The
 * target origin is "*" as with the ext-apps PostMessageTransport: the view runs at an opaque
 * origin and does not know the host's.
 */
export function parentWindowChannel(win: ViewWindow): HostChannel {
  return {
    send: (message) => win.parent.postMessage(message, '*'),
    listen: (listener) =>
      win.addEventListener('message', (event) => {
        if (event.source === win.parent) listener(event.data);
      }),
  };
}

/**
 * Reports the document's size whenever it changes, as the App's `autoResize` does: measured at
 * `max-content` height once per animation frame, sent only when width or height changed, so
 * the host sizes its frame to the whole view.
 */
export function reportSize(win: ViewWindow, bridge: Pick<HostBridge, 'sizeChanged'>): void {
  let scheduled = false;
  let lastWidth = 0;
  let lastHeight = 0;
  const measure = () => {
    if (scheduled) return;
    scheduled = true;
    win.requestAnimationFrame(() => {
      scheduled = false;
      const html = win.document.documentElement;
      const before = html.style.height;
      html.style.height = 'max-content';
      const height = Math.ceil(html.getBoundingClientRect().height);
      html.style.height = before;
      const width = Math.ceil(win.innerWidth);
      if (width !== lastWidth || height !== lastHeight) {
        lastWidth = width;
        lastHeight = height;
        bridge.sizeChanged({ width, height });
      }
    });
  };
  measure();
  const observer = new win.ResizeObserver(measure);
  observer.observe(win.document.documentElement);
  observer.observe(win.document.body);
}
