import { describe, expect, it } from 'vitest';
import { isSampleUrl, placeholderUrl, sampleSrc, samplesOrigin } from '../../../src/sandbox/samples.js';
import { canonicalJson, renderSandboxContent } from '../../../src/sandbox/service.js';

const PUBLIC = 'http://localhost:3000';
const NOW = Date.UTC(2026, 0, 15, 12);

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: 2 }], c: 'é' } })).toBe('{"a":{"c":"é","d":[3,{"x":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson([undefined, null])).toBe('[null,null]');
  });
});

describe('sample URLs', () => {
  it('are listed as https on the public host and recognised by host and path', () => {
    expect(samplesOrigin(PUBLIC)).toBe('https://localhost:3000');
    const url = 'https://localhost:3000/api/rcs/sandbox/samples/coffee.png';
    expect(isSampleUrl(url, PUBLIC)).toBe(true);
    expect(isSampleUrl('http://LOCALHOST:3000/api/rcs/sandbox/samples/coffee.png', PUBLIC)).toBe(true);
    expect(isSampleUrl('https://evil.example/api/rcs/sandbox/samples/coffee.png', PUBLIC)).toBe(false);
    expect(isSampleUrl('https://localhost:3000/api/rcs/sandbox/samples/other.png', PUBLIC)).toBe(false);
    expect(isSampleUrl('https://localhost:3000/api/rcs/sandbox/samples/../../app.css', PUBLIC)).toBe(false);
    expect(isSampleUrl('not a url', PUBLIC)).toBe(false);
    expect(sampleSrc(url, PUBLIC)).toBe('/api/rcs/sandbox/samples/coffee.png');
    expect(sampleSrc('https://cdn.example.com/a.png', PUBLIC)).toBe('https://cdn.example.com/a.png');
  });
});

describe('renderSandboxContent', () => {
  it('replaces every foreign media URL (file, thumbnails, content.url) and keeps samples', () => {
    const sample = 'https://localhost:3000/api/rcs/sandbox/samples/landscape.jpg';
    const r = renderSandboxContent(
      'carousel',
      {
        cardContents: [
          { title: 'A', media: { height: 'SHORT', thumbnailUrl: 'https://t.example/t.jpg', contentInfo: { fileUrl: sample } } },
          { title: 'B {{contact_last_name}}', media: { height: 'SHORT', contentInfo: { fileUrl: 'https://f.example/f.jpg', thumbnailUrl: 'https://g.example/g.jpg' } } },
        ],
      },
      'Hi {{contact_first_name}} {{unknown}} {{unsubscribe_link}}',
      PUBLIC,
      NOW,
    );
    const ph = placeholderUrl(PUBLIC);
    expect(r.media).toEqual([
      { path: 'content.cardContents[0].media.thumbnailUrl', host: 't.example', replacedWith: ph },
      { path: 'content.cardContents[1].media.contentInfo.fileUrl', host: 'f.example', replacedWith: ph },
      { path: 'content.cardContents[1].media.contentInfo.thumbnailUrl', host: 'g.example', replacedWith: ph },
    ]);
    expect(r.content.cardContents![0]!.media!.contentInfo!.fileUrl).toBe(sample);
    expect(r.content.cardContents![1]!.title).toBe('B Morgan');
    expect(JSON.stringify(r.content)).not.toMatch(/[fgt]\.example\//);
    expect(r.smsFallback).toBe('Hi Alex  https://example.com/unsubscribe/sample');
  });

  it('fills {{today}} with the UTC date of creation', () => {
    const r = renderSandboxContent('text', { text: 'Today is {{today}}' }, null, PUBLIC, NOW);
    expect(r.content.text).toBe('Today is 15 January 2026');
    expect(r.smsFallback).toBeNull();
  });
});
