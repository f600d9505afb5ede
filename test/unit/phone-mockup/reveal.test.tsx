import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { normalizeContent, type Content, type MessageType } from '../../../src/content/index.js';
import { PhonePreview, actionTarget } from '../../../preview-pages/phone/index.js';

/** The approval page's mockup (reveal): targets and media URLs as escaped text, never as links. */
const render = (messageType: MessageType, content: Content, reveal = true) =>
  renderToString(<PhonePreview messageType={messageType} content={normalizeContent(messageType, content)} senderName="Acme" reveal={reveal} />);

const card: Content = {
  title: 'T',
  media: { height: 'SHORT', contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg?x="><script>alert(1)</script>' } },
  cardActions: [
    { type: 'openUrl', text: 'Open', openUrlAction: { url: 'https://shop.example.com/?q=<script>alert(1)</script>' } },
    { type: 'dial', text: 'Call', dialAction: { phoneNumber: '+4930123456' } },
    { type: 'addToCalendar', text: 'Add', calendarAction: { title: 'Sale', startTime: '2030-01-01T10:00:00Z', endTime: '2030-01-01T12:00:00Z', description: 'Big' } },
  ],
};

describe('revealed targets', () => {
  it('prints link, number, event and media URL as text beside their buttons, escaped', () => {
    const html = render('richCard', card);
    expect(html).not.toContain('<script');
    expect(html).toContain('<span class="action-target" data-testid="action-target">https://shop.example.com/?q=&lt;script>alert(1)&lt;/script></span>');
    expect(html).toContain('Calls +4930123456');
    expect(html).toContain('“Sale” · 2030-01-01 10:00 UTC → 2030-01-01 12:00 UTC · Big');
    expect(html).toMatch(/<p class="media-url" data-testid="media-url"><span class="media-url-label">Image:<\/span> https:\/\/cdn\.example\.com\/a\.jpg\?x=&quot;>&lt;script>/);
    expect(html).toMatch(/alt="Image could not be loaded from cdn\.example\.com/);
    // Still no links to the sender's URLs.
    expect(html).not.toMatch(/<a /);
  });

  it('prints chip targets: location, calendar event, unsubscribe keyword', () => {
    const html = render('text', {
      text: 'x',
      suggestions: [
        { action: { type: 'viewLocation', text: 'Map', viewLocationAction: { label: 'Shop', latLong: { latitude: 1.5, longitude: 2.25 } } } },
        { action: { type: 'createCalendarEvent', text: 'Ev', createCalendarEventAction: { title: 'Party', startTime: '2030-02-01T18:00:00Z', endTime: '2030-02-01T20:00:00Z' } } },
        { reply: { text: 'Yes', postbackData: 'y' } },
      ],
    });
    expect(html).toContain('“Shop” · 1.5, 2.25');
    expect(html).toContain('“Party” · 2030-02-01 18:00 UTC → 2030-02-01 20:00 UTC');
    // The reply chip says what its tap sends, and where (issue #27).
    expect(html).toContain("Tapping sends the recipient's phone number and name and “y” to this account's webhooks");
    expect(html.match(/data-testid="action-target"/g)).toHaveLength(3);
  });

  it('a postback or reply webhookUrl is shown with its host and what the tap sends there', () => {
    const html = render('richCard', {
      title: 'Win',
      cardActions: [{ type: 'postback', text: 'Claim', postbackData: 'claim', webhookUrl: 'https://collect.attacker.example/hook' }],
      suggestions: [{ reply: { text: 'Yes', postbackData: 'yes', webhookUrl: 'https://other.example/r' } }],
    });
    expect(html).toContain("Tapping sends the recipient's phone number and name and “claim” to collect.attacker.example (https://collect.attacker.example/hook)");
    expect(html).toContain('and “yes” to other.example (https://other.example/r)');
    expect(html).not.toMatch(/<a /);
  });

  it('a look-alike host is shown with the host it really goes to; hidden characters are made visible', () => {
    const html = render('text', {
      text: 'Your file \u202Eexe.nacs',
      suggestions: [{ action: { type: 'openUrl', text: 'Log in', openUrlAction: { url: 'https://\u0430pple.com/login' } } }],
    });
    expect(html).toContain('https://\u0430pple.com/login — really goes to xn--pple-43d.com');
    expect(html).toContain('Your file ⟦U+202E⟧exe.nacs');
    expect(render('text', { text: 'Your file \u202Eexe.nacs' }, false)).toContain('Your file \u202Eexe.nacs');
  });

  it('prints nothing extra without reveal (virtual phone, sandbox)', () => {
    const html = render('richCard', card, false);
    expect(html).not.toContain('action-target');
    expect(html).not.toContain('media-url');
    expect(html).toMatch(/<img [^>]*alt loading="lazy"/);
  });

  it('names the target of each action type', () => {
    expect(actionTarget({ type: 'openUrlInWebview', text: 'a', openUrlInWebviewAction: { url: 'https://e.example', viewMode: 'HALF' } })).toBe('https://e.example (in app, HALF)');
    expect(actionTarget({ type: 'unsubscribe', text: 'a', unsubscribeAction: { stopKeyword: 'STOPP' } })).toBe('Sends STOPP');
    expect(actionTarget({ type: 'shareLocation', text: 'a', shareLocationAction: {} })).toBeNull();
  });
});
