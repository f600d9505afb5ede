/**
 * The server in one file: dist/server.mjs, what `npm start` runs (scripts/start.mjs) and what a deployment runs
 * (`node dist/server.mjs`). Issue #31: a start spent most of its time in Node's module loader — ~400 of our modules
 * and ~1,900 of the packages' (kysely alone resolves ~1,000 files, zod ~300, libphonenumber-js ~230, jose ~180) —
 * and one bundled file loads in about half the time (bench/startup.ts, bench/README.md "Session 15").
 *
 * The same sources as dist/src (typechecked by `tsc -b`, which runs first); npm packages are bundled too, except:
 * - better-sqlite3 and esbuild: native code, loaded from node_modules as installed;
 * - smpp: loaded with createRequire only when an SMPP link is configured (src/carriers/smpp/smpp-lib.ts);
 * - pg-native: pg's optional native driver, never used.
 * Files the server reads at run time are found from the project root (src/platform/paths.ts; the MCP app's view,
 * src/mcp/apps/html.ts), not next to this file. test/reliability/bundle.test.ts starts a bundle and uses it.
 *
 *   node scripts/bundle.mjs
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = path.join(root, 'dist', 'server.mjs');

/** Writes the bundle (to `outfile`: tests put theirs elsewhere, below the project root so it finds package.json). */
export async function bundleServer(outfile = BUNDLE) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(root, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'esbuild', 'smpp', 'pg-native'],
    // CommonJS packages inside an ES module bundle still call require() (for Node's own modules, and the externals).
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleServer();
