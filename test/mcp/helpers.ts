import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The SDK's own client over real HTTP, authenticated with an API key (or a Bearer token). */
export async function mcpClient(baseUrl: string, credential: string, query = '', header: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const headers: Record<string, string> = header === 'bearer' ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential };
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

/** The JSON body of a tool result (structuredContent, or the error body of an isError result). */
export function body(result: unknown): any {
  const r = result as { structuredContent?: unknown; content?: { type: string; text: string }[]; isError?: boolean };
  if (r.structuredContent && !r.isError) return r.structuredContent;
  return JSON.parse(r.content?.[0]?.text ?? 'null');
}
