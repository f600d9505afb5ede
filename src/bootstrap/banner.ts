import type { DemoCredentials } from './demo.js';

/** What the first start prints once: everything needed to log in and to connect an assistant. */
export async function firstStartBanner(publicUrl: string, demo: DemoCredentials): Promise<string> {
  // Loaded only for the one start that prints it.
  const { default: QRCode } = await import('qrcode');
  const qr = await QRCode.toString(demo.otpauthUri, { type: 'terminal', small: true });
  const mcp = `${publicUrl}/mcp`;
  return [
    '',
    '================ First start: demo account created ================',
    'These secrets are shown ONCE. Store them now.',
    '',
    `  Console:        ${publicUrl}/login`,
    `  Email:          ${demo.email}`,
    `  Password:       ${demo.password}`,
    `  TOTP secret:    ${demo.totpSecret}`,
    `  TOTP URI:       ${demo.otpauthUri}`,
    '',
    'Scan with an authenticator app (second factor for the console):',
    qr,
    `  API key:        ${demo.apiKey}`,
    `  REST base:      ${publicUrl}/api/rcs`,
    `  MCP endpoint:   ${mcp}`,
    '',
    '  Senders (simulated network):',
    ...demo.senders.map((s) => `    ${s.id}  ${s.type}  ${s.name}${s.isTest ? ' (test sender)' : ''}`),
    '',
    '  Try it:',
    `    curl -H "X-API-Key: ${demo.apiKey}" ${publicUrl}/api/rcs/health`,
    '',
    '  Connect Claude Code:',
    `    claude mcp add --transport http rcs ${mcp} --header "X-API-Key: ${demo.apiKey}"`,
    '',
    '  Other MCP clients (JSON config):',
    `    {"mcpServers": {"rcs": {"type": "http", "url": "${mcp}", "headers": {"X-API-Key": "${demo.apiKey}"}}}}`,
    '====================================================================',
    '',
  ].join('\n');
}

export function urlsBanner(publicUrl: string): string {
  return [
    '',
    `RCS MCP Server ready`,
    `  Console:      ${publicUrl}/login`,
    `  REST base:    ${publicUrl}/api/rcs`,
    `  MCP endpoint: ${publicUrl}/mcp`,
    '',
  ].join('\n');
}
