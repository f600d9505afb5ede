import { describe, expect, it } from 'vitest';
import { validateContent } from '../../../src/content/index.js';
import { ACTION_TYPES, CARD_BUTTON_ONLY_ACTION_TYPES, CHIP_ONLY_ACTION_TYPES, type ActionType } from '../../../src/content/vocabulary.js';
import { actionOf, card, carousel, chipAction, media, reply, richCard, type Json } from './fixtures.js';

const at = (path: string, code: string) => expect.objectContaining({ path, code });

function errorsOf(messageType: unknown, content: unknown, opts?: Parameters<typeof validateContent>[2]) {
  return validateContent(messageType, content, opts).errors;
}
function warningsOf(messageType: unknown, content: unknown, opts?: Parameters<typeof validateContent>[2]) {
  return validateContent(messageType, content, opts).warnings;
}

describe('messageType and content envelope', () => {
  it.each([
    ['missing', undefined, 'required'],
    ['null', null, 'required'],
    ['unknown string', 'sms', 'invalid_enum'],
    ['wrong case', 'RichCard', 'invalid_enum'],
    ['number', 3, 'invalid_enum'],
  ])('messageType %s → %s at messageType', (_n, messageType, code) => {
    expect(errorsOf(messageType, { text: 'hi' })).toContainEqual(at('messageType', code));
  });

  it('still checks content generically when messageType is unknown', () => {
    const errors = errorsOf('nope', { text: 'x'.repeat(3073) });
    expect(errors).toContainEqual(at('messageType', 'invalid_enum'));
    expect(errors).toContainEqual(at('content.text', 'too_long'));
  });

  it.each([
    ['missing', undefined, 'required'],
    ['null', null, 'required'],
    ['array', [], 'invalid_type'],
    ['string', 'hello', 'invalid_type'],
  ])('content %s → %s at content', (_n, content, code) => {
    expect(errorsOf('text', content)).toContainEqual(at('content', code));
  });

  it('rejects unknown content fields (a typo would silently drop buttons)', () => {
    expect(errorsOf('richCard', richCard({ cardAction: [] }))).toContainEqual(at('content.cardAction', 'unknown_field'));
  });

  it('warns about known fields the message type does not use', () => {
    const r = validateContent('text', { text: 'hi', title: 'unused' });
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.title', 'field_ignored'));
  });
});

describe('per message type', () => {
  it.each([
    ['text', { text: 'Hello' }],
    ['text', { text: 'Hello', suggestions: [reply()] }],
    ['textBasic', { text: 'Hello' }],
    ['richCard', { title: 'Only a title' }],
    ['richCard', { description: 'Only a description' }],
    ['richCard', richCard()],
    ['carousel', carousel(3)],
    ['media', { url: 'https://cdn.example.com/a.mp4', caption: 'Watch' }],
    ['media', { media: media() }],
    ['file', { url: 'https://cdn.example.com/a.pdf' }],
    ['image', { url: 'https://cdn.example.com/a.png', caption: 'c' }],
    ['video', { media: media({ contentInfo: { fileUrl: 'https://cdn.example.com/v.mp4', contentType: 'video/mp4' } }) }],
    ['audio', { url: 'https://cdn.example.com/a.mp3' }],
  ])('%s %j is valid', (type, content) => {
    const r = validateContent(type, content);
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it.each([
    ['text', {}, 'content.text', 'required'],
    ['text', { text: '   ' }, 'content.text', 'empty'],
    ['text', { text: 5 }, 'content.text', 'invalid_type'],
    ['textBasic', { text: 'hi', suggestions: [reply()] }, 'content.suggestions', 'not_allowed'],
    ['richCard', {}, 'content', 'title_or_description_required'],
    ['richCard', { title: ' ', description: '' }, 'content', 'title_or_description_required'],
    ['carousel', {}, 'content.cardContents', 'required'],
    ['carousel', { cardContents: {} }, 'content.cardContents', 'invalid_type'],
    ['carousel', { cardContents: [card(), { media: media() }] }, 'content.cardContents[1]', 'title_or_description_required'],
    ['carousel', { cardContents: [card(), 'x'] }, 'content.cardContents[1]', 'invalid_type'],
    ['media', {}, 'content', 'url_or_media_required'],
    ['image', { url: 'https://cdn.example.com/a.png', media: media() }, 'content.media', 'exactly_one_of'],
    ['file', { media: { height: 'TALL' } }, 'content.media.contentInfo', 'required'],
    ['video', { media: { contentInfo: { contentType: 'video/mp4' } } }, 'content.media.contentInfo.fileUrl', 'required'],
    ['image', { url: 'http://cdn.example.com/a.png' }, 'content.url', 'https_required'],
    ['image', { url: 'cdn.example.com/a.png' }, 'content.url', 'invalid_url'],
    ['image', { url: 'https://cdn.example.com/{{contact_first_name}}.png' }, 'content.url', 'placeholder_not_allowed'],
    ['richCard', richCard({ cardOrientation: 'DIAGONAL' }), 'content.cardOrientation', 'invalid_enum'],
    ['richCard', richCard({ imageAlignment: 'CENTER', cardOrientation: 'HORIZONTAL' }), 'content.imageAlignment', 'invalid_enum'],
  ])('%s %j → %s %s', (type, content, path, code) => {
    expect(errorsOf(type, content)).toContainEqual(at(path, code));
  });
});

describe('media (§2.2)', () => {
  it('drops rich-card media without fileUrl with a warning, not an error', () => {
    const r = validateContent('richCard', richCard({ media: { height: 'TALL' } }));
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.media', 'media_dropped'));
  });

  it('warns when height is missing (TALL applied)', () => {
    const r = validateContent('richCard', richCard({ media: { contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg' } } }));
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.media.height', 'media_height_missing'));
  });

  it.each([
    [{ height: 'HUGE' }, 'content.media.height', 'invalid_enum'],
    [{ contentInfo: { fileUrl: 'http://x.example.com/a.jpg' } }, 'content.media.contentInfo.fileUrl', 'https_required'],
    [{ contentInfo: { fileUrl: 'https://x.example.com/a.jpg', contentType: 'image/webp' } }, 'content.media.contentInfo.contentType', 'invalid_enum'],
    [{ contentInfo: { fileUrl: 'https://x.example.com/a.jpg', thumbnailUrl: 'http://x.example.com/t.jpg' } }, 'content.media.contentInfo.thumbnailUrl', 'https_required'],
    [{ contentInfo: { fileUrl: 'https://x.example.com/a.jpg', forceRefresh: 'yes' } }, 'content.media.contentInfo.forceRefresh', 'invalid_type'],
    [{ contentInfo: { fileUrl: 'https://x.example.com/a.jpg', size: 3 } }, 'content.media.contentInfo.size', 'unknown_field'],
    [{ thumbnailUrl: 'ftp://x.example.com/t.jpg', contentInfo: { fileUrl: 'https://x.example.com/a.jpg' } }, 'content.media.thumbnailUrl', 'https_required'],
  ])('%j → %s %s', (m, path, code) => {
    expect(errorsOf('richCard', richCard({ media: { height: 'TALL', ...m } }))).toContainEqual(at(path, code));
  });

  it.each(['file', 'audio'])('%s messages with a MIME type outside the enum are told to omit it', (type) => {
    const content = { media: { contentInfo: { fileUrl: 'https://cdn.example.com/a.pdf', contentType: 'application/pdf' } } };
    const errors = errorsOf(type, content);
    expect(errors).toEqual([at('content.media.contentInfo.contentType', 'invalid_enum')]);
    expect(errors[0]?.message).toContain('omit it');
  });

  it('warns when the contentType does not fit the message type', () => {
    const content = { media: media({ contentInfo: { fileUrl: 'https://cdn.example.com/v.mp4', contentType: 'video/mp4' } }) };
    expect(warningsOf('image', content)).toContainEqual(at('content.media.contentInfo.contentType', 'content_type_mismatch'));
  });

  it('warns about mixed media heights in a carousel', () => {
    const content = { cardContents: [card({ media: media({ height: 'SHORT' }) }), card({ media: media({ height: 'TALL' }) })] };
    const r = validateContent('carousel', content);
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.cardContents', 'mixed_media_heights'));
  });
});

describe('action placement (§2.3 rules 1–3)', () => {
  const cardButtons = (type: ActionType) => validateContent('richCard', richCard({ cardActions: [actionOf(type)] }));
  const chips = (type: ActionType) => validateContent('text', { text: 'hi', suggestions: [chipAction(type)] });

  it.each(ACTION_TYPES.filter((t) => !(CHIP_ONLY_ACTION_TYPES as readonly string[]).includes(t)))('%s is valid on a card button', (type) => {
    expect(cardButtons(type).errors).toEqual([]);
  });
  it.each(ACTION_TYPES.filter((t) => !(CARD_BUTTON_ONLY_ACTION_TYPES as readonly string[]).includes(t)))('%s is valid on a chip', (type) => {
    expect(chips(type).errors).toEqual([]);
  });
  it.each(CARD_BUTTON_ONLY_ACTION_TYPES)('%s is refused on a chip', (type) => {
    expect(chips(type).errors).toEqual([at('content.suggestions[0].action.type', 'not_allowed_on_chip')]);
  });
  it.each(CHIP_ONLY_ACTION_TYPES)('%s is refused on a card button', (type) => {
    expect(cardButtons(type).errors).toEqual([at('content.cardActions[0].type', 'not_allowed_on_card_button')]);
  });
});

describe('action payloads', () => {
  const onCard = (action: Json) => errorsOf('richCard', richCard({ cardActions: [action] }));
  const onChip = (action: Json) => errorsOf('text', { text: 'hi', suggestions: [{ action }] });
  const p = 'content.cardActions[0]';
  const q = 'content.suggestions[0].action';

  it.each([
    ['openUrl', 'openUrlAction'],
    ['openUrlInWebview', 'openUrlInWebviewAction'],
    ['dial', 'dialAction'],
    ['addToCalendar', 'calendarAction'],
    ['viewLocation', 'viewLocationAction'],
    ['unsubscribeLink', 'openUrlAction'],
  ] as const)('%s without %s → required', (type, field) => {
    expect(onCard({ text: 'Tap', type })).toContainEqual(at(`${p}.${field}`, 'required'));
  });

  it('createCalendarEvent without its payload → required (chip)', () => {
    expect(onChip({ text: 'Tap', type: 'createCalendarEvent' })).toContainEqual(at(`${q}.createCalendarEventAction`, 'required'));
  });

  it('a payload for another type does not satisfy the type', () => {
    const errors = onCard({ text: 'Call', type: 'dial', openUrlAction: { url: 'https://example.com' } });
    expect(errors).toContainEqual(at(`${p}.dialAction`, 'required'));
    expect(warningsOf('richCard', richCard({ cardActions: [actionOf('dial', { openUrlAction: { url: 'https://example.com' } })] }))).toContainEqual(
      at(`${p}.openUrlAction`, 'field_ignored'),
    );
  });

  it.each([
    [{ text: '', type: 'openUrl', openUrlAction: { url: 'https://e.com' } }, `${p}.text`, 'empty'],
    [{ type: 'openUrl', openUrlAction: { url: 'https://e.com' } }, `${p}.text`, 'required'],
    [{ text: 'a' }, `${p}.type`, 'required'],
    [{ text: 'a', type: 'open_url' }, `${p}.type`, 'invalid_enum'],
    [{ text: 'a', type: 'openUrl', openUrlAction: {} }, `${p}.openUrlAction.url`, 'required'],
    [{ text: 'a', type: 'openUrl', openUrlAction: { url: 'javascript:alert(1)' } }, `${p}.openUrlAction.url`, 'invalid_url'],
    [{ text: 'a', type: 'openUrl', openUrlAction: { url: 'not a url' } }, `${p}.openUrlAction.url`, 'invalid_url'],
    [{ text: 'a', type: 'openUrl', openUrlAction: { url: 'https://e.com', target: '_blank' } }, `${p}.openUrlAction.target`, 'unknown_field'],
    [{ text: 'a', type: 'openUrl', openUrlAction: 'https://e.com' }, `${p}.openUrlAction`, 'invalid_type'],
    [{ text: 'a', type: 'openUrlInWebview', openUrlInWebviewAction: { url: 'https://e.com', viewMode: 'SMALL' } }, `${p}.openUrlInWebviewAction.viewMode`, 'invalid_enum'],
    [{ text: 'a', type: 'dial', dialAction: { phoneNumber: 'call me' } }, `${p}.dialAction.phoneNumber`, 'invalid_phone'],
    [{ text: 'a', type: 'dial', dialAction: {} }, `${p}.dialAction.phoneNumber`, 'required'],
    [{ text: 'a', type: 'postback', webhookUrl: 'not-a-url' }, `${p}.webhookUrl`, 'invalid_url'],
    [{ text: 'a', type: 'postback', foo: 1 }, `${p}.foo`, 'unknown_field'],
  ])('%j → %s %s', (action, path, code) => {
    expect(onCard(action)).toContainEqual(at(path, code));
  });

  describe('calendar', () => {
    const cal = (c: Json) => onCard({ text: 'Add', type: 'addToCalendar', calendarAction: c });
    const good = { startTime: '2026-05-01T10:00:00Z', endTime: '2026-05-01T11:00:00Z', title: 'T' };
    it.each([
      [{ ...good, startTime: '2026-05-01 10:00' }, 'startTime', 'invalid_datetime'],
      [{ ...good, endTime: '2026-05-01T11:00:00' }, 'endTime', 'invalid_datetime'],
      [{ ...good, endTime: '2026-13-01T11:00:00Z' }, 'endTime', 'invalid_datetime'],
      [{ ...good, endTime: '2026-05-01T10:00:00Z' }, 'endTime', 'end_before_start'],
      [{ ...good, endTime: '2026-05-01T11:30:00+02:00' }, 'endTime', 'end_before_start'],
      [{ startTime: good.startTime, endTime: good.endTime }, 'title', 'required'],
      [{ ...good, location: 'x' }, 'location', 'unknown_field'],
    ])('%j → %s %s', (c, field, code) => {
      expect(cal(c)).toContainEqual(at(`${p}.calendarAction.${field}`, code));
    });
  });

  describe('location', () => {
    const loc = (v: Json) => onCard({ text: 'Map', type: 'viewLocation', viewLocationAction: v });
    it.each([
      [{ latLong: { latitude: 90, longitude: 180 } }, null, null],
      [{ latLong: { latitude: -90, longitude: -180 } }, null, null],
      [{ latLong: { latitude: 90.0001, longitude: 0 } }, 'latLong.latitude', 'out_of_range'],
      [{ latLong: { latitude: 0, longitude: -180.5 } }, 'latLong.longitude', 'out_of_range'],
      [{ latLong: { latitude: '52', longitude: 0 } }, 'latLong.latitude', 'invalid_type'],
      [{ latLong: { latitude: 0 } }, 'latLong.longitude', 'required'],
      [{ label: 'x' }, 'latLong', 'required'],
    ])('%j → %s %s', (v, field, code) => {
      const errors = loc(v);
      if (field === null) expect(errors).toEqual([]);
      else expect(errors).toContainEqual(at(`${p}.viewLocationAction.${field}`, code));
    });
  });

  it('shareLocationAction must be empty', () => {
    expect(onCard({ text: 'Share', type: 'shareLocation', shareLocationAction: { x: 1 } })).toContainEqual(
      at(`${p}.shareLocationAction.x`, 'unknown_field'),
    );
    expect(onCard({ text: 'Share', type: 'shareLocation' })).toEqual([]);
  });

  it('unsubscribe chip: stopKeyword optional, not blank', () => {
    expect(onChip({ text: 'Stop', type: 'unsubscribe' })).toEqual([]);
    expect(onChip({ text: 'Stop', type: 'unsubscribe', unsubscribeAction: { stopKeyword: ' ' } })).toContainEqual(
      at(`${q}.unsubscribeAction.stopKeyword`, 'empty'),
    );
  });

  it('dial numbers without + are accepted with a warning', () => {
    const w = warningsOf('richCard', richCard({ cardActions: [actionOf('dial', { dialAction: { phoneNumber: '030 123456' } })] }));
    expect(w).toContainEqual(at(`${p}.dialAction.phoneNumber`, 'not_e164'));
  });
});

describe('unsubscribe link (§2.3 rule 4)', () => {
  const p = 'content.cardActions[0]';
  it.each(['{{unsubscribe_link}}', '{{ unsubscribe_link }}'])('unsubscribeLink with %s is valid', (url) => {
    expect(errorsOf('richCard', richCard({ cardActions: [actionOf('unsubscribeLink', { openUrlAction: { url } })] }))).toEqual([]);
  });
  it.each(['https://example.com/unsubscribe', '{{unsubscribe_link}}?x=1', '{{contact_first_name}}', ''])(
    'unsubscribeLink with %j → unsubscribe_link_placeholder',
    (url) => {
      const errors = errorsOf('richCard', richCard({ cardActions: [actionOf('unsubscribeLink', { openUrlAction: { url } })] }));
      expect(errors).toContainEqual(at(`${p}.openUrlAction.url`, 'unsubscribe_link_placeholder'));
    },
  );
  it.each([
    ['openUrl', { openUrlAction: { url: '{{unsubscribe_link}}' } }],
    ['openUrlInWebview', { openUrlInWebviewAction: { url: '{{ unsubscribe_link }}' } }],
  ] as const)('%s to the unsubscribe placeholder → use type unsubscribeLink', (type, payload) => {
    const errors = errorsOf('richCard', richCard({ cardActions: [actionOf(type, payload)] }));
    expect(errors).toEqual([at(`${p}.type`, 'unsubscribe_link_placeholder')]);
    expect(errors[0]?.message).toContain('unsubscribeLink');
  });
  it('works on chips too', () => {
    const errors = errorsOf('text', { text: 'hi', suggestions: [chipAction('openUrl', { openUrlAction: { url: '{{unsubscribe_link}}' } })] });
    expect(errors).toContainEqual(at('content.suggestions[0].action.type', 'unsubscribe_link_placeholder'));
  });
});

describe('button URLs', () => {
  const url = (u: string) => validateContent('richCard', richCard({ cardActions: [actionOf('openUrl', { openUrlAction: { url: u } })] }));
  it.each([
    'https://shop.example.com/?name={{contact_first_name}}',
    '{{company_website}}',
    '{{company_website}}/spring',
    'https://{{ company_name }}.example.com/',
  ])('%s is valid', (u) => {
    expect(url(u).errors).toEqual([]);
  });
  it('http is accepted with insecure_url', () => {
    const r = url('http://shop.example.com');
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.cardActions[0].openUrlAction.url', 'insecure_url'));
  });
  it('webview over http warns', () => {
    const r = validateContent('text', {
      text: 'hi',
      suggestions: [chipAction('openUrlInWebview', { openUrlInWebviewAction: { url: 'http://shop.example.com' } })],
    });
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.suggestions[0].action.openUrlInWebviewAction.url', 'insecure_url'));
  });
});

describe('chips (§2.4)', () => {
  it.each([
    [{}, 'exactly_one_of'],
    [{ reply: { text: 'a' }, action: actionOf('dial') }, 'exactly_one_of'],
    [null, 'required'],
    [[], 'invalid_type'],
  ])('%j → %s at content.suggestions[0]', (chip, code) => {
    expect(errorsOf('text', { text: 'hi', suggestions: [chip] })).toContainEqual(at('content.suggestions[0]', code));
  });
  it.each([
    [{ reply: { postbackData: 'x' } }, 'content.suggestions[0].reply.text', 'required'],
    [{ reply: { text: 'a', extra: 1 } }, 'content.suggestions[0].reply.extra', 'unknown_field'],
    [{ reply: 'yes' }, 'content.suggestions[0].reply', 'invalid_type'],
    [{ reply: { text: 'a' }, note: 'x' }, 'content.suggestions[0].note', 'unknown_field'],
  ])('%j → %s %s', (chip, path, code) => {
    expect(errorsOf('text', { text: 'hi', suggestions: [chip] })).toContainEqual(at(path, code));
  });
  it('suggestions must be an array', () => {
    expect(errorsOf('text', { text: 'hi', suggestions: { reply: { text: 'a' } } })).toContainEqual(at('content.suggestions', 'invalid_type'));
  });
  it('an empty suggestions array is a warning', () => {
    const r = validateContent('text', { text: 'hi', suggestions: [] });
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.suggestions', 'empty_suggestions'));
  });
});

describe('merge placeholders', () => {
  it('built-in fields raise nothing', () => {
    const r = validateContent('text', { text: 'Hi {{contact_first_name}}, {{ company_name }} – {{today}} {{unsubscribe_link}}' });
    expect(r.warnings).toEqual([]);
  });
  it('unknown fields warn at their path; account fields are known', () => {
    const content = richCard({ title: 'Hi {{shoe_size}}', cardActions: [actionOf('openUrl', { openUrlAction: { url: 'https://e.com/{{promo}}' } })] });
    const r = validateContent('richCard', content);
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('content.title', 'unknown_merge_field'));
    expect(r.warnings).toContainEqual(at('content.cardActions[0].openUrlAction.url', 'unknown_merge_field'));
    const known = validateContent('richCard', content, { knownMergeFields: new Set(['shoe_size', 'promo']) });
    expect(known.warnings.filter((w) => w.code === 'unknown_merge_field')).toEqual([]);
  });
  it('malformed placeholders warn', () => {
    expect(warningsOf('text', { text: 'Hi {{first name}}' })).toContainEqual(at('content.text', 'malformed_placeholder'));
    expect(warningsOf('text', { text: 'Hi {{contact_first_name}' })).toContainEqual(at('content.text', 'malformed_placeholder'));
  });
  it('placeholders in chip text are not merged and say so', () => {
    expect(warningsOf('text', { text: 'hi', suggestions: [reply({ text: 'I am {{contact_first_name}}' })] })).toContainEqual(
      at('content.suggestions[0].reply.text', 'placeholder_not_merged'),
    );
  });
  it('carousel card titles and descriptions are scanned', () => {
    const w = warningsOf('carousel', { cardContents: [card(), card({ description: '{{nope}}' })] });
    expect(w).toContainEqual(at('content.cardContents[1].description', 'unknown_merge_field'));
  });
});

describe('SMS fallback (§2.5)', () => {
  it('reports encoding and segments of a GSM-7 fallback', () => {
    const r = validateContent('text', { text: 'hi' }, { smsFallback: { message: 'Hello {{contact_first_name}}', sendernameId: 'snd_1' } });
    expect(r.valid).toBe(true);
    expect(r.sms).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(r.warnings).toEqual([]);
  });
  it('names the characters that force UCS-2', () => {
    const r = validateContent('text', { text: 'hi' }, { smsFallback: { message: 'It’s 20 % off 🎉 ça va', sendernameId: 'snd_1' } });
    expect(r.sms).toMatchObject({ encoding: 'Unicode', unicodeCharacters: ['’', '🎉', 'ç'] });
    const w = r.warnings.find((x) => x.code === 'sms_unicode');
    expect(w?.path).toBe('smsFallback.message');
    expect(w?.message).toContain('"’" (U+2019)');
    expect(w?.message).toContain('"🎉" (U+1F389)');
    expect(w?.message).toContain('"ç" (U+00E7)');
  });
  it('warns beyond 10 segments', () => {
    const r = validateContent('text', { text: 'hi' }, { smsFallback: { message: 'ж'.repeat(700), sendernameId: 'snd_1' } });
    expect(r.valid).toBe(true);
    expect(r.warnings).toContainEqual(at('smsFallback.message', 'sms_many_segments'));
  });
  it.each([
    ['text', 'smsFallback', 'invalid_type'],
    [{ sendernameId: 'snd_1' }, 'smsFallback.message', 'required'],
    [{ message: '' }, 'smsFallback.message', 'empty'],
    [{ message: 7 }, 'smsFallback.message', 'invalid_type'],
    [{ message: 'hi', sendernameId: 5 }, 'smsFallback.sendernameId', 'invalid_type'],
    [{ message: 'hi', sender: 'x' }, 'smsFallback.sender', 'unknown_field'],
  ])('%j → %s %s', (fallback, path, code) => {
    expect(errorsOf('text', { text: 'hi' }, { smsFallback: fallback })).toContainEqual(at(path, code));
  });
  it('scans fallback placeholders', () => {
    expect(warningsOf('text', { text: 'hi' }, { smsFallback: { message: 'Hi {{nick}}' } })).toContainEqual(
      at('smsFallback.message', 'unknown_merge_field'),
    );
  });
});

describe('result shape', () => {
  it('every issue has a string path, a code and a message', () => {
    const r = validateContent('richCard', { title: 5, cardActions: [{}], suggestions: [{}], foo: 1 });
    expect(r.errors.length).toBeGreaterThan(3);
    for (const issue of [...r.errors, ...r.warnings]) {
      expect(Object.keys(issue).sort()).toEqual(['code', 'message', 'path']);
      expect(issue.message.length).toBeGreaterThan(5);
    }
  });
  it('valid mirrors the absence of errors, and sms is present only with a fallback', () => {
    const r = validateContent('text', { text: 'hi' });
    expect(r).toEqual({ valid: true, errors: [], warnings: [] });
  });
  it('treats a JSON __proto__ key as an unknown field, not a prototype', () => {
    const content = JSON.parse('{"text":"hi","__proto__":{"text":5}}');
    expect(errorsOf('text', content)).toEqual([at('content.__proto__', 'unknown_field')]);
  });
  it('caps inspection of absurdly long arrays', () => {
    const r = validateContent('text', { text: 'hi', suggestions: Array.from({ length: 100_000 }, () => ({})) });
    expect(r.errors[0]).toEqual(at('content.suggestions', 'too_many'));
    expect(r.errors.length).toBeLessThanOrEqual(200);
  });
});
