import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedNetwork } from '../../src/carriers/simulated/network.js';
import { REPLY_DEFAULTS, REPLY_LANGUAGES } from '../../src/accounts/reply-texts.js';
import type { TestServer } from '../helpers/server.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, loggedInBrowser, screenshot } from './helpers.js';

/**
 * The account's own confirmation and HELP texts per language on the console's Settings page (issue #42): one box per
 * language and reply, the default shown as placeholder; what the person saves is what a French recipient gets.
 */
const session = loggedInBrowser();
let t: TestServer;
beforeAll(() => {
  t = session.server();
});
const open = (width: number) => session.open(width);

describe('replies in the person’s language on the Settings page', () => {
  for (const width of [1280, 390]) {
    it(`shows each language's defaults, saves a French confirmation and the account's language (${width} px)`, async () => {
      const { page, problems } = await open(width);
      expect((await page.goto(`${t.url}/console/settings`))?.status()).toBe(200);
      const section = page.locator('#consent-replies');
      expect(await section.locator('details.reply-texts').count()).toBe(REPLY_LANGUAGES.length);
      const fr = section.locator('details[data-lang=fr]');
      // Closed until the account has a text of its own (the 390 px run follows the 1280 px one, which saved one).
      expect(await fr.getAttribute('open')).toBe(width === 1280 ? null : '');
      if (width === 1280) await fr.locator('summary').click();
      const box = fr.locator('textarea[name=reply_confirmation_fr]');
      expect(await box.getAttribute('placeholder')).toBe(REPLY_DEFAULTS.fr.confirmation);
      expect(await fr.locator('textarea[name=reply_help_fr]').getAttribute('placeholder')).toBe(REPLY_DEFAULTS.fr.help);
      const text = `Désinscrit de {{company_name}} (${width}). INSCRIRE pour revenir.`;
      await box.fill(text);
      await section.locator('select[name=consentReplyLanguage]').selectOption('de');

      // Every box open, for the checks of the whole page.
      for (const d of await section.locator('details.reply-texts').all()) await d.evaluate((el) => el.setAttribute('open', ''));
      await expectNoSidewaysScroll(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, `consent-replies-${width}`);

      await Promise.all([page.waitForURL(/done=settings-saved/), page.click('button[type=submit]:has-text("Save settings")')]);
      expect(await t.ctx.services.accounts.get(t.account.accountId)).toMatchObject({ consentReplyLanguage: 'de', consentReplyTexts: { confirmation: { fr: text }, help: {} } });
      // After saving: the French box is open with the text, the others closed and empty.
      expect(await page.locator('details[data-lang=fr]').getAttribute('open')).not.toBeNull();
      expect(await page.locator('textarea[name=reply_confirmation_fr]').inputValue()).toBe(text);
      expect(await page.locator('details[data-lang=de]').getAttribute('open')).toBeNull();
      expect(await page.locator('select[name=consentReplyLanguage]').inputValue()).toBe('de');

      // What a French recipient gets.
      const phone = `+3361234${String(width).padStart(4, '0')}`;
      await (t.ctx.carriers as SimulatedNetwork).userReply({ from: phone, senderId: t.account.senders.rcs, channel: 'RCS', text: 'ARRÊT' });
      const sent = await t.ctx.db.selectFrom('messages').select('text').where('account_id', '=', t.account.accountId).where('phone', '=', phone.slice(1)).where('campaign_name', '=', 'opt-out-confirmation').execute();
      const name = (await t.ctx.services.accounts.get(t.account.accountId)).name;
      expect(sent.map((m) => m.text)).toEqual([text.replace('{{company_name}}', name)]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});
