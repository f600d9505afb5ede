import path from 'node:path';
import { secureDirectory, writePrivateFile } from '../platform/data-dir.js';
import type { DemoCredentials } from './demo.js';

export const CREDENTIALS_FILE = 'first-start-credentials.txt';

/**
 * Where the first-start secrets go: to the terminal when stdout is one, else (a service manager,
 * a container, anything whose output ends up in a log collector) into a 0600 file in the data
 * directory, and only its path is printed. Returns what to print.
 */
export function deliverFirstStart(banner: string, o: { publicUrl: string; dataDir: string; isTTY: boolean }): string {
  if (o.isTTY) return banner;
  const file = path.join(o.dataDir, CREDENTIALS_FILE);
  secureDirectory(o.dataDir);
  writePrivateFile(file, banner);
  return [
    urlsBanner(o.publicUrl).trimEnd(),
    '',
    'First start: a demo account was created. Its credentials (password, TOTP secret, API key) were',
    `written to ${file} (mode 0600) instead of this output, which is not a terminal.`,
    'Read them, store them somewhere safe, then delete the file.',
    '',
  ].join('\n');
}

/** What the first start prints once: everything needed to log in and to connect an assistant. */
export async function firstStartBanner(publicUrl: string, demo: DemoCredentials, o: { terminal: boolean } = { terminal: true }): Promise<string> {
  // Loaded only for the one start that prints it.
  const { default: QRCode } = await import('qrcode');
  // A terminal draws the QR code with colour escapes; a file gets block characters a text editor shows as they are.
  const qr = await QRCode.toString(demo.otpauthUri, o.terminal ? { type: 'terminal', small: true } : { type: 'utf8' });
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
