import { registerAppResource, type McpUiAppResourceConfig } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { previewAppHtml } from './html.js';
import { PREVIEW_APP_MIME_TYPE, PREVIEW_APP_URI } from '../../../tools/preview-app-meta.js';

export { PREVIEW_APP_MIME_TYPE, PREVIEW_APP_TOOL_META, PREVIEW_APP_URI } from '../../../tools/preview-app-meta.js';
export { PreviewDisplaySchema, PreviewToolOutputSchema, withPreviewDisplay, type PreviewDisplay, type PreviewToolOutput } from '../../../tools/preview-display.js';
export { buildPreviewAppHtml, previewAppHtml } from './html.js';

export interface PreviewAppDeps {
  /** The ui:// document; defaults to the one built once per process (previewAppHtml). */
  html?: () => Promise<string>;
}

/**
 * The host-side CSP of the view: no origin at all (no network, no external images or scripts,
 * no frames). Media in a previewed message is named, not loaded; the share page shows it.
 */
const UI_META: NonNullable<McpUiAppResourceConfig['_meta']>['ui'] = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  permissions: {},
  prefersBorder: true,
};

/**
 * Registers the in-chat preview resource (MCP Apps) on a per-request McpServer: the document that
 * rcs_preview and sms_preview name in `_meta.ui.resourceUri`. Cheap per request: the document is
 * built once per process and only read here.
 */
export function registerPreviewApp(server: McpServer, deps: PreviewAppDeps = {}): void {
  const html = deps.html ?? previewAppHtml;
  registerAppResource(
    server,
    'Message preview',
    PREVIEW_APP_URI,
    {
      title: 'Message preview',
      description: 'Phone mockup of an rcs_preview / sms_preview result, with cost, warnings and the link to the approval page. Approval happens on that page only.',
      mimeType: PREVIEW_APP_MIME_TYPE,
      _meta: { ui: UI_META },
    },
    async () => ({ contents: [{ uri: PREVIEW_APP_URI, mimeType: PREVIEW_APP_MIME_TYPE, text: await html(), _meta: { ui: UI_META } }] }),
  );
}
