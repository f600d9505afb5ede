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
