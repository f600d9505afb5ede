import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';

/** The in-chat preview's resource: one HTML document for both preview tools, filled by each tool result. */
export const PREVIEW_APP_URI = 'ui://rcs-sms/preview.html';
export const PREVIEW_APP_MIME_TYPE = RESOURCE_MIME_TYPE;

/**
 * `_meta` of rcs_preview and sms_preview: hosts with MCP Apps render PREVIEW_APP_URI with the
 * result. Visible to the model only: the view never calls tools (it has nothing to change; the
 * approval is on the share page). The legacy flat key is for hosts from before `ui.resourceUri`.
 */
export const PREVIEW_APP_TOOL_META: Readonly<Record<string, unknown>> = Object.freeze({
  ui: Object.freeze({ resourceUri: PREVIEW_APP_URI, visibility: Object.freeze(['model']) }),
  [RESOURCE_URI_META_KEY]: PREVIEW_APP_URI,
});
