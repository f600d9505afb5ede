import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSETS_DIR, PROJECT_ROOT } from '../../platform/paths.js';

/** What the in-chat view adds to the share pages' stylesheet: it sits in a chat, not in a page frame. */
const VIEW_CSS = `
main.mcp-app { max-width: 780px; margin: 0 auto; padding: 12px; }
.mcp-app .card { padding: 16px; }
.mcp-app h1 { font-size: 19px; margin-bottom: 10px; }
a.button { display: inline-block; padding: 10px 16px; border-radius: 8px; background: var(--accent); color: var(--accent-ink); font-weight: 600; text-decoration: none; }
.app-approve { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; margin: 0; }
.app-mockup .recipient-current { margin: 0 0 10px; }
/* Media is named, never loaded here: no broken-image icon behind the note. */
.mcp-app .replaced img { visibility: hidden; }
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The view's entry: TypeScript under tsx/vitest, the compiled module under dist/src. The one-file server
 * (dist/server.mjs, scripts/bundle.mjs) has no folder of this module's: it bundles the view from the project's
 * sources, or from dist/src where only the build is there.
 */
function entryPoint(): string {
  const here = path.join(path.dirname(fileURLToPath(import.meta.url)), 'view');
  const candidates = [path.join(here, 'main.tsx'), path.join(here, 'main.js'), path.join(PROJECT_ROOT, 'src', 'mcp', 'apps', 'view', 'main.tsx')];
  return candidates.find((f) => fs.existsSync(f)) ?? path.join(PROJECT_ROOT, 'dist', 'src', 'mcp', 'apps', 'view', 'main.js');
}

/**
 * The ui:// document of the in-chat preview: the view bundled into one inline script (its MCP Apps
 * host bridge, Preact, zod/mini, the share page's phone components: ~65 KB minified; the whole
 * document stays under 150 KB, issue #30), the share pages' stylesheet inline, and a CSP
 * of its own that allows exactly these two by hash and nothing else: no network, no media, no
 * frames, no eval, no other script. The tool result arrives later over postMessage; no data is
 * in this document, so it is built once per process and served to everyone.
 */
export async function buildPreviewAppHtml(): Promise<string> {
  // Loaded only when the document is first built: serving MCP without the preview never needs it.
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [entryPoint()],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const script = out.outputFiles[0]!.text;
  const style = fs.readFileSync(path.join(ASSETS_DIR, 'app.css'), 'utf8') + VIEW_CSS;
  // Inline code must not be able to close its own element.
  if (/<\/script/i.test(script) || /<!--/.test(script)) throw new Error('preview view bundle contains </script or <!--');
  if (/<\/style/i.test(style)) throw new Error('preview view stylesheet contains </style');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "img-src 'none'",
    "media-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Message preview</title>',
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    '<div id="root"></div>',
    `<script>${script}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

let built: Promise<string> | undefined;

/** The document, built on first use and shared by every later request (a failed build is retried). */
export function previewAppHtml(): Promise<string> {
  built ??= buildPreviewAppHtml().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}
