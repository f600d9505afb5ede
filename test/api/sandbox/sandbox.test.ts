import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../../../src/app.js';
import { validateContent, MESSAGE_TYPES } from '../../../src/content/index.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { SAMPLES_PATH, SANDBOX_PATH } from '../../../src/sandbox/samples.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshIp, sandboxClient } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
let t: TestServer;
let clock: FakeClock;

beforeAll(async () => {
  clock = new FakeClock();
  t = await startTestServer({ clock, env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await t.close();
});

const sample = (file: string) => `https://${new URL(t.url).host}${SAMPLES_PATH}/${file}`;

function carousel() {
  return {
    messageType: 'carousel',
    content: {
      cardContents: [
        { title: 'Lake cruise', description: 'Hi {{contact_first_name}}', media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('landscape.jpg'), contentType: 'image/jpeg' } } },
        { title: 'City lights', media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('skyline.jpg'), contentType: 'image/jpeg' } } },
      ],
      suggestions: [{ reply: { text: 'Yes' } }, { action: { text: 'Call', type: 'dial', dialAction: { phoneNumber: '+15550100' } } }],
    },
  };
}

describe('POST /sandbox/validate', () => {
  it('needs no credentials and echoes accepted-and-ignored fields', async () => {
    const call = sandboxClient(t);
    const r = await call('POST', '/validate', {
      messageType: 'text',
      content: { text: 'Hello' },
      phoneNumber: '+4915112345678',
      sendernameId: 'snd_x',
      scheduleAt: 'whenever',
      batchSize: 'not even a number',
      smsFallback: { message: 'Hello', sendernameId: 'snd_sms' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(r.body.sandbox.ignored_fields).toEqual(['phoneNumber', 'sendernameId', 'scheduleAt', 'batchSize', 'smsFallback.sendernameId']);
    expect(r.body.sms).toEqual({ encoding: 'GSM-7', segments: 1, units: 5, unicodeCharacters: [], perSegment: 160, length: 5 });
  });

  it('answers 200 with valid:false and precise paths for content that breaks the rules', async () => {
    const r = await sandboxClient(t)('POST', '/validate', { messageType: 'text', content: { text: 'x'.repeat(3073), suggestions: [{ reply: { text: 'y'.repeat(26) } }] } });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('content.text');
    expect(paths).toContain('content.suggestions[0].reply.text');
    expect(r.body.sandbox).toEqual({ ignored_fields: [] });
  });

  it('names the characters that force Unicode in the SMS fallback', async () => {
    const r = await sandboxClient(t)('POST', '/validate', { messageType: 'text', content: { text: 'Hi' }, smsFallback: { message: 'Sale 🎉 now' } });
    expect(r.status).toBe(200);
    expect(r.body.sms).toMatchObject({ encoding: 'Unicode', segments: 1, unicodeCharacters: ['🎉'] });
    expect(r.body.warnings.map((w: { code: string }) => w.code)).toContain('sms_unicode');
  });

  it.each([
    ['missing messageType', { content: { text: 'x' } }, 'messageType', 'required'],
    ['missing content', { messageType: 'text' }, 'content', 'required'],
    ['null content', { messageType: 'text', content: null }, 'content', 'required'],
    ['unknown messageType', { messageType: 'fax', content: { text: 'x' } }, 'messageType', 'invalid_enum'],
    ['content not an object', { messageType: 'text', content: 'hello' }, 'content', 'invalid_type'],
    ['smsFallback not an object', { messageType: 'text', content: { text: 'x' }, smsFallback: 'hi' }, 'smsFallback', 'invalid_type'],
    ['unknown top-level field', { messageType: 'text', content: { text: 'x' }, contnet: {} }, 'contnet', 'unknown_field'],
  ])('400 VALIDATION_ERROR in the /send error shape for %s', async (_name, body, path, code) => {
    const r = await sandboxClient(t)('POST', '/validate', body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: expect.arrayContaining([{ path, code, message: expect.any(String) }]) } });
  });

  it('400 for a body that is not an object, INVALID_JSON for broken JSON', async () => {
    const call = sandboxClient(t);
    expect((await call('POST', '/validate', [1, 2])).status).toBe(400);
    const r = await call('POST', '/validate', undefined, { rawBody: '{"messageType":' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_JSON');
  });

  it('accepts content of exactly 256,000 bytes of JSON and answers 413 at 256,001', async () => {
    const call = sandboxClient(t);
    // {"text":"…"} is 11 bytes plus the text.
    const at = await call('POST', '/validate', { messageType: 'text', content: { text: 'a'.repeat(256_000 - 11) } });
    expect(at.status).toBe(200);
    expect(at.body.valid).toBe(false); // far over the 3072-character text limit, but not too large
    const over = await call('POST', '/validate', { messageType: 'text', content: { text: 'a'.repeat(256_001 - 11) } });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', actualBytes: 256_001, maxBytes: 256_000 } });
    const preview = await call('POST', '/preview', { messageType: 'text', content: { text: 'a'.repeat(256_001 - 11) } });
    expect(preview.status).toBe(413);
  });

  it('measures bytes, not characters (UTF-8)', async () => {
    // 127,995 two-byte characters: 128,006 characters of JSON but 256,001 bytes.
    const r = await sandboxClient(t)('POST', '/validate', { messageType: 'text', content: { text: 'é'.repeat(127_995) } });
    expect(r.status).toBe(413);
  });
});

describe('POST /sandbox/preview', () => {
  it('stores a preview: sbx_ id, share_url ending in an unguessable slug, expiry after 24 hours', async () => {
    const r = await sandboxClient(t)('POST', '/preview', { ...carousel(), phoneNumber: '+4915112345678' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, errors: [], sandbox: { ignored_fields: ['phoneNumber'], media: [] } });
    const { id, share_url, expires_at } = r.body.preview;
    expect(id).toMatch(/^sbx_[0-9A-HJKMNP-TV-Z]{26}$/);
    const slug = new URL(share_url).pathname.split('/').pop()!;
    expect(share_url).toBe(`${t.url}/sandbox/p/${slug}`);
    expect(slug).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(slug).not.toContain(id.slice(4));
    expect(Date.parse(expires_at)).toBe(clock.now() + DAY);
  });

  it('returns the same link for identical input, whatever the key order or ignored fields', async () => {
    const call = sandboxClient(t);
    const a = await call('POST', '/preview', carousel());
    const reordered = { content: { suggestions: carousel().content.suggestions, cardContents: carousel().content.cardContents }, messageType: 'carousel', campaignName: 'x' };
    const b = await call('POST', '/preview', reordered);
    expect(b.body.preview).toEqual(a.body.preview);
    const other = await call('POST', '/preview', { messageType: 'text', content: { text: 'something else' } });
    expect(other.body.preview.share_url).not.toBe(a.body.preview.share_url);
    expect(other.body.preview.id).not.toBe(a.body.preview.id);
  });

  it('answers 400 with the /send error shape and the validation result beside it', async () => {
    const r = await sandboxClient(t)('POST', '/preview', { messageType: 'richCard', content: { media: { height: 'HUGE' } }, sendernameId: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details).toEqual(r.body.errors);
    expect(r.body.errors.length).toBeGreaterThan(0);
    expect(r.body).toMatchObject({ valid: false, warnings: expect.any(Array), sandbox: { ignored_fields: ['sendernameId'] } });
    expect(r.body.preview).toBeUndefined();
  });

  it('replaces foreign media by a placeholder and never returns the foreign URL, only its host', async () => {
    const call = sandboxClient(t);
    const secretUrl = 'https://cdn.example.org/private/photo-4711.jpg?token=abc';
    const r = await call('POST', '/preview', {
      messageType: 'richCard',
      content: { title: 'Card', media: { height: 'SHORT', contentInfo: { fileUrl: secretUrl, thumbnailUrl: 'https://thumbs.example.net/t.jpg' } } },
    });
    expect(r.status).toBe(200);
    expect(r.body.sandbox.media).toEqual([
      { path: 'content.media.contentInfo.fileUrl', host: 'cdn.example.org', replacedWith: sample('placeholder.png') },
      { path: 'content.media.contentInfo.thumbnailUrl', host: 'thumbs.example.net', replacedWith: sample('placeholder.png') },
    ]);
    const slug = r.body.preview.share_url.split('/').pop();
    const got = await call('GET', `/preview/${slug}`);
    expect(got.status).toBe(200);
    const text = JSON.stringify(got.body);
    expect(text).not.toContain('photo-4711');
    expect(text).not.toContain('thumbs.example.net/t.jpg');
    expect(got.body.content.media.contentInfo.fileUrl).toBe(sample('placeholder.png'));
    expect(got.body.sandbox.media.map((m: { host: string }) => m.host)).toEqual(['cdn.example.org', 'thumbs.example.net']);
    // Not stored either.
    const rows = await t.ctx.db.selectFrom('sandbox_previews').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('photo-4711');
    const page = await fetch(r.body.preview.share_url);
    expect(await page.text()).not.toContain('photo-4711');
  });

  it('reports one entry per replaced URL across carousel cards and media messages', async () => {
    const call = sandboxClient(t);
    const c = carousel();
    c.content.cardContents[1]!.media.contentInfo.fileUrl = 'https://img.example.com/b.jpg';
    const r = await call('POST', '/preview', c);
    expect(r.body.sandbox.media).toEqual([{ path: 'content.cardContents[1].media.contentInfo.fileUrl', host: 'img.example.com', replacedWith: sample('placeholder.png') }]);
    const v = await call('POST', '/preview', { messageType: 'video', content: { url: 'https://videos.example.com/v.mp4' } });
    expect(v.body.sandbox.media).toEqual([{ path: 'content.url', host: 'videos.example.com', replacedWith: sample('placeholder.png') }]);
  });
});

describe('GET /sandbox/preview/{slug}', () => {
  it('returns rendered content with sample merge values, warnings and expiry', async () => {
    const call = sandboxClient(t);
    const created = await call('POST', '/preview', {
      messageType: 'richCard',
      content: { title: 'Hi {{contact_first_name}} from {{company_name}}', description: '{{my_custom_tag}} stays', media: { contentInfo: { fileUrl: sample('coffee.png') } } },
      smsFallback: { message: 'Hi {{contact_first_name}}, {{my_custom_tag}}!', sendernameId: 'snd_1' },
    });
    expect(created.status).toBe(200);
    const slug = created.body.preview.share_url.split('/').pop();
    const r = await call('GET', `/preview/${slug}`);
    expect(r.status).toBe(200);
    expect(r.body.preview).toEqual({ id: created.body.preview.id, share_url: created.body.preview.share_url, created_at: new Date(clock.now()).toISOString(), expires_at: created.body.preview.expires_at });
    expect(r.body.messageType).toBe('richCard');
    expect(r.body.content.title).toBe('Hi Alex from Example Coffee Co.');
    expect(r.body.content.description).toBe('{{my_custom_tag}} stays');
    expect(r.body.content.media.height).toBe('TALL'); // normalized
    expect(r.body.content.cardOrientation).toBe('VERTICAL');
    expect(r.body.smsFallback).toEqual({ message: 'Hi Alex, !' });
    expect(r.body.sms).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    const codes = r.body.warnings.map((w: { code: string }) => w.code);
    expect(codes).toContain('media_height_missing');
    expect(codes).toContain('unknown_merge_field');
    expect(r.body.sandbox.merge_values).toMatchObject({ contact_first_name: 'Alex' });
  });

  it('404 for unknown, malformed and expired slugs; expired previews are purged; the same input then gets a new link', async () => {
    const call = sandboxClient(t);
    expect((await call('GET', '/preview/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    const bad = await call('GET', '/preview/not-a-slug');
    expect(bad.status).toBe(404);
    expect(bad.body.error.code).toBe('NOT_FOUND');

    const body = { messageType: 'text', content: { text: `expiring ${Math.random()}` } };
    const created = await call('POST', '/preview', body);
    const slug = created.body.preview.share_url.split('/').pop();
    clock.advance(DAY - 1);
    expect((await call('GET', `/preview/${slug}`)).status).toBe(200);
    clock.advance(1);
    const gone = await call('GET', `/preview/${slug}`);
    expect(gone.status).toBe(404);
    const row = await t.ctx.db.selectFrom('sandbox_previews').select('id').where('id', '=', created.body.preview.id).executeTakeFirst();
    expect(row).toBeUndefined();
    const again = await call('POST', '/preview', body);
    expect(again.body.preview.share_url).not.toBe(created.body.preview.share_url);
    expect(again.body.preview.id).not.toBe(created.body.preview.id);
  });

  it('sweep() deletes expired previews and day-old rate events', async () => {
    await sandboxClient(t)('POST', '/preview', { messageType: 'text', content: { text: `sweep ${Math.random()}` } });
    clock.advance(DAY + 1);
    const swept = await t.ctx.services.sandbox.sweep();
    expect(swept.previews).toBeGreaterThanOrEqual(1);
    expect(swept.rateEvents).toBeGreaterThanOrEqual(1);
    const left = await t.ctx.db.selectFrom('sandbox_previews').select('id').where('expires_at', '<=', clock.now()).execute();
    expect(left).toEqual([]);
  });
});

describe('GET /sandbox/samples', () => {
  it('lists sample images, one video and one PDF with a working usage example per message type', async () => {
    const r = await sandboxClient(t)('GET', '/samples');
    expect(r.status).toBe(200);
    const kinds = r.body.samples.map((s: { kind: string }) => s.kind);
    expect(kinds.filter((k: string) => k === 'image').length).toBeGreaterThanOrEqual(2);
    expect(kinds.filter((k: string) => k === 'video')).toHaveLength(1);
    expect(kinds.filter((k: string) => k === 'pdf')).toHaveLength(1);
    for (const s of r.body.samples) {
      expect(s.url.startsWith(`https://${new URL(t.url).host}${SAMPLES_PATH}/`)).toBe(true);
      expect(s.bytes).toBeGreaterThan(0);
    }
    expect(Object.keys(r.body.usage).sort()).toEqual([...MESSAGE_TYPES].sort());
    for (const [type, u] of Object.entries<{ hint: string; example: { messageType: string; content: unknown } }>(r.body.usage)) {
      expect(u.hint.length).toBeGreaterThan(10);
      expect(u.example.messageType).toBe(type);
      const result = validateContent(u.example.messageType, u.example.content);
      expect(result.errors, type).toEqual([]);
    }
  });

  it('serves the files with their types, real file signatures, and without counting against the limit', async () => {
    const ip = freshIp();
    const signatures: Record<string, [string, number[]]> = {
      'landscape.jpg': ['image/jpeg', [0xff, 0xd8, 0xff]],
      'skyline.jpg': ['image/jpeg', [0xff, 0xd8, 0xff]],
      'coffee.png': ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
      'placeholder.png': ['image/png', [0x89, 0x50, 0x4e, 0x47]],
      'brochure.pdf': ['application/pdf', [...Buffer.from('%PDF-')]],
    };
    for (let i = 0; i < 2; i++) {
      for (const [file, [type, sig]] of Object.entries(signatures)) {
        const res = await fetch(`${t.url}${SAMPLES_PATH}/${file}`, { headers: { 'X-Forwarded-For': ip } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain(type);
        const buf = Buffer.from(await res.arrayBuffer());
        expect([...buf.subarray(0, sig.length)]).toEqual(sig);
      }
    }
    const mp4 = Buffer.from(await (await fetch(`${t.url}${SAMPLES_PATH}/sunset.mp4`, { headers: { 'X-Forwarded-For': ip } })).arrayBuffer());
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    for (let i = 0; i < 15; i++) expect((await fetch(`${t.url}${SAMPLES_PATH}/coffee.png`, { headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    // 26 downloads above, yet the API still has its full minute budget for this address.
    const call = sandboxClient(t, ip);
    for (let i = 0; i < 20; i++) expect((await call('GET', '/samples')).status).toBe(200);
    expect((await fetch(`${t.url}${SAMPLES_PATH}/nope.png`)).status).toBe(404);
    expect((await fetch(`${t.url}${SAMPLES_PATH}/..%2Fapp.css`)).status).toBe(404);
  });

  it('keeps SANDBOX_PATH in step with the mounted base', () => {
    expect(SANDBOX_PATH).toBe(`${BASE.rcs}/sandbox`);
  });
});

describe('rate limit (20 per minute, 100 per day per client address)', () => {
  it('answers 429 SANDBOX_RATE_LIMITED with Retry-After on the 21st request in a minute, across all four endpoints', async () => {
    const call = sandboxClient(t);
    const slug = (await call('POST', '/preview', { messageType: 'text', content: { text: `rl ${Math.random()}` } })).body.preview.share_url.split('/').pop();
    for (let i = 0; i < 19; i++) {
      const which = i % 3;
      const r = which === 0 ? await call('POST', '/validate', { messageType: 'text', content: { text: 'x' } }) : which === 1 ? await call('GET', '/samples') : await call('GET', `/preview/${slug}`);
      expect(r.status, `request ${i + 2}`).toBe(200);
    }
    clock.advance(10_000);
    const r = await call('POST', '/validate', { messageType: 'text', content: { text: 'x' } });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('50');
    expect(r.body).toEqual({ success: false, error: { code: 'SANDBOX_RATE_LIMITED', message: expect.stringContaining('20 requests per minute'), limit: 20, window: 'minute', retryAfterSeconds: 50 } });
    // Another client is unaffected.
    expect((await sandboxClient(t)('GET', '/samples')).status).toBe(200);
    // Refused requests do not count: once the minute has passed, the client is welcome again.
    for (let i = 0; i < 5; i++) expect((await call('GET', '/samples')).status).toBe(429);
    clock.advance(50_000);
    expect((await call('GET', '/samples')).status).toBe(200);
  });

  it('answers 429 after 100 requests in a day, with Retry-After until the oldest leaves the window', async () => {
    const call = sandboxClient(t);
    const start = clock.now();
    for (let i = 0; i < 100; i++) {
      if (i > 0 && i % 20 === 0) clock.advance(60_000);
      expect((await call('GET', '/samples')).status, `request ${i + 1}`).toBe(200);
    }
    clock.advance(60_000);
    const r = await call('GET', '/samples');
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'SANDBOX_RATE_LIMITED', window: 'day', limit: 100 });
    const elapsed = clock.now() - start;
    expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil((DAY - elapsed) / 1000));
    clock.advance(DAY - elapsed);
    expect((await call('GET', '/samples')).status).toBe(200);
  });

  it('holds across a restart: the count lives in the database', async () => {
    const { SandboxRateLimiter } = await import('../../../src/sandbox/rate-limit.js');
    const ip = freshIp();
    const first = new SandboxRateLimiter({ db: t.ctx.db, clock, limits: { perMinute: 3, perDay: 10 } });
    for (let i = 0; i < 3; i++) await first.hit(ip);
    const afterRestart = new SandboxRateLimiter({ db: t.ctx.db, clock, limits: { perMinute: 3, perDay: 10 } });
    await expect(afterRestart.hit(ip)).rejects.toMatchObject({ code: 'SANDBOX_RATE_LIMITED' });
    const rows = await t.ctx.db.selectFrom('sandbox_rate_events').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(ip);
  });

  it('counts an IPv6 /64 as one client and unwraps IPv4-mapped addresses', async () => {
    const { clientKey } = await import('../../../src/sandbox/rate-limit.js');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});
