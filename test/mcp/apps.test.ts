import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../tools/index.js';
import { PREVIEW_APP_MIME_TYPE, PREVIEW_APP_URI, PreviewToolOutputSchema, registerPreviewApp } from '../../src/mcp/apps/index.js';
import { mediaPaths, viewStateOf } from '../../src/mcp/apps/view/model.js';
import { PreviewView } from '../../src/mcp/apps/view/preview-view.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';

/**
 * The in-chat preview (MCP Apps, issue #16): the ui:// resource, the tools that name it, the
 * display data the preview tools add, and the view drawn from a real preview result.
 */

const PREVIEW_TOOLS = ['rcs_preview', 'sms_preview'];

/** An McpServer as the per-request factory builds it: the tools with their `meta`, and the preview app. */
async function inMemory(html: () => Promise<string> = async () => '<!doctype html><p>view</p>') {
  const server = new McpServer({ name: 'apps-test', version: '1.0.0' });
  for (const def of ALL_TOOLS.filter((t) => PREVIEW_TOOLS.includes(t.name) || t.name === 'rcs_send')) {
    server.registerTool(def.name, { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations, ...(def.meta ? { _meta: { ...def.meta } } : {}) }, async () => ({ content: [{ type: 'text', text: '{}' }] }));
  }
  registerPreviewApp(server, { html });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'apps-test-client', version: '1.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  return { client, close: async () => (await client.close(), await server.close()) };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

describe('the ui:// resource and the tools that name it', () => {
  it('lists the preview resource with the MCP Apps mime type and a CSP that allows no origin', async () => {
    const c = await inMemory();
    try {
      const { resources } = await c.client.listResources();
      const app = resources.find((r) => r.uri === PREVIEW_APP_URI);
      expect(app).toBeDefined();
      expect(app!.mimeType).toBe('text/html;profile=mcp-app');
      expect(PREVIEW_APP_MIME_TYPE).toBe('text/html;profile=mcp-app');
      expect(PREVIEW_APP_URI.startsWith('ui://')).toBe(true);
      expect(app!._meta).toMatchObject({ ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] } } });
    } finally {
      await c.close();
    }
  });

  it('reads the document the loader gives, once per read, with the ui meta on the content', async () => {
    let calls = 0;
    const c = await inMemory(async () => (calls++, '<!doctype html><p>the view</p>'));
    try {
      const read = await c.client.readResource({ uri: PREVIEW_APP_URI });
      expect(read.contents).toHaveLength(1);
      const item = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> };
      expect(item).toMatchObject({ uri: PREVIEW_APP_URI, mimeType: 'text/html;profile=mcp-app', text: '<!doctype html><p>the view</p>' });
      expect(item._meta).toMatchObject({ ui: { csp: { resourceDomains: [] } } });
      expect(calls).toBe(1);
      await expect(c.client.readResource({ uri: 'ui://rcs-sms/other.html' })).rejects.toThrow();
    } finally {
      await c.close();
    }
  });

  it('tools/list shows _meta.ui.resourceUri on rcs_preview and sms_preview only, model-visible', async () => {
    const c = await inMemory();
    try {
      const { tools } = await c.client.listTools();
      for (const name of PREVIEW_TOOLS) {
        const tool = tools.find((x) => x.name === name)!;
        expect(tool._meta).toMatchObject({ ui: { resourceUri: PREVIEW_APP_URI, visibility: ['model'] }, 'ui/resourceUri': PREVIEW_APP_URI });
      }
      expect(tools.find((x) => x.name === 'rcs_send')!._meta?.ui).toBeUndefined();
      // No other tool of the catalogue declares a view.
      expect(ALL_TOOLS.filter((x) => x.meta).map((x) => x.name).sort()).toEqual([...PREVIEW_TOOLS].sort());
    } finally {
      await c.close();
    }
  });
});

describe('the built document', () => {
  it('is one self-contained page: inline script and style allowed by hash, nothing else, no data in it', async () => {
    const { buildPreviewAppHtml, previewAppHtml } = await import('../../src/mcp/apps/html.js');
    const html = await previewAppHtml();
    expect(await previewAppHtml()).toBe(html); // built once
    const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).not.toMatch(/unsafe-(inline|eval)|https?:|\*/);
    const { createHash } = await import('node:crypto');
    const script = html.match(/<script>([\s\S]*)<\/script>/)![1]!;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    // Deterministic: a second build is byte-identical (so hosts may cache it).
    expect(await buildPreviewAppHtml()).toBe(html);
  });

  it('is at most 150 KB as resources/read serves it, and is built once per process, not per read (issue #30)', async () => {
    const { previewAppHtml } = await import('../../src/mcp/apps/html.js');
    // One build shared by every later call: the same promise, not an equal string built again.
    expect(previewAppHtml()).toBe(previewAppHtml());
    // The resource as a host reads it, through the default loader of registerPreviewApp.
    const c = await inMemory(previewAppHtml);
    try {
      const texts: string[] = [];
      for (let i = 0; i < 2; i++) {
        const read = await c.client.readResource({ uri: PREVIEW_APP_URI });
        texts.push((read.contents[0] as { text: string }).text);
      }
      expect(texts[1]).toBe(texts[0]);
      const bytes = Buffer.byteLength(texts[0]!, 'utf8');
      console.log(`ui:// preview resource: ${bytes} bytes (${(bytes / 1024).toFixed(1)} KB)`);
      expect(bytes).toBeLessThanOrEqual(150 * 1024);
      // The page still draws: its entry, Preact and the phone are in it (a stub would pass the size check).
      expect(texts[0]).toContain('ui/initialize');
      expect(texts[0]).toContain('ui/notifications/tool-result');
      expect(texts[0]).toContain('data-testid');
    } finally {
      await c.close();
    }
  });
});

describe('rcs_preview and sms_preview results carry what the mockup draws', () => {
  it('rcs_preview: sender names and the first recipient’s merged message, valid against the output schema', async () => {
    const contact = await t.ctx.services.contacts.create(t.account.accountId, { phone: '+4915112350001', firstName: 'Ada' });
    expect(contact).toBeDefined();
    const c = await mcpClient(t.url, t.account.apiKey);
    const r = body(
      await c.callTool({
        name: 'rcs_preview',
        arguments: {
          phoneNumbers: ['+4915112350001', '+4915112350002'],
          messageType: 'richCard',
          content: { title: 'Hi {{contact_first_name}}', description: 'Spring sale', suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }] },
          sendernameId: t.account.senders.rcs,
          smsFallback: { message: 'Hi {{contact_first_name}}, spring sale', sendernameId: t.account.senders.sms },
        },
      }),
    );
    await c.close();
    expect(PreviewToolOutputSchema.safeParse(r).success).toBe(true);
    expect(r.display.senderName).toMatch(/^RCS Agent /);
    expect(r.display.fallbackSenderName).toMatch(/^SMSCO/);
    expect(r.display.messageType).toBe('richCard');
    expect(r.display.content.title).toBe('Hi Ada');
    expect(r.samples[0].fallbackText).toBe('Hi Ada, spring sale');
  });

  it('sms_preview: the sender name, no RCS content', async () => {
    const c = await mcpClient(t.url, t.account.apiKey);
    const r = body(await c.callTool({ name: 'sms_preview', arguments: { phoneNumber: '+4915112350003', message: 'Your code is ready', sendernameId: t.account.senders.sms } }));
    await c.close();
    expect(r.error).toBeUndefined();
    expect(r.display).toEqual({ senderName: expect.stringMatching(/^SMSCO/), fallbackSenderName: null, messageType: null, content: null });
  });
});

describe('the view drawn from a tool result', () => {
  const result = (over: Record<string, unknown> = {}) => ({
    preview_id: 'prv_x',
    share_url: 'https://rcs.example.com/preview/abcdefghijklmnopqrst',
    approval_required: true,
    status: 'pending',
    expires_at: '2026-11-24T09:00:00.000Z',
    kind: 'rcs_batch',
    send_with: 'rcs_send_batch',
    recipients: { accepted: 3, duplicates: 1, rejected: [{ phoneNumber: '+1', code: 'INVALID', reason: 'bad number' }] },
    creditsEstimated: 0.105,
    samples: [{ phoneNumber: '+4915112350001', text: 'x', fallbackText: null, creditsCost: 0.035 }],
    warnings: [{ path: 'content.text', code: 'empty_merge_value', message: 'contact_first_name is empty for 2 recipients' }],
    payload: { messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: 'snd_1' },
    nextStep: 'Ask the user…',
    display: { senderName: 'Shop <b>Agent</b>', fallbackSenderName: null, messageType: 'text', content: { text: '<img src=x onerror=alert(1)> Hi Ada' } },
    ...over,
  });
  const draw = (r: unknown) => renderToString(h(PreviewView, { state: viewStateOf({ structuredContent: r }) }));

  it('shows recipients, cost, warnings, the merged message escaped, and the approval link — no approve button', () => {
    const html = draw(result());
    expect(html).toContain('RCS message to 3 recipients');
    expect(html).toMatch(/data-testid="app-recipients">3 \(1 duplicates removed\) · 1 not sent to/);
    expect(html).toContain('0.105 credits');
    expect(html).toContain('data-warning-code="empty_merge_value"');
    expect(html).toContain('class="mockup flagged"');
    expect(html).toContain('&lt;img src=x onerror=alert(1)> Hi Ada');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('Shop &lt;b>Agent&lt;/b>');
    expect(html).toContain('href="https://rcs.example.com/preview/abcdefghijklmnopqrst"');
    expect(html).not.toMatch(/<form|<button|data-testid="approve"/i);
  });

  it('draws the message as written when there is no merged sample, and the SMS phone for SMS', () => {
    expect(draw(result({ display: undefined, samples: [] }))).toContain('Shown as written');
    const sms = draw(result({ kind: 'sms', send_with: 'sms_send', recipients: { accepted: 1, duplicates: 0, rejected: [] }, samples: [{ phoneNumber: '+4915112350003', text: 'Code 123', fallbackText: null, creditsCost: 0.07 }], payload: { message: 'Code {{x}}', sendernameId: 'snd_2' }, smsSegments: 1, smsEncoding: 'GSM-7', display: { senderName: 'SMSCO', fallbackSenderName: null, messageType: null, content: null }, warnings: [] }));
    expect(sms).toContain('SMS message to +4915112350003');
    expect(sms).toContain('bubble-sms');
    expect(sms).toContain('Code 123');
    expect(sms).toContain('1 segment, GSM-7');
  });

  it('never links anything but a web address', () => {
    expect(draw(result({ share_url: 'javascript:alert(1)' }))).not.toContain('javascript:');
  });

  it('names media instead of loading it', () => {
    const html = draw(result({ display: { senderName: 'A', fallbackSenderName: null, messageType: 'richCard', content: { title: 'T', media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg' } } } } }));
    expect(html).toContain('Media from cdn.example.com is not shown here');
    expect(html).toContain('https://cdn.example.com/a.jpg'); // printed as text for the person
    expect(html).not.toContain('src="https://cdn.example.com');
    expect(mediaPaths({ url: 'https://x.test/v.mp4', cardContents: [{ media: { contentInfo: { fileUrl: 'not a url', thumbnailUrl: 'https://t.test/t.png' } } }] })).toEqual([
      { path: 'content.url', host: 'x.test' },
      { path: 'content.cardContents[0].media.contentInfo.fileUrl', host: 'an invalid address' },
      { path: 'content.cardContents[0].media.contentInfo.thumbnailUrl', host: 't.test' },
    ]);
  });

  it('reads the text block when there is no structuredContent, shows tool errors, refuses other results', () => {
    expect(viewStateOf({ content: [{ type: 'text', text: JSON.stringify(result()) }] }).kind).toBe('preview');
    expect(viewStateOf({ isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'phoneNumbers[0]: not a number' } }) }] })).toEqual({ kind: 'error', message: 'phoneNumbers[0]: not a number' });
    expect(viewStateOf({ isError: true, content: [{ type: 'text', text: 'plain failure' }] })).toEqual({ kind: 'error', message: 'plain failure' });
    expect(viewStateOf({ content: [{ type: 'text', text: '{broken' }] }).kind).toBe('error');
    expect(viewStateOf({ structuredContent: { ...result(), creditsEstimated: 'free' } }).kind).toBe('error');
    expect(viewStateOf({ structuredContent: { ...result(), kind: 'fax' } }).kind).toBe('error');
    expect(renderToString(h(PreviewView, { state: viewStateOf({ structuredContent: null }) }))).toContain('not a message preview');
  });
});
