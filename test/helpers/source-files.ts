import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The project's root, for tests that read its sources. */
export const PROJECT_ROOT = join(import.meta.dirname, '../..');

/**
 * The TypeScript sources (.ts, .tsx; never .d.ts) under the given top folders of the project, for
 * the tests that scan the code itself (table owners, hand walks of content). `skipFolders`: folder
 * names left out wherever they are (node_modules always).
 */
export function sourceFiles(roots: readonly string[], skipFolders: readonly string[] = []): string[] {
  const skip = new Set(['node_modules', ...skipFolders]);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!skip.has(name)) walk(path);
      } else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const root of roots) walk(join(PROJECT_ROOT, root));
  return files;
}
