import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../helpers/source-files.js';

/**
 * Content is walked in one place (issue #32): src/content/walk.ts visits every text, button,
 * action and media item with its path, and code outside src/content asks it instead of reaching
 * into the content's nesting itself. The test parses the sources (src/, oauth/, tools/,
 * preview-pages/; src/content aside) and counts the reads of the nesting keys — property access,
 * `['key']` access and destructuring of `suggestions`, `cardContents`, `cardActions` and
 * `contentInfo` — per file. A file not in ALLOWED may have none; a listed file exactly its
 * count, so the list may only shrink: a file that reads fewer must lower its entry.
 */

const ROOT = join(import.meta.dirname, '../../..');
const NESTING_KEYS: ReadonlySet<string> = new Set(['suggestions', 'cardContents', 'cardActions', 'contentInfo']);

const ALLOWED: Record<string, { reads: number; why: string }> = {
  'src/carriers/rbm/translate.ts': {
    reads: 9,
    why: "builds RBM's own message shape field by field (standaloneCard, carouselCard, its suggestions); a shape-to-shape translation, not a visit of items",
  },
  'preview-pages/phone/phone.tsx': {
    reads: 13,
    why: 'the phone mockup draws each part of the shape with its own component (card, carousel, chips, media); rendering, not a visit of items',
  },
};

function sources(): string[] {
  return sourceFiles(['src', 'oauth', 'tools', 'preview-pages']).filter((f) => !relative(ROOT, f).startsWith('src/content/'));
}

/** `key:line` of every read of a nesting key in a source text. */
function nestingReads(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    let key: string | null = null;
    if (ts.isPropertyAccessExpression(node)) key = node.name.text;
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) key = node.argumentExpression.text;
    else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const name = node.propertyName ?? node.name;
      key = ts.isIdentifier(name) || ts.isStringLiteralLike(name) ? name.text : null;
    }
    if (key !== null && NESTING_KEYS.has(key)) out.push(`${key}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('content is walked only in src/content', () => {
  it('finds property, element and destructuring reads, and no mention in strings or comments', () => {
    const text = [
      "// content.suggestions in a comment, 'content.cardContents[1]' in a string",
      'const a = c.suggestions?.[0];',
      "const b = c['cardActions'];",
      'const { contentInfo } = media;',
      'const { cardContents: cards } = content;',
      'const ok = { suggestions: [] };',
    ].join('\n');
    expect(nestingReads('x.ts', text)).toEqual(['suggestions:2', 'cardActions:3', 'contentInfo:4', 'cardContents:5']);
  });

  it('no file outside src/content reads the nesting of content beyond its allowance', () => {
    const found: Record<string, string[]> = {};
    for (const file of sources()) {
      const reads = nestingReads(file, readFileSync(file, 'utf8'));
      if (reads.length > 0) found[relative(ROOT, file)] = reads;
    }
    const over = Object.entries(found)
      .filter(([file, reads]) => reads.length > (ALLOWED[file]?.reads ?? 0))
      .map(([file, reads]) => `${file}: ${reads.join(', ')} — visit content with contentItems (src/content/walk.ts)`);
    expect(over).toEqual([]);
    const shrunk = Object.entries(ALLOWED)
      .filter(([file, a]) => (found[file]?.length ?? 0) < a.reads)
      .map(([file, a]) => `${file}: ${found[file]?.length ?? 0} reads, allowed ${a.reads}; lower (or remove) its entry`);
    expect(shrunk).toEqual([]);
  });
});
