/**
 * Browser entry of the in-chat preview (bundled by ../html.ts into the ui:// resource). Connects
 * to the host over postMessage (JSON-RPC, the MCP Apps protocol: ./host-bridge.ts) and draws the
 * tool result the host sends with Preact: escaped by construction, no HTML strings.
 */
import { render, type ContainerNode } from 'preact';
import { config } from 'zod/mini';
import { connectHost, parentWindowChannel, reportSize, type ViewWindow } from './host-bridge.js';
import { viewStateOf, type ViewState } from './model.js';
import { PreviewView } from './preview-view.js';

// The view's CSP has no 'unsafe-eval': zod must not try to compile validators with new Function
// (the attempt alone would report a CSP violation).
config({ jitless: true });

const win = globalThis as unknown as ViewWindow & { document: { getElementById(id: string): ContainerNode | null } };
const root = win.document.getElementById('root');

function draw(state: ViewState): void {
  if (!root) return;
  render(
    <PreviewView
      state={state}
      onOpenLink={(url) => {
        // Hosts open links for the view (a sandboxed frame may not open windows itself).
        void bridge.openLink(url).catch(() => undefined);
      }}
    />,
    root,
  );
}

draw({ kind: 'waiting' });
const bridge = connectHost(parentWindowChannel(win), { name: 'rcs-sms-preview', version: '1.0.0' }, {
  onToolResult: (result) => draw(viewStateOf(result)),
  onToolCancelled: () => draw({ kind: 'error', message: 'The preview was cancelled.' }),
});
// The host sizes its frame to the view once the handshake is done (the App's autoResize).
bridge.ready.then(
  () => reportSize(win, bridge),
  () => undefined, // No host answered: the view stays "Preparing the preview…".
);
