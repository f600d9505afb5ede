import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, normalizeContent, type Action, type Content, type MessageType } from '../../../src/content/index.js';
import { Icon } from '../../../preview-pages/phone/icons.js';
import { PhonePreview, RcsMessage, describeAction, mediaKind, mediaResolver, safeSrc } from '../../../preview-pages/phone/index.js';

const render = (messageType: MessageType, content: Content, extra: Partial<Parameters<typeof PhonePreview>[0]> = {}) =>
  renderToString(<PhonePreview messageType={messageType} content={normalizeContent(messageType, content)} senderName="Acme" {...extra} />);

const IMG = 'https://cdn.example.com/a.jpg';
const XSS = '<script>alert(1)</script>';

describe('escaping by construction', () => {
  it('renders a <script> in text as text', () => {
    const html = render('text', { text: `Hello ${XSS} & "you"` });
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    expect(html).toContain('&amp;');
  });

  it('escapes titles, descriptions, captions, button and chip texts, and the sender name', () => {
    const html = renderToString(
      <PhonePreview
        messageType="richCard"
        senderName={`<b>${XSS}</b>`}
        smsFallback={`<img src=x onerror=alert(1)>`}
        content={normalizeContent('richCard', {
          title: `T ${XSS}`,
          description: `<iframe src="https://evil.example">`,
          media: { height: 'SHORT', contentInfo: { fileUrl: IMG } },
          cardActions: [{ text: '<b>Buy</b>', type: 'openUrl', openUrlAction: { url: 'https://shop.example/"onmouseover="alert(1)' } }],
          suggestions: [{ reply: { text: '<i>ok</i>' } }],
        })}
      />,
    );
    for (const raw of ['<script', '<iframe', '<b>', '<i>', '<img src=x']) expect(html).not.toContain(raw);
    expect(html).toContain('&lt;iframe');
    expect(html).toContain('&lt;img src=x onerror=alert(1)>');
    // The quote in the URL cannot close the title attribute.
    expect(html).toContain('title="Opens https://shop.example/&quot;onmouseover=&quot;alert(1)"');
    expect(html).not.toMatch(/\sonmouseover=/);
  });

  it('never turns button or chip URLs into links', () => {
    const html = render('richCard', {
      title: 'x',
      cardActions: [{ text: 'Open', type: 'openUrl', openUrlAction: { url: 'https://example.com/book' } }],
      suggestions: [{ action: { text: 'Site', type: 'openUrlInWebview', openUrlInWebviewAction: { url: 'https://example.com/w' } } }],
    });
    expect(html).not.toContain('<a ');
    expect(html).toContain('Opens https://example.com/book');
  });

  it('refuses non-http media sources', () => {
    expect(safeSrc('javascript:alert(1)')).toBe('');
    expect(safeSrc('data:image/png;base64,AAAA')).toBe('');
    expect(safeSrc('//evil.example/x.png')).toBe('');
    expect(safeSrc('/api/rcs/sandbox/samples/coffee.png')).toBe('/api/rcs/sandbox/samples/coffee.png');
    expect(safeSrc(IMG)).toBe(IMG);
    const html = renderToString(<RcsMessage messageType="image" content={{ url: 'javascript:alert(1)' }} />);
    expect(html).not.toContain('javascript:');
  });
});

describe('layout', () => {
  it('renders a vertical rich card with the media height class and the card buttons', () => {
    for (const [height, cls] of [['SHORT', 'h-short'], ['MEDIUM', 'h-medium'], ['TALL', 'h-tall']] as const) {
      const html = render('richCard', { title: 'T', media: { height, contentInfo: { fileUrl: IMG } } });
      expect(html).toContain(`card-media ${cls}`);
    }
    // Height omitted: TALL applied.
    expect(render('richCard', { title: 'T', media: { contentInfo: { fileUrl: IMG } } })).toContain('card-media h-tall');
  });

  it('puts the image left or right on horizontal cards (RIGHT by default)', () => {
    const left = render('richCard', { title: 'Title', cardOrientation: 'HORIZONTAL', imageAlignment: 'LEFT', media: { contentInfo: { fileUrl: IMG } } });
    expect(left).toContain('media-left');
    expect(left.indexOf('card-media')).toBeLessThan(left.indexOf('card-title'));
    const right = render('richCard', { title: 'Title', cardOrientation: 'HORIZONTAL', media: { contentInfo: { fileUrl: IMG } } });
    expect(right).toContain('media-right');
    expect(right.indexOf('card-media')).toBeGreaterThan(right.indexOf('card-title'));
  });

  it('renders a carousel as one scroll container with a card per item', () => {
    const html = render('carousel', { cardContents: [{ title: 'One' }, { title: 'Two' }, { description: 'Three' }], suggestions: [{ reply: { text: 'Hi' } }] });
    expect(html.match(/class="carousel"/g)).toHaveLength(1);
    expect(html.match(/carousel-card/g)).toHaveLength(3);
    expect(html).toContain('aria-label="Carousel of 3 cards; scroll sideways for more"');
    expect(html).toContain('class="chip chip-reply"');
  });

  it('gives every action type an icon on buttons and chips; reply chips have none', () => {
    for (const type of ACTION_TYPES) expect(renderToString(<Icon name={type} />)).toMatch(/<path d="M/);
    const html = render('text', {
      text: 'x',
      suggestions: [{ reply: { text: 'Reply' } }, { action: { text: 'Call', type: 'dial', dialAction: { phoneNumber: '+15550100' } } }],
    });
    expect(html).toMatch(/<li class="chip chip-reply"[^>]*><span class="chip-text">Reply<\/span><\/li>/);
    expect(html).toMatch(/<li class="chip chip-action"[^>]*data-action-type="dial"[^>]*><svg/);
  });

  it('describes what every action type does', () => {
    const actions: Action[] = [
      { text: 'a', type: 'postback', postbackData: 'p1' },
      { text: 'a', type: 'openUrl', openUrlAction: { url: 'https://e.example' } },
      { text: 'a', type: 'openUrlInWebview', openUrlInWebviewAction: { url: 'https://e.example', viewMode: 'HALF' } },
      { text: 'a', type: 'dial', dialAction: { phoneNumber: '+1555' } },
      { text: 'a', type: 'addToCalendar', calendarAction: { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-01T01:00:00Z', title: 'Ev' } },
      { text: 'a', type: 'createCalendarEvent', createCalendarEventAction: { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-01T01:00:00Z', title: 'Ev2' } },
      { text: 'a', type: 'viewLocation', viewLocationAction: { latLong: { latitude: 1, longitude: 2 } } },
      { text: 'a', type: 'shareLocation', shareLocationAction: {} },
      { text: 'a', type: 'unsubscribeLink', openUrlAction: { url: '{{unsubscribe_link}}' } },
      { text: 'a', type: 'unsubscribe', unsubscribeAction: { stopKeyword: 'STOPP' } },
    ];
    expect(actions.map((a) => a.type).sort()).toEqual([...ACTION_TYPES].sort());
    expect(actions.map(describeAction)).toEqual([
      'Sends “p1” to the webhook',
      'Opens https://e.example',
      'Opens https://e.example inside the app (HALF)',
      'Calls +1555',
      'Adds “Ev” to the calendar',
      'Creates the event “Ev2”',
      'Shows 1, 2 on a map',
      'Asks the recipient to share their location',
      'Opens the unsubscribe page',
      'Sends STOPP to unsubscribe',
    ]);
  });

  it('renders media, image, video, audio and file messages as tiles', () => {
    expect(render('image', { url: IMG, caption: 'Cap' })).toMatch(/media-card.*<img src="https:\/\/cdn.example.com\/a.jpg".*Cap/);
    const video = render('video', { media: { contentInfo: { fileUrl: 'https://v.example/v.mp4', contentType: 'video/mp4', thumbnailUrl: 'https://v.example/p.jpg' } } });
    expect(video).toContain('<video src="https://v.example/v.mp4" poster="https://v.example/p.jpg" controls');
    expect(render('audio', { url: 'https://a.example/s.mp3' })).toContain('<audio src="https://a.example/s.mp3" controls');
    const file = render('file', { url: 'https://f.example/docs/menu.pdf' });
    expect(file).toContain('menu.pdf');
    expect(file).toContain('PDF document');
    expect(file).not.toContain('<a ');
    expect(render('media', { url: 'https://v.example/clip.webm' })).toContain('<video');
  });

  it('shows replaced media as a placeholder naming only the host', () => {
    const html = render('richCard', { title: 'T', media: { height: 'SHORT', contentInfo: { fileUrl: 'https://me.example/placeholder.png', contentType: 'video/mp4' } } }, {
      replacedMedia: [{ path: 'content.media.contentInfo.fileUrl', host: 'cdn.example.org' }],
    });
    expect(html).toContain('Media from cdn.example.org is not shown here');
    expect(html).not.toContain('<video');
    const audio = render('audio', { url: 'https://me.example/placeholder.png' }, { replacedMedia: [{ path: 'content.url', host: 'a.example' }] });
    expect(audio).toContain('Audio on a.example');
    expect(audio).not.toContain('<audio');
  });

  it('maps media sources through mediaSrc and adds an SMS phone for the fallback', () => {
    const html = render('image', { url: 'https://me.example/api/rcs/sandbox/samples/coffee.png' }, {
      mediaSrc: (u) => new URL(u).pathname,
      smsFallback: 'Hi there',
      smsSenderName: 'ACME SMS',
    });
    expect(html).toContain('src="/api/rcs/sandbox/samples/coffee.png"');
    expect(html).toContain('<div class="bubble bubble-sms">Hi there</div>');
    expect(html).toContain('ACME SMS');
    expect(html).toContain('Text message (SMS)');
    expect(render('text', { text: 'x' })).not.toContain('bubble-sms');
  });

  it('textBasic shows no chips; kinds come from contentType, then extension', () => {
    expect(renderToString(<RcsMessage messageType="textBasic" content={{ text: 'x', suggestions: [{ reply: { text: 'no' } }] }} />)).not.toContain('chip');
    expect(mediaKind('https://x.example/a', 'video/mp4', 'image')).toBe('video');
    expect(mediaKind('https://x.example/a.PNG', undefined, 'video')).toBe('image');
    expect(mediaKind('https://x.example/a.pdf', undefined, 'image')).toBe('file');
    expect(mediaKind('https://x.example/a', undefined, 'audio')).toBe('audio');
    expect(mediaResolver().replacedHost('content.url')).toBeNull();
  });
});
