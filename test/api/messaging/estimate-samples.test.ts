import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { body, mcpClient } from '../../mcp/helpers.js';
import { de } from './util.js';
import { parseSendBody } from '../../../src/messaging/prepare.js';
import { SendBatchRequestSchema, SendSmsRequestSchema } from '../../../src/messaging/schemas.js';

/**
 * A dry run's samples carry each recipient's merged message (messageType + content for RCS), so the
 * share page can show what that recipient gets rather than the placeholders.
 */
let t: TestServer;
let acc: TestAccount;
const phones = Array.from({ length: 7 }, (_, i) => de(7100 + i, '0001'));
const names = ['Anna', 'Ben', 'Clara', 'Dora', 'Emil', 'Fritz', 'Greta'];

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
  for (const [i, phone] of phones.entries()) await t.ctx.services.contacts.create(acc.accountId, { phone, firstName: names[i]! });
});
afterAll(async () => {
  await t.close();
});

const card = {
  messageType: 'richCard',
  content: {
    title: 'Hello {{contact_first_name}}',
    description: 'For {{contact_first_name}} only',
    cardActions: [{ type: 'openUrl', text: 'Open', openUrlAction: { url: 'https://shop.example.com/{{contact_first_name}}' } }],
  },
};

describe('SendEstimate.samples', () => {
  it('holds the merged RCS content of the first five recipients, and their fallback text', async () => {
    const e = await t.ctx.services.send.sendBatch(acc.accountId, parseSendBody(SendBatchRequestSchema, { ...card, phoneNumbers: phones, sendernameId: acc.senders.rcs, smsFallback: { message: 'Hi {{contact_first_name}}', sendernameId: acc.senders.sms } }), { dryRun: true });
    expect(e.accepted).toBe(7);
    expect(e.samples).toHaveLength(5);
    for (const [i, s] of e.samples.entries()) {
      expect(s.phoneNumber).toBe(phones[i]);
      expect(s.messageType).toBe('richCard');
      expect(s.content).toMatchObject({
        title: `Hello ${names[i]}`,
        description: `For ${names[i]} only`,
        cardActions: [{ type: 'openUrl', text: 'Open', openUrlAction: { url: `https://shop.example.com/${names[i]}` } }],
      });
      expect(JSON.stringify(s.content)).not.toContain('{{');
      expect(s.fallbackText).toBe(`Hi ${names[i]}`);
    }
    // A dry run writes nothing.
    expect(await t.ctx.db.selectFrom('messages').select('id').where('account_id', '=', acc.accountId).execute()).toEqual([]);
  });

  it('has no RCS content for SMS, whose merged body is the text', async () => {
    const e = await t.ctx.services.send.sendSms(acc.accountId, parseSendBody(SendSmsRequestSchema, { phoneNumber: phones[1], sendernameId: acc.senders.sms, message: 'Hi {{contact_first_name}}' }), { dryRun: true });
    expect(e.samples).toEqual([{ phoneNumber: phones[1], text: 'Hi Ben', fallbackText: null, creditsCost: expect.any(Number), messageType: null, content: null }]);
  });

  it('is stored with the preview for the share page; the tool result keeps its samples to the texts', async () => {
    const c = await mcpClient(t.url, acc.apiKey);
    const r = body(await c.callTool({ name: 'rcs_preview', arguments: { ...card, phoneNumber: phones[2], sendernameId: acc.senders.rcs } }));
    await c.close();
    expect(r.samples).toEqual([{ phoneNumber: phones[2], text: expect.stringContaining('Hello Clara'), fallbackText: null, creditsCost: expect.any(Number) }]);
    const row = await t.ctx.db.selectFrom('previews').select('estimate').where('id', '=', r.preview_id).executeTakeFirstOrThrow();
    const stored = JSON.parse(row.estimate) as { samples: { messageType: string; content: { title: string } }[] };
    expect(stored.samples[0]).toMatchObject({ messageType: 'richCard', content: { title: 'Hello Clara' } });
  });
});
