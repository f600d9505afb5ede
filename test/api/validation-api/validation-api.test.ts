import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonGuidelines, validationLimits } from '../../../src/content/index.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { onPostgres } from '../../helpers/database.js';

// 2026-01-15T12:00:00Z; the test account lives in Europe/Berlin (+01:00 in winter).
const clock = new FakeClock(Date.UTC(2026, 0, 15, 12, 0, 0));
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(async () => {
  await t.close();
});

describe('authentication', () => {
  it.each([
    ['POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'x' } }],
    ['POST', '/api/rcs/validate-schedule-time', { scheduleAt: '2026-02-01T10:00:00' }],
    ['GET', '/api/rcs/timezones', undefined],
    ['GET', '/api/rcs/button-guidelines', undefined],
    ['GET', '/api/rcs/status', undefined],
  ])('%s %s answers 401 without a key and 401 with a bad one', async (method, path, body) => {
    const none = await t.api(method, path, body, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect((await t.api(method, path, body, { key: 'rcsk_wrong' })).status).toBe(401);
  });

  it('any valid key may call them, whatever its permissions', async () => {
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/rcs/button-guidelines', undefined, { key })).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'x' } }, { key })).status).toBe(200);
  });
});

describe('POST /validate', () => {
  it('answers {valid, errors, warnings} for valid content', async () => {
    const r = await t.api('POST', '/api/rcs/validate', { messageType: 'richCard', content: { title: 'Hi', media: { height: 'SHORT', contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg' } } } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('answers 200 valid:false with exact paths for rule violations, warnings beside', async () => {
    const r = await t.api('POST', '/api/rcs/validate', {
      messageType: 'richCard',
      content: { media: { contentInfo: { fileUrl: 'http://insecure.example/a.jpg' } }, cardActions: [{ text: 'x'.repeat(26), type: 'createCalendarEvent' }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    const errs = r.body.errors.map((e: { path: string; code: string }) => `${e.path} ${e.code}`);
    expect(errs).toContain('content title_or_description_required');
    expect(errs).toContain('content.media.contentInfo.fileUrl https_required');
    expect(errs).toContain('content.cardActions[0].text too_long');
    expect(errs).toContain('content.cardActions[0].type not_allowed_on_card_button');
  });

  it('checks an smsFallback beside the content and reports its SMS facts', async () => {
    const r = await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'Hi' }, smsFallback: { message: 'Grüße ✓ {{contact_first_name}}', sendernameId: t.account.senders.sms } });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
    expect(r.body.sms).toMatchObject({ encoding: 'Unicode', segments: 1, unicodeCharacters: ['✓'] });
    const tooLong = await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'Hi' }, smsFallback: { message: 'a'.repeat(1531), sendernameId: 'x' } });
    expect(tooLong.body.valid).toBe(false);
    expect(tooLong.body.errors).toContainEqual(expect.objectContaining({ path: 'smsFallback.message', code: 'too_long' }));
  });

  it("knows the account's custom-field tags as merge placeholders", async () => {
    const body = { messageType: 'text', content: { text: 'Your tier: {{loyalty_tier}}' } };
    const before = await t.api('POST', '/api/rcs/validate', body);
    expect(before.body.warnings).toContainEqual(expect.objectContaining({ path: 'content.text', code: 'unknown_merge_field' }));
    await t.ctx.services.fields.create(t.account.accountId, { name: 'Loyalty tier', tag: 'loyalty_tier' });
    const after = await t.api('POST', '/api/rcs/validate', body);
    expect(after.body).toEqual({ valid: true, errors: [], warnings: [] });
    // Another account's tags are not this account's.
    const other = await t.createAccount();
    const foreign = await t.api('POST', '/api/rcs/validate', body, { key: other.apiKey });
    expect(foreign.body.warnings).toContainEqual(expect.objectContaining({ code: 'unknown_merge_field' }));
  });

  it('accepts send-only fields and has no sandbox size limit', async () => {
    const r = await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'a'.repeat(300_000) }, phoneNumber: '+4915112345678', sendernameId: 'x' });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors[0]).toMatchObject({ path: 'content.text', code: 'too_long' });
  });

  it.each([
    [{ content: { text: 'x' } }, 'messageType', 'required'],
    [{ messageType: 'text' }, 'content', 'required'],
    [{ messageType: 'nope', content: {} }, 'messageType', 'invalid_enum'],
    [{ messageType: 'text', content: [] }, 'content', 'invalid_type'],
    [{ messageType: 'text', content: { text: 'x' }, extra: 1 }, 'extra', 'unknown_field'],
  ])('400 VALIDATION_ERROR for a malformed envelope %j', async (body, path, code) => {
    const r = await t.api('POST', '/api/rcs/validate', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details).toContainEqual({ path, code, message: expect.any(String) });
  });
});

describe('POST /validate-schedule-time', () => {
  const check = (body: unknown) => t.api('POST', '/api/rcs/validate-schedule-time', body);

  it("resolves wall time in the account's zone when no timeZone is given", async () => {
    const r = await check({ scheduleAt: '2026-02-01T09:30:00' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      scheduleTime: '2026-02-01T08:30:00.000Z',
      localScheduleTime: '2026-02-01T09:30:00.000+01:00',
      utcOffset: '+01:00',
      effectiveTimezone: 'Europe/Berlin',
      timezoneSource: 'account',
      offsetInInput: false,
      accountTimezone: 'Europe/Berlin',
    });
  });

  it('uses the request zone, and an explicit offset fixes the instant', async () => {
    const ny = await check({ scheduleAt: '2026-07-04T09:00:00', timeZone: 'America/New_York' });
    expect(ny.body).toMatchObject({ valid: true, scheduleTime: '2026-07-04T13:00:00.000Z', utcOffset: '-04:00', effectiveTimezone: 'America/New_York', timezoneSource: 'request' });
    const off = await check({ scheduleAt: '2026-07-04T09:00:00+02:00', timeZone: 'Asia/Tokyo' });
    expect(off.body).toMatchObject({ valid: true, scheduleTime: '2026-07-04T07:00:00.000Z', localScheduleTime: '2026-07-04T16:00:00.000+09:00', offsetInInput: true });
  });

  it('answers valid:false for a time in the past', async () => {
    const r = await check({ scheduleAt: '2026-01-15T12:59:00', timeZone: 'Europe/Berlin' }); // 11:59Z, a minute ago
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors).toEqual([{ path: 'scheduleAt', code: 'in_past', message: expect.stringContaining('past') }]);
  });

  it('refuses a wall time in a DST gap and names the nearest valid times', async () => {
    const r = await check({ scheduleAt: '2026-03-29T02:30:00', timeZone: 'Europe/Berlin' });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors[0]).toMatchObject({ path: 'scheduleAt', code: 'dst_gap' });
    expect(r.body.gap).toEqual({
      before: { utc: '2026-03-29T00:59:00.000Z', localTime: '2026-03-29T01:59:00.000+01:00' },
      after: { utc: '2026-03-29T01:00:00.000Z', localTime: '2026-03-29T03:00:00.000+02:00' },
    });
  });

  it('takes the earlier instant in a DST overlap and warns', async () => {
    const r = await check({ scheduleAt: '2026-10-25T02:30:00', timeZone: 'Europe/Berlin' });
    expect(r.body.valid).toBe(true);
    expect(r.body.scheduleTime).toBe('2026-10-25T00:30:00.000Z');
    expect(r.body.warnings).toEqual([{ path: 'scheduleAt', code: 'dst_ambiguous', message: expect.stringContaining('occurs twice') }]);
    expect(r.body.dst.alternatives).toHaveLength(2);
  });

  it('answers valid:false for an unknown zone or an unparseable time', async () => {
    const zone = await check({ scheduleAt: '2026-02-01T09:30:00', timeZone: 'Mars/Olympus_Mons' });
    expect(zone.status).toBe(200);
    expect(zone.body).toMatchObject({ valid: false, errors: [{ path: 'timeZone', code: 'invalid_timezone' }] });
    const when = await check({ scheduleAt: 'next tuesday' });
    expect(when.body).toMatchObject({ valid: false, errors: [{ path: 'scheduleAt', code: 'invalid_datetime' }] });
  });

  it('400 for a missing or non-string scheduleAt', async () => {
    expect((await check({})).status).toBe(400);
    expect((await check({ scheduleAt: 1767225600000 })).status).toBe(400);
    expect((await check({ scheduleAt: '2026-02-01T09:30:00', timeZone: 5 })).status).toBe(400);
  });
});

describe('GET /timezones', () => {
  it("lists IANA zones with offset and local time, and the account's zone", async () => {
    const r = await t.api('GET', '/api/rcs/timezones');
    expect(r.status).toBe(200);
    expect(r.body.accountTimezone).toEqual({ timeZone: 'Europe/Berlin', offset: '+01:00', currentTime: '2026-01-15T13:00:00.000+01:00' });
    expect(r.body.count).toBe(r.body.timezones.length);
    expect(r.body.count).toBeGreaterThan(300);
    expect(r.body.timezones).toContainEqual({ timeZone: 'America/New_York', offset: '-05:00', currentTime: '2026-01-15T07:00:00.000-05:00' });
    expect(r.body.timezones).toContainEqual({ timeZone: 'UTC', offset: '+00:00', currentTime: '2026-01-15T12:00:00.000Z' });
    expect(r.body.timestamp).toBe('2026-01-15T12:00:00.000Z');
  });
});

describe('GET /button-guidelines and GET /status', () => {
  it('button guidelines come from the validator constants', async () => {
    const r = await t.api('GET', '/api/rcs/button-guidelines');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(buttonGuidelines())));
    expect(r.body.limits).toMatchObject({ cardActionsPerCard: 4, chipSuggestionsTotal: 11, textMaxLength: 25, postbackDataMaxLength: 2048 });
    expect(r.body.placement.chipOnly.sort()).toEqual(['createCalendarEvent', 'unsubscribe']);
    expect(r.body.placement.cardButtonOnly.sort()).toEqual(['addToCalendar', 'postback']);
  });

  it('status carries validationLimits exactly as §4.1 lists them', async () => {
    const r = await t.api('GET', '/api/rcs/status');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'healthy',
      validationLimits: validationLimits(),
      timestamp: '2026-01-15T12:00:00.000Z',
      database: { dialect: onPostgres ? 'postgres' : 'sqlite', status: 'up', latencyMs: expect.any(Number) },
    });
    expect(r.body.validationLimits).toEqual({
      cardActions: { maxPerCard: 4, textMaxLength: 25 },
      chipSuggestions: { total: 11, textMaxLength: 25 },
      postbackData: { maxLength: 2048 },
      text: { maxLength: 3072 },
      richCard: { titleMaxLength: 200, descriptionMaxLength: 2000 },
      carousel: { minCards: 2, maxCards: 10 },
      media: { maxFileSizeBytes: 104857600, supportedFormats: ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'video/h263', 'video/mp4', 'video/mpeg', 'video/webm'] },
    });
  });

  it('the OpenAPI document lists the new endpoints with their request bodies', async () => {
    const r = await t.api('GET', '/openapi.json', undefined, { key: null });
    const paths = r.body.paths;
    for (const p of ['/api/rcs/validate', '/api/rcs/validate-schedule-time', '/api/rcs/timezones', '/api/rcs/button-guidelines', '/api/rcs/sandbox/validate', '/api/rcs/sandbox/preview', '/api/rcs/sandbox/samples', '/api/rcs/sandbox/preview/{slug}']) {
      expect(paths[p], p).toBeDefined();
    }
    expect(paths['/api/rcs/sandbox/preview'].post.requestBody.content['application/json'].schema.properties.messageType.enum).toContain('carousel');
    expect(paths['/api/rcs/validate'].post.requestBody.content['application/json'].schema.required).toEqual(['messageType', 'content']);
    expect(paths['/api/rcs/sandbox/validate'].post.security).toEqual([]);
  });
});
