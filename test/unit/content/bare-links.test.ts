import { describe, expect, it } from 'vitest';
import { isTopLevelDomain, linksIn, textRisks } from '../../../src/content/text-risks.js';

/**
 * Links without a scheme (issue #42): a phone's linkifier makes "bank-secure.support/login" clickable,
 * so a merged value holding one is flagged as a link with the host it really goes to (punycode beside
 * Unicode), and a host written to read as another is flagged `lookalike_host` too. Words with a dot
 * that end in no top-level domain ("e.g.", "Mr.Smith", "v1.2") are not links.
 */
const codes = (s: string) => textRisks(s).map((r) => r.code);
const message = (s: string, code: string) => textRisks(s).find((r) => r.code === code)?.message ?? '';

describe('bare hosts in a merged value', () => {
  const links: [value: string, link: string, host: string, lookalike: boolean][] = [
    ['bank-secure.support/login', 'bank-secure.support/login', 'bank-secure.support', false],
    ['Log in at secure-login.help.', 'secure-login.help', 'secure-login.help', false],
    ['paypal\u3002com', 'paypal\u3002com', 'paypal.com', true],
    ['Anna paypal\u3002com/login', 'paypal\u3002com/login', 'paypal.com', true],
    ['paypal\uff0ecom', 'paypal\uff0ecom', 'paypal.com', true],
    ['paypal\uff61com/x', 'paypal\uff61com/x', 'paypal.com', true],
    ['\uff50\uff41\uff59\uff50\uff41\uff4c.com', '\uff50\uff41\uff59\uff50\uff41\uff4c.com', 'paypal.com', true],
    ['Go to xn--pypal-4ve.com/verify now', 'xn--pypal-4ve.com/verify', 'xn--pypal-4ve.com (shown as p\u0430ypal.com)', true],
    ['p\u0430ypal.com', 'p\u0430ypal.com', 'xn--pypal-4ve.com (shown as p\u0430ypal.com)', true],
    ['www\u3002evil.com', 'www\u3002evil.com', 'www.evil.com', true],
    ['Claim at PRIZE.SHOP:8443/now', 'PRIZE.SHOP:8443/now', 'prize.shop', false],
    ['setup.zip', 'setup.zip', 'setup.zip', false],
    // A linkifier stops after the last top-level domain it knows.
    ['paypal.com.x', 'paypal.com', 'paypal.com', false],
    ['shop.example.co.uk/deal', 'shop.example.co.uk/deal', 'shop.example.co.uk', false],
    ['\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444', '\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444', 'xn--e1afmkfd.xn--p1ai (shown as \u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444)', true],
  ];
  for (const [value, link, host, look] of links) {
    it(`flags ${JSON.stringify(value)} as a link to ${host}${look ? ', reading as another host' : ''}`, () => {
      expect(linksIn(value)).toEqual([link]);
      expect(codes(value)).toContain('contains_link');
      expect(message(value, 'contains_link')).toBe(`contains a link: ${host}`);
      expect(codes(value).includes('lookalike_host')).toBe(look);
    });
  }

  it('names the real host of a look-alike, with its punycode beside the Unicode form', () => {
    expect(message('paypal\u3002com/login', 'lookalike_host')).toBe('links to a host that reads as another: paypal.com is written "paypal\u3002com", with look-alike characters a filter does not see');
    expect(message('xn--pypal-4ve.com', 'lookalike_host')).toContain('xn--pypal-4ve.com (shown as p\u0430ypal.com) mixes scripts');
  });

  const plain = ['e.g. tomorrow', 'i.e.', 'Mr.Smith', 'Dr. Smith', 'v1.2', 'v1.2.3', 'Version 2.0.1', '3.14', 'No.1', 'St.Louis', 'U.S.A.', 'Ph.D.', 'Anna.Maria', 'J.R.R. Tolkien', 'report.pdf', 'setup.exe', 'Node.js', 'a.b', '27.11.2026', '10.30am', 'anna@example.com'];
  for (const value of plain) {
    it(`does not take ${JSON.stringify(value)} for a link`, () => {
      expect(linksIn(value)).toEqual([]);
      expect(codes(value)).not.toContain('contains_link');
    });
  }

  it('knows the root zone: country codes, new generic names, punycode and Unicode forms, in any case', () => {
    for (const t of ['com', 'de', 'uk', 'support', 'help', 'zip', 'COM', '\uff43\uff4f\uff4d', 'xn--p1ai', '\u0440\u0444']) expect(isTopLevelDomain(t), t).toBe(true);
    for (const t of ['g', 'smith', 'js', 'pdf', 'exe', '2', 'example', 'localhost', '']) expect(isTopLevelDomain(t), t).toBe(false);
  });

  it('stays linear on long text without a dot', () => {
    const long = 'a'.repeat(8000);
    const at = performance.now();
    for (let i = 0; i < 20; i++) linksIn(long + ' b.c-' + long);
    expect(performance.now() - at).toBeLessThan(2000);
  });
});
