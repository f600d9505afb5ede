import {
  AppBridge,
  LATEST_PROTOCOL_VERSION,
  McpUiInitializeRequestSchema,
  McpUiInitializedNotificationSchema,
  McpUiOpenLinkRequestSchema,
  McpUiResourceTeardownResultSchema,
  McpUiSizeChangedNotificationSchema,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { connectHost, parentWindowChannel, reportSize, UI_PROTOCOL_VERSION, type HostChannel, type OutgoingMessage, type ViewHandlers, type ViewWindow } from '../../src/mcp/apps/view/host-bridge.js';

/**
 * The in-chat view's MCP Apps bridge (issue #30: it replaces the ext-apps App to keep the ui://
 * resource small) against the ext-apps AppBridge, the host side of the same package: if the
 * AppBridge accepts the handshake and the view gets what the host sends, the bridge speaks the
 * protocol. Every message the view sends is also checked against the ext-apps schemas.
 */

const tick = () => new Promise((r) => setTimeout(r, 0));
type Json = Record<string, unknown>;

/** A host (the ext-apps AppBridge) and the view's bridge, joined as postMessage would join them (asynchronously). */
async function pair(opts: { refuseLinks?: boolean; handlers?: Partial<ViewHandlers> } = {}) {
  const sent: OutgoingMessage[] = [];
  const results: Json[] = [];
  const cancelled: Json[] = [];
  const sizes: Json[] = [];
  const links: string[] = [];
  let toView: ((m: unknown) => void) | undefined;
  const hostTransport = {
    onmessage: undefined as ((m: never) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((e: Error) => void) | undefined,
    start: async () => undefined,
    close: async () => hostTransport.onclose?.(),
    send: async (m: unknown) => void setTimeout(() => toView?.(structuredClone(m)), 0),
  };
  const channel: HostChannel = {
    send: (m) => {
      sent.push(m);
      setTimeout(() => hostTransport.onmessage?.(structuredClone(m) as never), 0);
    },
    listen: (listener) => {
      toView = listener;
    },
  };
  const host = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { openLinks: {} });
  let initialized = false;
  host.oninitialized = () => {
    initialized = true;
  };
  host.onopenlink = async ({ url }) => {
    if (opts.refuseLinks) throw new Error('Link opening denied by user');
    links.push(url);
    return {};
  };
  host.onsizechange = (size) => void sizes.push(size);
  await host.connect(hostTransport as never);
  const view = connectHost(channel, { name: 'rcs-sms-preview', version: '1.0.0' }, {
    onToolResult: (r) => void results.push(r),
    onToolCancelled: (c) => void cancelled.push(c),
    ...opts.handlers,
  });
  return { host, view, sent, results, cancelled, sizes, links, initialized: () => initialized, fromHost: (m: unknown) => toView?.(m) };
}

describe('the view bridge against the ext-apps AppBridge', () => {
  it('speaks the revision of the installed ext-apps', () => {
    expect(UI_PROTOCOL_VERSION).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('handshake: ui/initialize with the app info, then ui/notifications/initialized; the host sees the app', async () => {
    const p = await pair();
    const init = await p.view.ready;
    expect(init).toMatchObject({ hostInfo: { name: 'test-host', version: '1.0.0' }, hostCapabilities: { openLinks: {} } });
    await tick();
    expect(p.initialized()).toBe(true);
    expect(p.host.getAppVersion()).toEqual({ name: 'rcs-sms-preview', version: '1.0.0' });
    expect(p.host.getAppCapabilities()).toEqual({});
    expect(p.sent.map((m) => ('method' in m ? m.method : 'response'))).toEqual(['ui/initialize', 'ui/notifications/initialized']);
    const [req, note] = p.sent;
    expect(McpUiInitializeRequestSchema.safeParse(req).success).toBe(true);
    expect(McpUiInitializedNotificationSchema.safeParse(note).success).toBe(true);
    for (const m of p.sent) expect(JSONRPCMessageSchema.safeParse(m).success).toBe(true);
  });

  it('draws the tool result and the cancellation the host sends, in order, and nothing before', async () => {
    const p = await pair();
    await p.view.ready;
    await tick();
    expect(p.results).toEqual([]);
    await p.host.sendToolInput({ arguments: { phoneNumber: '+4915112350003' } });
    await p.host.sendToolResult({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { share_url: 'https://x.example/p' } });
    await p.host.sendToolCancelled({ reason: 'user action' });
    await tick();
    expect(p.results).toEqual([{ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { share_url: 'https://x.example/p' } }]);
    expect(p.cancelled).toEqual([{ reason: 'user action' }]);
  });

  it('opens a link through the host; a refusal rejects (the view ignores it) instead of hanging', async () => {
    const p = await pair();
    await p.view.ready;
    await tick();
    await expect(p.view.openLink('https://rcs.example.com/preview/abc')).resolves.toEqual({});
    expect(p.links).toEqual(['https://rcs.example.com/preview/abc']);
    const open = p.sent.find((m) => 'method' in m && m.method === 'ui/open-link');
    expect(McpUiOpenLinkRequestSchema.safeParse(open).success).toBe(true);

    const refusing = await pair({ refuseLinks: true });
    await refusing.view.ready;
    await tick();
    await expect(refusing.view.openLink('https://rcs.example.com/preview/abc')).rejects.toThrow(/denied/);
  });

  it('reports its size; answers ping and ui/resource-teardown with {}, any other request with "method not found"', async () => {
    const p = await pair();
    await p.view.ready;
    await tick();
    p.view.sizeChanged({ width: 780, height: 1234 });
    await tick();
    expect(p.sizes).toEqual([{ width: 780, height: 1234 }]);
    expect(McpUiSizeChangedNotificationSchema.safeParse(p.sent.at(-1)).success).toBe(true);

    await expect(p.host.request({ method: 'ping' })).resolves.toEqual({});
    const teardown = await p.host.teardownResource({});
    expect(McpUiResourceTeardownResultSchema.safeParse(teardown).success).toBe(true);
    await expect(p.host.listTools({})).rejects.toThrow(/not found/i);
    const errors = p.sent.filter((m) => 'error' in m);
    expect(errors).toEqual([{ jsonrpc: '2.0', id: expect.anything(), error: { code: -32601, message: 'Method not found: tools/list' } }]);
    for (const m of p.sent) expect(JSONRPCMessageSchema.safeParse(m).success).toBe(true);
  });

  it('ignores what is not a JSON-RPC message, answers to nothing it asked, and malformed tool results', async () => {
    const p = await pair();
    await p.view.ready;
    await tick();
    const before = p.sent.length;
    for (const junk of [null, 'text', 42, [], { hello: 1 }, { jsonrpc: '1.0', method: 'ui/notifications/tool-result', params: { content: [] } }, { jsonrpc: '2.0', id: 999, result: {} }, { jsonrpc: '2.0', id: { x: 1 }, result: {} }]) {
      p.fromHost(junk);
    }
    // A tool result the App's schema would refuse is dropped, not drawn as a half-empty view.
    for (const params of [undefined, 'x', [], { content: 'not a list' }, { content: [], isError: 'yes' }, { content: [], structuredContent: [1, 2] }]) {
      p.fromHost({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params });
    }
    p.fromHost({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: 'x' });
    p.fromHost({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } });
    p.fromHost({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 7 } });
    await tick();
    expect(p.results).toEqual([]);
    expect(p.cancelled).toEqual([{}]);
    expect(p.sent.length).toBe(before);
    // A result without content is a CallToolResult with empty content.
    p.fromHost({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: { a: 1 } } });
    expect(p.results).toEqual([{ structuredContent: { a: 1 }, content: [] }]);
  });

  it('a host that refuses the handshake: ready rejects and the view stops listening', async () => {
    const sent: OutgoingMessage[] = [];
    let toView: (m: unknown) => void = () => undefined;
    const results: unknown[] = [];
    const view = connectHost({ send: (m) => void sent.push(m), listen: (l) => (toView = l) }, { name: 'v', version: '1' }, { onToolResult: (r) => void results.push(r), onToolCancelled: () => undefined });
    const first = sent[0] as { id: number };
    toView({ jsonrpc: '2.0', id: first.id, error: { code: -32602, message: 'Unsupported protocol version' } });
    await expect(view.ready).rejects.toThrow('Unsupported protocol version');
    toView({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [] } });
    toView({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(results).toEqual([]);
    expect(sent.map((m) => ('method' in m ? m.method : 'response'))).toEqual(['ui/initialize']);
  });
});

describe('the browser side: parent window channel and size reports', () => {
  function fakeWindow() {
    const posted: { message: unknown; origin: string }[] = [];
    const listeners: ((e: { source: unknown; data: unknown }) => void)[] = [];
    const frames: (() => void)[] = [];
    const observers: { callback: () => void; targets: unknown[] }[] = [];
    let height = 500;
    const html = { style: { height: '' }, getBoundingClientRect: () => ({ height: html.style.height === 'max-content' ? height + 0.4 : 10 }) };
    const parent = { postMessage: (message: unknown, origin: string) => void posted.push({ message, origin }) };
    const win: ViewWindow = {
      parent,
      addEventListener: (_type, l) => void listeners.push(l),
      innerWidth: 779.5,
      requestAnimationFrame: (cb) => frames.push(cb),
      ResizeObserver: class {
        targets: unknown[] = [];
        constructor(public callback: () => void) {
          observers.push(this);
        }
        observe(t: unknown) {
          this.targets.push(t);
        }
      },
      document: { documentElement: html, body: { body: true } },
    };
    return {
      win,
      posted,
      parent,
      html,
      observers,
      dispatch: (source: unknown, data: unknown) => listeners.forEach((l) => l({ source, data })),
      runFrames: () => frames.splice(0).forEach((f) => f()),
      setHeight: (h: number) => (height = h),
    };
  }

  it('posts to the parent window and hears only the parent window', () => {
    const w = fakeWindow();
    const heard: unknown[] = [];
    const channel = parentWindowChannel(w.win);
    channel.listen((m) => heard.push(m));
    channel.send({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect(w.posted).toEqual([{ message: { jsonrpc: '2.0', method: 'ui/notifications/initialized' }, origin: '*' }]);
    w.dispatch({ someOtherFrame: true }, { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [] } });
    w.dispatch(w.parent, { jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(heard).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 1 }]);
  });

  it('reports the whole document height (max-content, rounded up) once per frame, and only when it changed', () => {
    const w = fakeWindow();
    const sizes: unknown[] = [];
    reportSize(w.win, { sizeChanged: (s) => void sizes.push(s) });
    expect(w.observers[0]!.targets).toEqual([w.win.document.documentElement, w.win.document.body]);
    w.runFrames();
    expect(sizes).toEqual([{ width: 780, height: 501 }]);
    expect(w.html.style.height).toBe(''); // restored after measuring
    // Several resizes in one frame: one measurement; an unchanged size: no report.
    w.observers[0]!.callback();
    w.observers[0]!.callback();
    w.runFrames();
    expect(sizes).toHaveLength(1);
    w.setHeight(900);
    w.observers[0]!.callback();
    w.runFrames();
    expect(sizes).toEqual([{ width: 780, height: 501 }, { width: 780, height: 901 }]);
  });
});
