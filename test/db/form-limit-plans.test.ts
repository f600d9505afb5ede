import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteHandle } from '../../src/platform/db/database.js';
import { onPostgres } from '../helpers/database.js';
import { planOf, recordStatements } from '../helpers/query-plans.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * Every double opt-in submission counts its form's and its account's confirmation SMS of the last day (issue #27,
 * migration 025). Those counts search the partial indexes on (form_id | account_id, confirmation_sent_at) of the
 * submissions that were given an SMS, instead of reading every submission of the form or account.
 */
describe.skipIf(onPostgres)('confirmation caps count through their indexes (SQLite plans)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('per form through form_submissions_form_confirmations, per account through form_submissions_account_confirmations', async () => {
    const form = await t.api('POST', '/api/v1/forms', { name: 'Cap plans', fields: { firstName: 'optional' }, confirmation: { sendernameId: t.account.senders.sms } });
    expect(form.status).toBe(201);
    const raw = sqliteHandle(t.ctx.database);
    const recorder = recordStatements(raw);
    try {
      const client = new WebClient(t.url);
      const page = await client.get(`/f/${form.body.data.slug}`);
      expect((await client.post(`/f/${form.body.data.slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), phone: '+4915130099980', firstName: 'Ada' })).status).toBe(303);
    } finally {
      recorder.stop();
    }
    const counts = recorder.statements().filter((s) => s.includes('from "form_submissions"') && s.includes('"confirmation_sent_at" >'));
    expect(counts).toHaveLength(2);
    const plans = counts.map((s) => planOf(raw, s).join(' | '));
    expect(plans.some((p) => /^SEARCH form_submissions USING (COVERING )?INDEX form_submissions_form_confirmations \(form_id=\? AND confirmation_sent_at>\?\)/.test(p)), plans.join('\n')).toBe(true);
    expect(plans.some((p) => /^SEARCH form_submissions USING (COVERING )?INDEX form_submissions_account_confirmations \(account_id=\? AND confirmation_sent_at>\?\)/.test(p)), plans.join('\n')).toBe(true);
  });
});
