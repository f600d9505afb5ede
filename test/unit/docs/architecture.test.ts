import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import layersFile from '../../../layers.json' with { type: 'json' };

/**
 * docs/architecture.md against layers.json, the list the import-layer rule in eslint.config.js is built from
 * (issue #32): the page names the same layers, in the same order, with the same folders in the same order, and the
 * same exceptions; every source folder of the repository stands in exactly one layer, and every listed one exists.
 */
interface Layers {
  layers: { name: string; folders: string[] }[];
  exceptions: { folder: string; imports: string; why: string }[];
}
const data = layersFile as Layers;
const root = new URL('../../../', import.meta.url);
const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8');
const codes = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Each `### n. name` section of the page with the folders of its "Folders, lowest first:" sentence. */
function docLayers(): { name: string; folders: string[] }[] {
  const sections = doc.split(/^### /m).slice(1);
  return sections.map((section, i) => {
    const [heading = '', ...rest] = section.split('\n');
    const match = /^(\d+)\. (.+)$/.exec(heading.trim());
    expect(match, heading).not.toBeNull();
    expect(Number(match![1])).toBe(i + 1);
    const body = rest.join('\n');
    const sentence = /Folders, lowest first: ([\s\S]*?)\.\n/.exec(body);
    expect(sentence, `folders of ${heading}`).not.toBeNull();
    return { name: match![2]!, folders: codes(sentence![1]!) };
  });
}

describe('docs/architecture.md and layers.json', () => {
  it('name the same layers with the same folders, in the same order', () => {
    expect(docLayers()).toEqual(data.layers.map(({ name, folders }) => ({ name, folders })));
  });

  it('the picture shows each layer on its own floor with its folders', () => {
    const picture = /```\n([\s\S]*?)```/.exec(doc)![1]!;
    data.layers.forEach((layer, i) => {
      expect(picture).toContain(`${i + 1} ${layer.name}`);
      for (const folder of layer.folders) expect(picture).toMatch(new RegExp(`(^|\\s)${folder.replace(/[.]/g, '\\.')}(\\s|$)`, 'm'));
    });
  });

  it('list the same exceptions', () => {
    const section = doc.slice(doc.indexOf('## Exceptions'));
    const items = section.split('\n- ').slice(1).map((item) => codes(item).slice(0, 2));
    expect(items).toEqual(data.exceptions.map((e) => [e.folder, e.imports]));
  });

  it('every source folder stands in exactly one layer, and every listed one exists', () => {
    const listed = data.layers.flatMap((l) => l.folders);
    expect(new Set(listed).size).toBe(listed.length);
    const src = readdirSync(new URL('src/', root)).map((name) => `src/${name}`);
    const units = [...src.filter((p) => statSync(new URL(p, root)).isDirectory() || /\.tsx?$/.test(p)), 'tools', 'oauth', 'preview-pages'];
    expect([...listed].sort()).toEqual(units.sort());
    for (const e of data.exceptions) {
      expect(listed).toContain(e.folder);
      expect(statSync(new URL(e.imports, root)).isFile()).toBe(true);
      expect(e.why.length).toBeGreaterThan(0);
    }
  });
});
