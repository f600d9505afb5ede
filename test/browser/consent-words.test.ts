import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, loggedInBrowser, screenshot } from './helpers.js';

/**
 * What a recipient can reply, seen by the two people around it (issue #28): on the virtual phone,
 * an unsubscribe chip whose payload said HALT opts the number out with one tap (the keyword was
 * corrected to the sender's trigger); on the console, the account adds a sender's own words and is
 * told plainly when a word would mean two things.
 */
const session = loggedInBrowser();
let t: TestServer;
beforeAll(() => {
  t = session.server();
});
const open = (width: number) => session.open(width);

describe('an unsubscribe chip on the virtual phone', () => {
  it('a chip sent with stopKeyword HALT opts the number out with one tap; the next send is refused', async () => {
    const PHONE = '+4915123450042';
    const sent = await t.api('POST', '/api/rcs/send', {
      phoneNumber: PHONE,
      messageType: 'text',
      sendernameId: t.account.senders.rcs,
      content: { text: 'Our autumn menu is here.', suggestions: [{ action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'HALT' } } }] },
    });
    expect(sent.status).toBe(200);
    const { page, problems } = await open(390);
    await page.goto(`${t.url}/phone?number=${encodeURIComponent(PHONE)}`);
    await expect.poll(() => page.textContent('.phone-thread')).toContain('Our autumn menu is here.');
    await Promise.all([page.waitForURL(/\/phone\?number=/), page.click('button.chip:has-text("Unsubscribe")')]);
    await expect.poll(() => page.textContent('.vp-current')).toContain('opted out');
    // The phone sent the sender's trigger, not HALT.
    const inbound = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(PHONE)}`);
    expect(inbound.body.messages.map((m: { content: string }) => m.content)).toEqual(['STOP']);
    await screenshot(page, 'consent-chip-390');
    const refused = await t.api('POST', '/api/rcs/send', { phoneNumber: PHONE, messageType: 'text', content: { text: 'x' }, sendernameId: t.account.senders.rcs });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CONTACT_OPTED_OUT');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('the console’s consent words of each sender', () => {
  for (const width of [1280, 390]) {
    it(`lists the words every sender understands, saves a sender's own words and explains a refusal (${width} px)`, async () => {
      const { page, problems } = await open(width);
      const res = await page.goto(`${t.url}/console/senders`);
      expect(res?.status()).toBe(200);
      const rcs = t.account.senders.rcs;
      const form = page.locator(`#consent-${rcs}`);
      await page.click('.consent-words-listed summary');
      const listed = await page.textContent('.consent-words-listed');
      for (const w of ['STOP', 'UNSUBSCRIBE', 'ABMELDEN', 'ARRET', 'BAJA', 'START', 'HILFE']) expect(listed).toContain(w);

      // A word that already means something else is refused, the typed text kept, nothing stored.
      await form.locator('textarea[name=optIn]').fill('stop please');
      await form.locator('textarea[name=optOut]').fill(`Genug${width}`);
      await Promise.all([page.waitForLoadState('load'), form.locator('button[type=submit]').click()]);
      expect(await page.locator(`#consent-${rcs} [role=alert]`).textContent()).toContain('"STOP PLEASE" is already an opt-out word, so it cannot be a re-subscribe word');
      expect(await page.locator(`#consent-${rcs} textarea[name=optOut]`).inputValue()).toBe(`Genug${width}`);
      expect((await t.ctx.services.senders.consentWords(t.account.accountId, rcs)).optOut).not.toContain(`GENUG${width}`);
      await screenshot(page, `consent-words-refused-${width}`);

      await page.locator(`#consent-${rcs} textarea[name=optIn]`).fill('');
      await Promise.all([page.waitForURL(/done=consent-words-saved/), page.locator(`#consent-${rcs} button[type=submit]`).click()]);
      expect(await page.textContent('body')).toContain('consent words were saved');
      expect(await page.locator(`#consent-${rcs} textarea[name=optOut]`).inputValue()).toBe(`GENUG${width}`);
      expect((await t.ctx.services.senders.consentWords(t.account.accountId, rcs)).optOut).toEqual([`GENUG${width}`]);
      await screenshot(page, `consent-words-saved-${width}`);

      await expectNoSidewaysScroll(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  it('a POST without the CSRF token, or for another account’s sender, changes nothing', async () => {
    const other = await t.createAccount();
    const { page } = await open(1280);
    await page.goto(`${t.url}/console/senders`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const post = (id: string, body: Record<string, string>) => page.request.post(`${t.url}/console/senders/${id}/consent-words`, { form: body, maxRedirects: 0 });
    expect((await post(t.account.senders.rcs, { optOut: 'NOCSRF' })).status()).toBe(403);
    expect((await post(other.senders.rcs, { csrf, optOut: 'FOREIGN' })).status()).toBe(404);
    expect((await post('snd_nope', { csrf, optOut: 'X' })).status()).toBe(404);
    expect((await t.ctx.services.senders.consentWords(other.accountId, other.senders.rcs)).optOut).toEqual([]);
    expect((await t.ctx.services.senders.consentWords(t.account.accountId, t.account.senders.rcs)).optOut).not.toContain('NOCSRF');
    await page.context().close();
  });
});
