import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreviewMediaFetcher, sniffImage } from '../../../src/previews/media-fetch.js';
import { shareMediaUrls } from '../../../src/previews/share-media.js';
import { sampleUrl } from '../../../src/sandbox/samples.js';
import { startForeignHost, PNG, type ForeignHost } from '../../helpers/foreign-host.js';
import { offlineResolve, startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';

/**
 * GET /preview/<slug>/media/<n> (issue #27): the share page's images come through this server,
 * only for a person of the owning account, only raster images under 5 MB whose bytes match their
 * type, from public addresses only; every refusal is an answer (502 with the reason), never a 500.
 * The "foreign host" is a second local server (test/helpers/foreign-host.ts); no test resolves a
 * public name (test/helpers/server.ts: offlineResolve).
 */

let fh: ForeignHost;
let t: TestServer;

beforeAll(async () => {
  fh = await startForeignHost();
  // The foreign host is on loopback: this server may fetch from it only with the switch on.
  t = await startTestServer({ env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await fh?.close();
});

const PHONE = '+4915112340001';

/** A carousel preview, one card per media URL; returns the slug and the page path. */
async function preview(server: TestServer, account: TestAccount, urls: string[]): Promise<{ slug: string; path: string; id: string }> {
  const cards = [...urls, ...(urls.length < 2 ? ['https://cdn.invalid/filler.png'] : [])].map((u, i) => ({ title: `Card ${i + 1}`, media: { height: 'MEDIUM', contentInfo: { fileUrl: u } } }));
  const r = await server.api('POST', '/api/rcs/previews/send', { phoneNumber: PHONE, messageType: 'carousel', sendernameId: account.senders.rcs, content: { cardContents: cards } }, { key: account.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const path = new URL(r.body.data.share_url as string).pathname;
  return { slug: path.split('/').pop()!, path, id: r.body.data.preview_id as string };
}

/**
 * Media URLs must be HTTPS; the local foreign host speaks plain HTTP, which outbound fetches accept
 * only under DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS. So the test stores the previewed URLs with
 * http:// afterwards, as a database holding such a URL would.
 */
async function storeAsHttp(server: TestServer, id: string): Promise<void> {
  const row = await server.ctx.db.selectFrom('previews').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const swap = (s: string) => s.split(`https://${fh.host}`).join(fh.origin);
  await server.ctx.db.updateTable('previews').set({ payload: swap(row.payload), estimate: swap(row.estimate) }).where('id', '=', id).execute();
}

async function indexOf(server: TestServer, id: string, url: string): Promise<number> {
  const row = await server.ctx.db.selectFrom('previews').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const i = shareMediaUrls(row).indexOf(url);
  expect(i, url).toBeGreaterThanOrEqual(0);
  return i;
}

const sessions = new Map<string, WebClient>();

/** One login per person (a TOTP code is accepted once). */
async function loggedIn(server: TestServer, account: TestAccount): Promise<WebClient> {
  const known = sessions.get(account.email);
  if (known) return known;
  const web = new WebClient(server.url);
  sessions.set(account.email, web);
  const done = await web.login(account.email, account.password, account.totpSecret);
  expect(done.status).toBe(303);
  return web;
}

/** GET with the session cookie, bytes kept. */
async function getBytes(web: WebClient, path: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(new URL(path, web.baseUrl), { headers: { Cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }, redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('the media route', () => {
  let web: WebClient;
  let p: { slug: string; path: string; id: string };
  const names = ['ok.png', 'ok.jpg', 'big.png', 'big-chunked.png', 'logo.svg', 'page.html', 'liar.png', 'to-ok', 'clip.mp4'];
  const at = (name: string) => `https://${fh.host}/${name}`;
  const media = async (name: string) => getBytes(web, `${p.path}/media/${await indexOf(t, p.id, `${fh.origin}/${name}`)}`);

  beforeAll(async () => {
    web = await loggedIn(t, t.account);
    p = await preview(t, t.account, names.map(at));
    await storeAsHttp(t, p.id);
  });

  it('serves an image of the preview through the server, locked down', async () => {
    fh.requests.length = 0;
    const r = await media('ok.png');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.body.equals(PNG)).toBe(true);
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cache-control')).toMatch(/^private\b/);
    expect(r.headers.get('set-cookie')).toBeNull();
    // Fetched by the server (its own User-Agent), once; the second view comes from memory.
    expect(fh.requests).toEqual([{ path: '/ok.png', userAgent: expect.stringMatching(/^rcs-preview-media\//) }]);
    expect((await media('ok.png')).status).toBe(200);
    expect(fh.requests).toHaveLength(1);
  });

  it('follows a redirect on the guarded connection', async () => {
    const r = await media('to-ok');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
  });

  it.each([
    ['big.png', /larger than 5 MB/],
    ['big-chunked.png', /larger than 5 MB/],
    ['logo.svg', /image\/svg\+xml; only PNG, JPEG, GIF and WebP/],
    ['page.html', /text\/html; only PNG/],
    ['liar.png', /not the image\/png it claims to be/],
    ['clip.mp4', /video\/mp4; only PNG/],
  ])('refuses %s with the reason as text, never a 500', async (name, reason) => {
    const r = await media(name);
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const text = r.body.toString('utf8');
    expect(text).toContain(`Not loaded from ${fh.host}`);
    expect(text).toMatch(reason);
  });

  it('is a 404 past the list, for a malformed index, and for another account\'s slug; a redirect to login without a session', async () => {
    expect((await getBytes(web, `${p.path}/media/99`)).status).toBe(404);
    expect((await getBytes(web, `${p.path}/media/-1`)).status).toBe(404);
    expect((await getBytes(web, `${p.path}/media/01`)).status).toBe(404);
    const other = await t.createAccount();
    const otherWeb = await loggedIn(t, other);
    const before = fh.requests.length;
    const foreign = await getBytes(otherWeb, `${p.path}/media/0`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.toString('utf8')).toBe('Not found');
    expect(fh.requests).toHaveLength(before);
    const anon = await getBytes(new WebClient(t.url), `${p.path}/media/0`);
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toMatch(/^\/login\?next=/);
  });
});

describe('own samples on a plain http:// server', () => {
  it('renders them as same-origin paths that load (HTTP 200, an image)', async () => {
    expect(t.url).toMatch(/^http:\/\//);
    const landscape = sampleUrl(t.url, 'landscape.jpg');
    expect(landscape).toMatch(/^https:\/\//); // how samples are listed: media URLs must be HTTPS
    const p = await preview(t, t.account, [landscape, sampleUrl(t.url, 'coffee.png')]);
    const web = await loggedIn(t, t.account);
    const page = await web.get(p.path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('src="/api/rcs/sandbox/samples/landscape.jpg"');
    expect(page.text).not.toMatch(/src="https?:/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("img-src 'self';");
    expect(csp).toContain("media-src 'self';");
    const img = await getBytes(web, '/api/rcs/sandbox/samples/landscape.jpg');
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/jpeg');
    expect(sniffImage(img.body)).toBe('image/jpeg');
    // Asked through the media route, a sample is a redirect to the same file, not a fetch.
    const viaRoute = await getBytes(web, `${p.path}/media/0`);
    expect(viaRoute.status).toBe(303);
    expect(viaRoute.headers.get('location')).toBe('/api/rcs/sandbox/samples/landscape.jpg');
  });
});

describe('without DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS', () => {
  let t2: TestServer;
  beforeAll(async () => {
    t2 = await startTestServer();
  });
  afterAll(async () => {
    await t2?.close();
  });

  it('refuses media on loopback (by address and by name) without connecting', async () => {
    const port = fh.host.split(':')[1];
    const urls = [`https://127.0.0.1:${port}/ok.png`, `https://localhost:${port}/ok.png`, `https://[::1]:${port}/ok.png`];
    const p = await preview(t2, t2.account, urls);
    const web = await loggedIn(t2, t2.account);
    const before = fh.requests.length;
    for (const url of urls) {
      const r = await getBytes(web, `${p.path}/media/${await indexOf(t2, p.id, url)}`);
      expect(r.status, url).toBe(502);
      expect(r.body.toString('utf8'), url).toMatch(/private, loopback or otherwise non-public address/);
    }
    expect(fh.requests).toHaveLength(before);
  });

  it('resolves no public name in tests: an unknown host is "could not be reached"', async () => {
    const p = await preview(t2, t2.account, ['https://media.example.com/promo.jpg', 'https://cdn.example.org/a.png']);
    const web = await loggedIn(t2, t2.account);
    const r = await getBytes(web, `${p.path}/media/0`);
    expect(r.status).toBe(502);
    expect(r.body.toString('utf8')).toMatch(/^Not loaded from media\.example\.com: the host could not be reached \(ENOTFOUND\)/);
  });
});

describe('PreviewMediaFetcher', () => {
  it('gives up after its deadline', async () => {
    const f = new PreviewMediaFetcher({ allowPrivateNetwork: true, resolve: offlineResolve, limits: { timeoutMs: 300 } });
    const started = Date.now();
    const r = await f.fetch(`${fh.origin}/hang`);
    expect(r).toMatchObject({ ok: false, code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops after too many redirects and shares one fetch between concurrent callers', async () => {
    const f = new PreviewMediaFetcher({ allowPrivateNetwork: true, resolve: offlineResolve, limits: { maxRedirects: 0 } });
    expect(await f.fetch(`${fh.origin}/to-ok`)).toMatchObject({ ok: false, code: 'too_many_redirects' });
    const g = new PreviewMediaFetcher({ allowPrivateNetwork: true, resolve: offlineResolve });
    const before = fh.requests.length;
    const [a, b] = await Promise.all([g.fetch(`${fh.origin}/ok.jpg`), g.fetch(`${fh.origin}/ok.jpg`)]);
    expect(a).toMatchObject({ ok: true, contentType: 'image/jpeg' });
    expect(b).toBe(a);
    expect(fh.requests.length - before).toBe(1);
  });

  it('refuses plain http without the switch, and a private address literal before connecting', async () => {
    const f = new PreviewMediaFetcher({ allowPrivateNetwork: false, resolve: offlineResolve });
    expect(await f.fetch(`${fh.origin}/ok.png`)).toMatchObject({ ok: false, code: 'invalid_url' });
    expect(await f.fetch('https://[fe80::1]/x.png')).toMatchObject({ ok: false, code: 'private_address' });
  });

  it('sniffs only raster images', () => {
    expect(sniffImage(PNG)).toBe('image/png');
    expect(sniffImage(Buffer.from('GIF89a......'))).toBe('image/gif');
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });
});
