import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';

/** The 2025-line client: the 1.x SDK's Client over real HTTP, authenticated with an API key (or a Bearer token). */
export async function mcpClient(baseUrl: string, credential: string, query = '', header: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const headers: Record<string, string> = header === 'bearer' ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential };
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

/** What a 2026 client does when a call answers input_required with a URL elicitation. */
export type UrlElicitationHandler = (params: { message: string; url: string }) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

/**
 * The 2026-07-28 client: @modelcontextprotocol/client 2.x pinned to 2026-07-28 (no fallback), with
 * URL-mode elicitation declared when a handler is given (the SDK then fulfils input_required
 * results through it and retries the call by itself).
 */
export async function mcpClient2026(baseUrl: string, credential: string, opts: { query?: string; onUrl?: UrlElicitationHandler } = {}): Promise<Client2> {
  const client = new Client2(
    { name: 'test-client-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...(opts.onUrl && { capabilities: { elicitation: { url: {} } } }) },
  );
  if (opts.onUrl) {
    const onUrl = opts.onUrl;
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; message: string; url?: string };
      if (params.mode !== 'url' || !params.url) return { action: 'decline' };
      return onUrl({ message: params.message, url: params.url });
    });
  }
  const transport = new Transport2(new URL(`${baseUrl}/mcp${opts.query ?? ''}`), { requestInit: { headers: { 'X-API-Key': credential } } });
  await client.connect(transport);
  return client;
}

/** The JSON body of a tool result (structuredContent, or the error body of an isError result). */
export function body(result: unknown): any {
  const r = result as { structuredContent?: unknown; content?: { type: string; text: string }[]; isError?: boolean };
  if (r.structuredContent && !r.isError) return r.structuredContent;
  return JSON.parse(r.content?.[0]?.text ?? 'null');
}
