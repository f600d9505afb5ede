/**
 * A minimal MCP Apps host for the browser test (bundled by mcp-app.test.ts): the ext-apps
 * AppBridge talking to the view in a sandboxed iframe (scripts only, opaque origin, as hosts
 * run views), handing it the tool input and result once it is initialized, resizing the frame
 * as the view asks, and recording the links it asks to open.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface FrameElement {
  setAttribute(name: string, value: string): void;
  style: { width: string; height: string; border: string };
  contentWindow: unknown;
  srcdoc: string;
}
interface HostWindow {
  document: { createElement(tag: 'iframe'): FrameElement; body: { appendChild(el: FrameElement): void } };
  openedLinks: string[];
  hostReady: boolean;
  startHost(html: string, toolInput: Record<string, unknown>, toolResult: Record<string, unknown>): Promise<void>;
}
const w = globalThis as unknown as HostWindow;
w.openedLinks = [];
w.hostReady = false;

w.startHost = async (html, toolInput, toolResult) => {
  const iframe = w.document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('title', 'preview');
  iframe.style.width = '100%';
  iframe.style.border = '0';
  w.document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { openLinks: {} });
  bridge.onopenlink = async ({ url }) => {
    w.openedLinks.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: toolInput }).then(() => bridge.sendToolResult(toolResult as never)).then(() => {
      w.hostReady = true;
    });
  };
  // Connected before the document loads, so the view's ui/initialize is not missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow as never, iframe.contentWindow as never));
  iframe.srcdoc = html;
};
