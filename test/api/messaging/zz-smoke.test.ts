import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '/work/main/test/helpers/server.js';
let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });
it('smoke', async () => {
  const r = await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915112340001', messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs });
  console.log(r.status, JSON.stringify(r.body));
  await new Promise((res) => setTimeout(res, 1000));
  const log = await t.api('GET', '/api/messages/log');
  console.log(JSON.stringify(log.body, null, 1));
  const b = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: ['+4915112340002','+4915112340003', 'bad', '+4915112349990'], messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs, smsFallback: { message: 'hi sms', sendernameId: t.account.senders.sms } });
  console.log(b.status, JSON.stringify(b.body));
  await new Promise((res) => setTimeout(res, 1000));
  const j = await t.api('GET', `/api/rcs/batch/${b.body.jobId}/status`);
  console.log(JSON.stringify(j.body));
  const log2 = await t.api('GET', '/api/messages/log');
  console.log(log2.body.messages.map((m: any) => [m.phoneNumber, m.status, m.method, m.fallbackReason, m.creditsCost].join(' ')));
});
