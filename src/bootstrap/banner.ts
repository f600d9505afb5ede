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
    `  Assistant API key:   ${demo.assistantKey}`,
    '      sends need approval: every message waits for a person on its preview page. Give THIS key to assistants.',
    `  Automation API key:  ${demo.automationKey}`,
    '      every permission, sends directly without approval: for your own server-side code, never for an assistant.',
    `  REST base:      ${publicUrl}/api/rcs`,
    `  MCP endpoint:   ${mcp}`,
    '',
    '  Senders (simulated network):',
    ...demo.senders.map((s) => `    ${s.id}  ${s.type}  ${s.name}${s.isTest ? ' (test sender)' : ''}`),
    '',
    '  Try it (automation key):',
    `    curl -H "X-API-Key: ${demo.automationKey}" ${publicUrl}/api/rcs/health`,
    '',
    '  Connect Claude Code (assistant key):',
    `    claude mcp add --transport http rcs ${mcp} --header "X-API-Key: ${demo.assistantKey}"`,
    '',
    '  Other MCP clients (JSON config, assistant key):',
    `    {"mcpServers": {"rcs": {"type": "http", "url": "${mcp}", "headers": {"X-API-Key": "${demo.assistantKey}"}}}}`,
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
