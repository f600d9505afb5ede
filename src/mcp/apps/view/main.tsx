/**
 * Browser entry of the in-chat preview (bundled by ../html.ts into the ui:// resource). Connects
 * to the host with the ext-apps App (postMessage, JSON-RPC), and draws the tool result the host
 * sends with Preact: escaped by construction, no HTML strings.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { render, type ContainerNode } from 'preact';
import { z } from 'zod';
import { viewStateOf, type ViewState } from './model.js';
import { PreviewView } from './preview-view.js';

// The view's CSP has no 'unsafe-eval': zod must not try to compile validators with new Function
// (the attempt alone would report a CSP violation).
z.config({ jitless: true });

const doc = (globalThis as unknown as { document: { getElementById(id: string): ContainerNode | null } }).document;
const root = doc.getElementById('root');
const app = new App({ name: 'rcs-sms-preview', version: '1.0.0' }, {}, { autoResize: true });

function draw(state: ViewState): void {
  if (!root) return;
  render(
    <PreviewView
      state={state}
      onOpenLink={(url) => {
        // Hosts open links for the view (a sandboxed frame may not open windows itself).
        void app.openLink({ url }).catch(() => undefined);
      }}
    />,
    root,
  );
}

app.ontoolresult = (result) => draw(viewStateOf(result));
app.ontoolcancelled = () => draw({ kind: 'error', message: 'The preview was cancelled.' });
draw({ kind: 'waiting' });
void app.connect();
