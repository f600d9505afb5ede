import type * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { DEFAULT_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { authorizeVia, discover, exchange, register, type Login, type RegisteredClient } from './helpers.js';

const clock = new FakeClock(Date.now());
let t: TestServer;
let as: oauth.AuthorizationServer;
let rc: RegisteredClient;
let web: WebClient;
let login: Login;

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  ({ as } = await discover(t));
  rc = await register(as, 'http://127.0.0.1:53682/callback');
  web = new WebClient(t.url);
  login = { email: t.account.email, password: t.account.password, totpSecret: t.account.totpSecret, now: () => clock.now() };
});
afterAll(async () => {
  await t?.close();
});

/** The scope checkboxes of a consent page and whether each starts ticked. */
function checkboxes(html: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const m of html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"([^>]*)>/g)) out[m[1]!] = /\bchecked\b/.test(m[2]!);
  return out;
}

/** Authorizes like a person who clicks Allow without touching the boxes: only what was ticked in advance. */
async function allowAsShown(scope?: string) {
  const probe = await authorizeVia(web, as, rc, login, { ...(scope ? { scope } : {}), decision: 'deny' });
  const boxes = checkboxes(probe.consentPage!);
  const ticked = Object.entries(boxes).filter(([, on]) => on).map(([s]) => s);
  const a = await authorizeVia(web, as, rc, login, { ...(scope ? { scope } : {}), grant: ticked });
  expect(a.status, a.text).toBe(303);
  const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
  return { boxes, scope: tokens.scope ?? '' };
}

describe('management scopes on the consent page', () => {
  it('a request without a known scope is offered every permission but webhooks:manage and forms:manage', async () => {
    const { boxes, scope } = await allowAsShown();
    expect(Object.keys(boxes)).toEqual([...DEFAULT_PERMISSIONS]);
    expect(scope.split(' ')).toEqual([...DEFAULT_PERMISSIONS]);
    expect(scope).not.toContain('webhooks:manage');
    expect(scope).not.toContain('forms:manage');
  });

  it('asked for by name, they are offered unticked: Allow alone does not grant them', async () => {
    const { boxes, scope } = await allowAsShown('messages:read webhooks:manage forms:manage');
    expect(boxes).toEqual({ 'messages:read': true, 'webhooks:manage': false, 'forms:manage': false });
    expect(scope).toBe('messages:read');
  });

  it('granted only when the client asked and the person ticked them', async () => {
    const asked = await authorizeVia(web, as, rc, login, { scope: 'messages:read webhooks:manage', grant: ['messages:read', 'webhooks:manage'] });
    const tokens = await exchange(as, rc, asked.location!, asked.state, asked.verifier);
    expect(tokens.scope).toBe('messages:read webhooks:manage');

    // A ticked box the client never asked for is ignored.
    const notAsked = await authorizeVia(web, as, rc, login, { scope: 'messages:read', grant: ['messages:read', 'forms:manage'] });
    expect((await exchange(as, rc, notAsked.location!, notAsked.state, notAsked.verifier)).scope).toBe('messages:read');
  });
});
