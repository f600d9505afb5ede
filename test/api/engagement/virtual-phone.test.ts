import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '../../helpers/web-client.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

let t: EngagementServer;
let web: WebClient;
const P = num(900);

beforeAll(async () => {
  t = await startEngagementServer();
  web = new WebClient(t.url);
  const done = await web.login(t.account.email, t.account.password, t.account.totpSecret, '/phone');
  expect(done.status).toBe(303);
  const sent = await t.api('POST', '/api/rcs/send', { phoneNumber: P, messageType: 'text', content: { text: 'Hi', suggestions: [{ reply: { text: 'Hello', postbackData: 'hello' } }] }, sendernameId: t.account.senders.rcs });
  expect(sent.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('virtual phone pages (forms, CSRF, tenancy)', () => {
  it('needs a login', async () => {
    const anon = await new WebClient(t.url).get('/phone');
    expect(anon.status).toBe(303);
    expect(anon.location).toBe('/login?next=%2Fphone');
    const post = await new WebClient(t.url).post('/phone/reply', { number: P, sender: t.account.senders.rcs, text: 'hi' });
    expect(post.status).toBe(303);
    expect((await t.api('GET', '/api/messages/log?direction=INBOUND')).body.messages).toEqual([]);
  });

  it('lists the number and renders the chips as forms with the session CSRF token', async () => {
    const list = await web.get('/phone');
    expect(list.status).toBe(200);
    expect(list.text).toContain(P);
    const page = await web.get(`/phone?number=${encodeURIComponent(P)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/phone/tap"');
    expect(page.text).toContain('name="target" value="s:0"');
    expect(page.text).not.toMatch(/<script(?![^>]*src=)/);
  });

  it('a POST without the CSRF token is refused and raises nothing', async () => {
    const r = await web.post('/phone/reply', { csrf: 'wrong', number: P, sender: t.account.senders.rcs, text: 'forged' });
    expect(r.status).toBe(403);
    expect((await t.api('GET', '/api/messages/log?direction=INBOUND')).body.messages).toEqual([]);
  });

  it('a reply and a tap through the forms land in the log and the interactions', async () => {
    const page = await web.get(`/phone?number=${encodeURIComponent(P)}`);
    const csrf = WebClient.hidden(page.text, 'csrf');
    const sim = WebClient.hidden(page.text, 'sim');
    const tap = await web.post('/phone/tap', { csrf, number: P, sim, target: 's:0' });
    expect(tap.status).toBe(303);
    expect(tap.location).toBe(`/phone?number=${encodeURIComponent(P)}`);
    const reply = await web.post('/phone/reply', { csrf, number: P, sender: t.account.senders.rcs, text: 'Hi back' });
    expect(reply.status).toBe(303);
    const list = await t.api('GET', '/api/rcs/interactions');
    expect(list.body.data.map((i: any) => i.type)).toEqual(['reply_received', 'button_click']);
    // Bad input is answered on the page, not with a crash.
    expect((await web.post('/phone/tap', { csrf, number: P, sim, target: 's:9' })).status).toBe(404);
    expect((await web.post('/phone/reply', { csrf, number: P, sender: t.account.senders.rcs, text: '   ' })).status).toBe(400);
    expect((await web.post('/phone/reply', { csrf, number: num(901), sender: t.account.senders.rcs, text: 'x' })).status).toBe(404);
  });

  it('another account cannot act on this account’s numbers or messages', async () => {
    const other = await t.createAccount();
    const web2 = new WebClient(t.url);
    await web2.login(other.email, other.password, other.totpSecret, '/phone');
    const page = await web2.get('/phone');
    expect(page.text).not.toContain(P);
    expect((await web2.get(`/phone?number=${encodeURIComponent(P)}`)).status).toBe(404);
    const mine = await web.get(`/phone?number=${encodeURIComponent(P)}`);
    const sim = WebClient.hidden(mine.text, 'sim');
    const csrf2 = WebClient.hidden(page.text, 'csrf');
    expect((await web2.post('/phone/tap', { csrf: csrf2, number: P, sim, target: 's:0' })).status).toBe(404);
    expect((await web2.post('/phone/reply', { csrf: csrf2, number: P, sender: t.account.senders.rcs, text: 'x' })).status).toBe(404);
  });
});

describe('virtual phone media (issue #27)', () => {
  it('loads this server\'s samples from the same origin and shows any other media as a placeholder naming its host', async () => {
    const Q = num(901);
    const own = `https://${new URL(t.url).host}/api/rcs/sandbox/samples/landscape.jpg`;
    const cards = [
      { title: 'Theirs', media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://cdn.example.org/pixel.png' } } },
      { title: 'Ours', media: { height: 'MEDIUM', contentInfo: { fileUrl: own } } },
    ];
    const sent = await t.api('POST', '/api/rcs/send', { phoneNumber: Q, messageType: 'carousel', content: { cardContents: cards }, sendernameId: t.account.senders.rcs });
    expect(sent.status).toBe(200);
    const page = await web.get(`/phone?number=${encodeURIComponent(Q)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Media from cdn.example.org is not shown here');
    expect(page.text).toContain('src="/api/rcs/sandbox/samples/landscape.jpg"');
    expect(page.text).toContain('src="/api/rcs/sandbox/samples/placeholder.png"');
    expect(page.text).not.toMatch(/src="(https?:)?\/\//);
    expect(page.text).not.toContain('pixel.png');
  });
});

describe('virtual phone: searching the numbers (issue #30)', () => {
  /** The numbers the page lists, in order. */
  const listed = (html: string): string[] => [...html.matchAll(/<span class="vp-number-phone">([^<]*)<\/span>/g)].map((m) => m[1]!);
  const search = (q: string, client = web) => client.get(`/phone?q=${encodeURIComponent(q)}`);
  const [ANNA, ZED, THEIRS] = [num(910), num(911), num(912)];

  beforeAll(async () => {
    // Named contacts first, so the send finds them. Anna's email holds "zed": a name search must not see it.
    expect((await t.api('POST', '/api/v1/contacts', { phone: ANNA, firstName: 'Anna', lastName: 'Berger', email: 'zed@example.com' })).status).toBe(201);
    expect((await t.api('POST', '/api/v1/contacts', { phone: ZED, firstName: 'Zed', lastName: 'Müller' })).status).toBe(201);
    for (const p of [ANNA, ZED]) expect((await t.send(p)).status).toBe(200);
    // Another tenant's Anna, at a number only that tenant wrote to.
    const other = await t.createAccount();
    expect((await t.api('POST', '/api/v1/contacts', { phone: THEIRS, firstName: 'Anna', lastName: 'Other' }, { key: other.apiKey })).status).toBe(201);
    expect((await t.send(THEIRS, { key: other.apiKey, sender: await t.convSenderFor(other) })).status).toBe(200);
  });

  it('matches any digits of the E.164 number, written with spaces, dashes, brackets or +', async () => {
    expect(listed((await search('2000 9110')).text)).toEqual([ZED]);
    expect(listed((await search('+49 (151) 2000-9100')).text)).toEqual([ANNA]);
    expect(listed((await search('200091')).text).sort()).toEqual([ANNA, ZED].sort());
    // Only the digits count: "+" does not anchor, and a number no one wrote to is simply not listed.
    expect(listed((await search('+200091')).text).sort()).toEqual([ANNA, ZED].sort());
    const none = await search('99999999');
    expect(none.status).toBe(200);
    expect(listed(none.text)).toEqual([]);
    expect(none.text).toContain('No number matches “99999999”');
  });

  it('matches the contact’s name in any case, not the email, and never another tenant’s contacts', async () => {
    expect(listed((await search('anna')).text)).toEqual([ANNA]);
    expect(listed((await search('ANNA   berg')).text)).toEqual([ANNA]);
    expect(listed((await search('MÜLLER')).text)).toEqual([ZED]);
    expect(listed((await search('zed')).text)).toEqual([ZED]);
    expect(listed((await search('example')).text)).toEqual([]);
    expect(listed((await search('Other')).text)).toEqual([]);
    expect(listed((await search('20009120')).text)).toEqual([]);
  });

  it('keeps the search in the number links and the way back, and a selected number stays selected while searching', async () => {
    const page = await web.get(`/phone?number=${encodeURIComponent(ANNA)}&q=anna`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/phone?number=${encodeURIComponent(ANNA)}&amp;q=anna"`);
    expect(page.text).toContain('href="/phone?q=anna" class="vp-back"');
    expect(page.text).toContain(`<input type="hidden" name="number" value="${ANNA}"/>`);
    expect(page.text).toContain('value="anna"');
  });

  it('refuses a search it cannot run with a 400 on the page (escaped, every number listed), never a 500', async () => {
    const refused = ['x'.repeat(65), '50%', 'a_b', 'a\nb', 'a\tb', '<script>alert(1)</script>', '"; drop table contacts; --', '\u202Eanna', 'anna\u0000'];
    for (const q of refused) {
      const r = await search(q);
      expect(r.status, q).toBe(400);
      expect(r.text).toContain('class="error"');
      expect(listed(r.text).sort(), q).toEqual(expect.arrayContaining([ANNA, ZED, P]));
      expect(r.text).not.toContain('<script>alert');
    }
    // The limit itself is fine; one parameter only; a bad percent-escape is bad input too.
    expect((await search('1'.repeat(64))).status).toBe(200);
    expect((await web.get('/phone?q=anna&q=zed')).status).toBe(400);
    expect((await web.get('/phone?q=%FF')).status).toBe(400);
    expect((await web.get('/phone?q[a]=1')).status).toBeLessThan(500);
    // An empty or blank search lists everything.
    expect(listed((await search('   ')).text)).toEqual(expect.arrayContaining([ANNA, ZED, P]));
  });

  it('lists the 200 most recent numbers and says a search finds the others; the search does', async () => {
    const phones = Array.from({ length: 201 }, (_, i) => num(1000 + i));
    const sent = async () => Number((await t.ctx.db.selectFrom('sim_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).n);
    // Every message of the batch on the network, counted from what was there before it.
    const before = await sent();
    const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Batch' }, sendernameId: t.account.senders.rcs });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    await expect.poll(sent, { timeout: 20_000 }).toBeGreaterThanOrEqual(before + 201);
    const all = await web.get('/phone');
    expect(listed(all.text)).toHaveLength(200);
    expect(all.text).toContain('The 200 most recent are listed: search to find the others.');
    const missing = [...phones, ANNA, ZED, P].filter((p) => !listed(all.text).includes(p));
    expect(missing.length).toBeGreaterThan(0);
    for (const p of missing) expect(listed((await search(p.slice(1))).text)).toEqual([p]);
  });
});
