import { expect } from 'vitest';
import type { Clock } from '../../../src/platform/clock.js';
import type { TestAccount, TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { authorizeVia, discover, exchange, register } from '../../oauth/helpers.js';

/** A real OAuth access token for `account`: registration, login with TOTP, consent, code exchange. */
export async function oauthToken(t: TestServer, account: TestAccount, clock: Clock, scope: string): Promise<string> {
  const { as } = await discover(t);
  const rc = await register(as, 'http://127.0.0.1:53682/callback');
  const web = new WebClient(t.url);
  const a = await authorizeVia(web, as, rc, { email: account.email, password: account.password, totpSecret: account.totpSecret, now: () => clock.now() }, { scope });
  expect(a.status, a.text).toBe(303);
  return (await exchange(as, rc, a.location!, a.state, a.verifier)).access_token;
}

/** A person of the account logs in on the share page and approves (or rejects): the only way to approve. */
export async function decideOnSharePage(t: TestServer, account: TestAccount, shareUrl: string, now: number, decision: 'approve' | 'reject' = 'approve'): Promise<void> {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  const done = await web.login(account.email, account.password, account.totpSecret, path, now);
  expect(done.location).toBe(path);
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const res = await web.post(`${path}/${decision}`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
  expect(res.status).toBe(303);
}

export const bearer = (token: string) => ({ key: null, headers: { Authorization: `Bearer ${token}` } });
