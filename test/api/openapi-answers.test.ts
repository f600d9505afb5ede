import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_FIELDS } from '../../src/platform/error-fields.js';
import type { ErrorCode } from '../../src/platform/errors.js';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { startReceiver, startWebhookServer, type Receiver } from './webhooks/helpers.js';

/**
 * Every operation of /openapi.json answers what the document says (issue #42): each is driven for
 * real through a running server, at least once successfully and once refused, and every answer's
 * status, media type and body are checked against the operation's documented response with Ajv
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1). An undocumented status, a body the schema
 * does not allow (an extra field included: the response schemas are closed), an error field not
 * listed for its code, or an operation nobody drives here fails the test.
 */

interface Operation {
  operationId: string;
  security: unknown[];
  'x-required-permission'?: string;
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

let t: TestServer;
let rx: Receiver;
let doc: { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };
const ops = new Map<string, { method: string; path: string; op: Operation }>();
/** `operationId status` of every answer checked. */
const seen = new Set<string>();
const ajv = new Ajv2020({ strict: false, allErrors: true });
// A CommonJS module: its function is also its `default` property, which is what the types describe.
ajvFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

beforeAll(async () => {
  // Three messages per recipient and window, so a fourth answers 429 RATE_LIMITED.
  t = await startWebhookServer({ env: { RECIPIENT_RATE_LIMIT: '3' } });
  rx = await startReceiver();
  doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body;
  for (const [path, methods] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(methods)) ops.set(op.operationId, { method, path, op });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

/** Calls an operation by its operationId and checks the answer against the document; answers status and body. */
async function call(operationId: string, o: CallOptions = {}): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const entry = ops.get(operationId);
  if (!entry) throw new Error(`no operation ${operationId} in /openapi.json`);
  const path = entry.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(o.params?.[name] ?? 'x'));
  const qs = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const key = o.key === undefined ? t.account.apiKey : o.key;
  if (key) headers['X-API-Key'] = key;
  const payload = o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  if (payload !== undefined) headers['Content-Type'] ??= 'application/json';
  const res = await fetch(`${t.url}${path}${qs}`, { method: entry.method.toUpperCase(), headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  const where = `${entry.method.toUpperCase()} ${path} → ${res.status}: ${text.slice(0, 600)}`;
  const documented = entry.op.responses[String(res.status)] ?? entry.op.responses.default;
  expect(documented, `undocumented status: ${where}`).toBeDefined();
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  let body: any = text;
  if (!documented!.content) {
    expect(text, `a body where the document has none: ${where}`).toBe('');
  } else {
    const media = documented!.content[type];
    expect(media, `media type ${type} not documented (${Object.keys(documented!.content).join(', ')}): ${where}`).toBeDefined();
    if (type === 'application/json') {
      body = JSON.parse(text);
      const id = `${operationId} ${res.status}`;
      let validate = compiled.get(id);
      if (!validate) {
        validate = ajv.compile({ ...media!.schema, components: doc.components });
        compiled.set(id, validate);
      }
      expect(validate(body) ? [] : validate.errors, `body does not match the document: ${where}`).toEqual([]);
      if (res.status >= 400 && body?.error) {
        const allowed = new Set<string>(['code', 'message', 'details', ...((ERROR_FIELDS as Partial<Record<ErrorCode, readonly string[]>>)[body.error.code as ErrorCode] ?? [])]);
        expect(Object.keys(body.error).filter((k) => !allowed.has(k)), `error fields not listed for ${body.error.code}: ${where}`).toEqual([]);
      }
    } else {
      expect(text.length, `an empty ${type} body: ${where}`).toBeGreaterThan(0);
    }
  }
  seen.add(`${operationId} ${res.status}`);
  return { status: res.status, body, text, headers: res.headers };
}

/** An error answer of the code, carrying at least these extra fields. */
async function refusal(code: ErrorCode, fields: string[], answer: Promise<{ body: any }>): Promise<void> {
  const { body } = await answer;
  expect(body.error.code).toBe(code);
  for (const f of fields) expect(body.error[f], `${code} carries ${f}`).toBeDefined();
}

/** call() that also insists on the status. */
async function expectCall(operationId: string, status: number, o: CallOptions = {}) {
  const r = await call(operationId, o);
  expect(r.status, `${operationId}: ${r.text.slice(0, 400)}`).toBe(status);
  return r;
}

const UNKNOWN = {
  ct: 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  fld: 'fld_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  grp: 'grp_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  tpl: 'tpl_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  tg: 'tg_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  job: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  prv: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  whk: 'whk_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  dlv: 'dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  frm: 'frm_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  msg: 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  crv: 'crv_01ARZ3NDEKTSV4RRFFQ69G5FAV',
};
let phoneSeq = 0;
const phone = () => `+49151${71_000_000 + ++phoneSeq}`;
const text = (s = 'Hello from the contract test') => ({ messageType: 'text', content: { text: s } });

describe('every answer of every operation matches /openapi.json', () => {
  it('status, health and guides', async () => {
    await expectCall('getHealth', 200, { key: null });
    await expectCall('getServiceStatus', 200);
    await expectCall('listTimezones', 200);
    await expectCall('getButtonGuidelines', 200);
    await expectCall('getCreditBalance', 200);
    await expectCall('listCreditLedger', 200, { query: { limit: 5 } });
    await expectCall('listCreditLedger', 400, { query: { limit: 0 } });
    await expectCall('listSenders', 200, { query: { type: 'SMS' } });
    await expectCall('listSenders', 400, { query: { type: 'FAX' } });
  });

  it('the sandbox', async () => {
    await expectCall('validateSandboxPayload', 200, { key: null, body: text() });
    await expectCall('validateSandboxPayload', 400, { key: null, body: { content: { text: 'x' } } });
    await refusal('PAYLOAD_TOO_LARGE', ['maxBytes', 'actualBytes'], expectCall('validateSandboxPayload', 413, { key: null, body: { messageType: 'text', content: { text: 'x', pad: 'y'.repeat(300_000) } } }));
    const preview = await expectCall('createSandboxPreview', 200, { key: null, body: text() });
    await expectCall('createSandboxPreview', 400, { key: null, body: { messageType: 'text', content: { text: '' } } });
    const slug = new URL(preview.body.preview.share_url).pathname.split('/').pop()!;
    await expectCall('getSandboxPreview', 200, { key: null, params: { slug } });
    await expectCall('getSandboxPreview', 404, { key: null, params: { slug: 'nope' } });
    const samples = await expectCall('listSandboxSamples', 200, { key: null });
    for (const s of samples.body.samples as Array<{ url: string }>) {
      await expectCall('getSandboxSample', 200, { key: null, params: { file: new URL(s.url).pathname.split('/').pop()! } });
    }
    await expectCall('getSandboxSample', 404, { key: null, params: { file: 'nope.exe' } });
  });

  it('validation', async () => {
    await expectCall('validateMessage', 200, { body: text() });
    await expectCall('validateMessage', 400, { body: { content: {} } });
    await expectCall('validateScheduleTime', 200, { body: { scheduleAt: '2031-03-01T10:00:00', timeZone: 'Europe/Berlin' } });
    await expectCall('validateScheduleTime', 200, { body: { scheduleAt: '2031-03-30T02:30:00', timeZone: 'Europe/Berlin' } }); // valid: false, with the gap
    await expectCall('validateScheduleTime', 400, { body: { timeZone: 'Europe/Berlin' } });
  });

  it('custom fields, contacts, consent', async () => {
    const field = await expectCall('createContactField', 201, { body: { name: 'Favourite dish', tag: `dish_${Date.now()}` } });
    const fieldId: string = field.body.data.id;
    await refusal('CONFLICT', ['existingFieldId'], expectCall('createContactField', 409, { body: { name: 'Again', tag: field.body.data.tag } }));
    await expectCall('listContactFields', 200);
    await expectCall('getContactField', 200, { params: { fieldId } });
    await expectCall('getContactField', 404, { params: { fieldId: UNKNOWN.fld } });
    await expectCall('updateContactField', 200, { params: { fieldId }, body: { name: 'Favourite meal' } });

    const p = phone();
    const created = await expectCall('createContact', 201, { body: { phone: p, firstName: 'Ada', email: 'ada@example.com' } });
    const id: string = created.body.data.id;
    await refusal('CONFLICT', ['existingContactId'], expectCall('createContact', 409, { body: { phone: p } }));
    await expectCall('createContact', 400, { body: { phone: '+12' } });
    await refusal('COUNTRY_NOT_SUPPORTED', ['country'], expectCall('createContact', 400, { body: { phone: '+861012345678' } }));
    await expectCall('listContacts', 200, { query: { limit: 5, include: 'customFields' } });
    await expectCall('listContacts', 400, { query: { cursor: '!!' } });
    await expectCall('countContacts', 200);
    await expectCall('getContact', 200, { params: { id }, query: { include: 'customFields' } });
    await expectCall('getContact', 404, { params: { id: UNKNOWN.ct } });
    await expectCall('updateContact', 200, { params: { id }, body: { lastName: 'Lovelace' } });
    await expectCall('updateContact', 404, { params: { id: UNKNOWN.ct }, body: { lastName: 'x' } });
    await expectCall('setContactFieldValues', 200, { params: { id }, body: { customFields: [{ fieldId, value: 'Pasta' }] } });
    await expectCall('setContactFieldValue', 200, { params: { id, fieldId }, body: { value: 'Soup' } });
    await expectCall('getContactFieldValues', 200, { params: { id } });
    await expectCall('getContactFieldValues', 404, { params: { id: UNKNOWN.ct } });
    await refusal('FIELD_IN_USE', ['usageCount'], expectCall('deleteContactField', 400, { params: { fieldId } }));
    await expectCall('deleteContactFieldValue', 200, { params: { id, fieldId } });
    await expectCall('deleteContactFieldValue', 404, { params: { id: UNKNOWN.ct, fieldId } });
    await expectCall('deleteContactField', 200, { params: { fieldId }, query: { force: true } });
    await expectCall('getContactConsent', 200, { params: { id } });
    await expectCall('getContactConsent', 404, { params: { id: UNKNOWN.ct } });
    await expectCall('exportConsentRecord', 200);

    // Consent reviews (issue #42): a reply that may be a request to stop opens one.
    const reviewed = phone();
    await t.ctx.services.inbound.receive({ kind: 'inbound', senderId: t.account.senders.rcs, from: reviewed, channel: 'RCS', text: 'Stop? I want these', carrierMessageId: `review-${Date.now()}`, at: Date.now() } as never);
    const reviews = await expectCall('listConsentReviews', 200);
    const reviewId: string = reviews.body.data.find((r: { phone: string }) => r.phone === reviewed).id;
    await expectCall('listConsentReviews', 400, { query: { status: 'maybe' } });
    await expectCall('getConsentReview', 200, { params: { id: reviewId } });
    await expectCall('getConsentReview', 404, { params: { id: UNKNOWN.crv } });
    await expectCall('releaseConsentReview', 200, { params: { id: reviewId }, body: { note: 'asked on the phone' } });
    await expectCall('releaseConsentReview', 409, { params: { id: reviewId }, body: {} });
    await t.ctx.services.inbound.receive({ kind: 'inbound', senderId: t.account.senders.rcs, from: reviewed, channel: 'RCS', text: 'wrong number', carrierMessageId: `review2-${Date.now()}`, at: Date.now() } as never);
    const second: string = (await expectCall('listConsentReviews', 200)).body.data.find((r: { phone: string }) => r.phone === reviewed).id;
    await expectCall('confirmConsentReview', 200, { params: { id: second }, body: {} });
    await expectCall('confirmConsentReview', 404, { params: { id: UNKNOWN.crv }, body: {} });

    await expectCall('upsertContacts', 200, { body: { contacts: [{ phone: phone() }, { phone: '+861012345679' }], upsert: true } });
    await expectCall('upsertContacts', 400, { body: { contacts: [] } });
    await expectCall('disableContacts', 200, { body: { contactIds: [id], reason: 'asked' } });
    await expectCall('disableContacts', 400, { body: { contactIds: [UNKNOWN.ct] } });
    await expectCall('enableContacts', 200, { body: { contactIds: [id] } });
    await expectCall('enableContacts', 400, { body: { contactIds: [UNKNOWN.ct] } });
    await expectCall('deleteContact', 200, { params: { id } });
    await expectCall('deleteContact', 404, { params: { id: UNKNOWN.ct } });
  });

  it('groups', async () => {
    const contact = (await expectCall('createContact', 201, { body: { phone: phone() } })).body.data.id as string;
    const g = await expectCall('createGroup', 201, { body: { name: `Group ${Date.now()}`, description: 'd' } });
    const id: string = g.body.data.id;
    await expectCall('createGroup', 400, { body: { name: '' } });
    await expectCall('listGroups', 200);
    await expectCall('getGroup', 200, { params: { id }, query: { includeContacts: true, limit: 10, offset: 0 } });
    await expectCall('getGroup', 404, { params: { id: UNKNOWN.grp } });
    await expectCall('updateGroup', 200, { params: { id }, body: { description: 'new' } });
    await expectCall('updateGroup', 404, { params: { id: UNKNOWN.grp }, body: { description: 'new' } });
    await expectCall('addGroupContacts', 200, { params: { id }, body: { contactIds: [contact] } });
    await expectCall('addGroupContacts', 404, { params: { id: UNKNOWN.grp }, body: { contactIds: [contact] } });
    await expectCall('removeGroupContacts', 200, { params: { id }, body: { contactIds: [contact] } });
    await expectCall('removeGroupContacts', 404, { params: { id: UNKNOWN.grp }, body: { contactIds: [contact] } });
    await expectCall('deleteGroup', 200, { params: { id } });
    await expectCall('deleteGroup', 404, { params: { id: UNKNOWN.grp } });
  });

  it('templates and template groups', async () => {
    const name = `Folder ${Date.now()}`;
    const tg = await expectCall('createTemplateGroup', 201, { body: { name } });
    const tgId: string = tg.body.data.templateGroupId;
    await refusal('CONFLICT', ['existingTemplateGroupId'], expectCall('createTemplateGroup', 409, { body: { name } }));
    await expectCall('listTemplateGroups', 200);
    await expectCall('getTemplateGroup', 200, { params: { id: tgId } });
    await expectCall('getTemplateGroup', 404, { params: { id: UNKNOWN.tg } });
    await expectCall('updateTemplateGroup', 200, { params: { id: tgId }, body: { name: `${name} renamed` } });
    await expectCall('updateTemplateGroup', 404, { params: { id: UNKNOWN.tg }, body: { name: 'x' } });

    const sms = await expectCall('createTemplate', 201, { body: { name: 'SMS template', type: 'SMS', content: 'Hi {{contact_first_name}}', templateGroupId: tgId } });
    await expectCall('createTemplate', 201, { body: { name: 'RCS template', type: 'RCS', rcsMessageType: 'text', content: { text: 'Hi' } } });
    await expectCall('createTemplate', 400, { body: { name: 'x', type: 'RCS', content: { text: 'Hi' } } });
    const id: string = sms.body.data.id;
    await expectCall('listTemplates', 200, { query: { templateGroupId: tgId } });
    await expectCall('listTemplates', 400, { query: { page: 0 } });
    await expectCall('getTemplate', 200, { params: { id } });
    await expectCall('getTemplate', 404, { params: { id: UNKNOWN.tpl } });
    await expectCall('updateTemplate', 200, { params: { id }, body: { content: 'Hello {{contact_first_name}}' } });
    await expectCall('updateTemplate', 404, { params: { id: UNKNOWN.tpl }, body: { content: 'x' } });
    await expectCall('assignTemplatesToGroup', 200, { body: { templateIds: [id], templateGroupId: null } });
    await expectCall('assignTemplatesToGroup', 404, { body: { templateIds: [id], templateGroupId: UNKNOWN.tg } });
    await expectCall('deleteTemplate', 200, { params: { id } });
    await expectCall('deleteTemplate', 404, { params: { id: UNKNOWN.tpl } });
    await expectCall('deleteTemplateGroup', 200, { params: { id: tgId } });
    await expectCall('deleteTemplateGroup', 404, { params: { id: UNKNOWN.tg } });
  });

  it('sends, jobs, the log, stats and conversations', async () => {
    const rcs = t.account.senders.rcs;
    const sms = t.account.senders.sms;
    const p = phone();
    const sent = await expectCall('sendMessage', 200, { body: { phoneNumber: p, ...text(), sendernameId: rcs } });
    await expectCall('sendMessage', 200, { body: { phoneNumber: phone(), ...text(), sendernameId: rcs, scheduleAt: '2031-03-01T10:00:00', timeZone: 'Europe/Berlin' } });
    await expectCall('sendMessage', 400, { body: { phoneNumber: p, messageType: 'text', content: { text: '' }, sendernameId: rcs } });
    await refusal('INVALID_SCHEDULE_TIME', ['gap'], expectCall('sendMessage', 400, { body: { phoneNumber: phone(), ...text(), sendernameId: rcs, scheduleAt: '2031-03-30T02:30:00', timeZone: 'Europe/Berlin' } }));
    const idem = { 'Idempotency-Key': `contract-${Date.now()}` };
    await expectCall('sendSms', 200, { body: { phoneNumber: phone(), message: 'Hi', sendernameId: sms }, headers: idem });
    await refusal('IDEMPOTENCY_MISMATCH', [], expectCall('sendSms', 422, { body: { phoneNumber: phone(), message: 'Other', sendernameId: sms }, headers: idem }));
    const scheduled = await expectCall('sendSms', 200, { body: { phoneNumber: phone(), message: 'Later', sendernameId: sms, scheduleAt: '2031-01-01T09:00:00' } });
    await expectCall('sendSms', 400, { body: { phoneNumber: phone(), message: '', sendernameId: sms } });
    const busy = phone();
    for (let i = 0; i < 3; i++) await expectCall('sendSms', 200, { body: { phoneNumber: busy, message: `Hi ${i}`, sendernameId: sms } });
    await refusal('RATE_LIMITED', ['retryAfterSeconds'], expectCall('sendSms', 429, { body: { phoneNumber: busy, message: 'One too many', sendernameId: sms } }));
    await refusal('RATE_LIMITED', ['retryAfterSeconds'], expectCall('sendMessage', 429, { body: { phoneNumber: busy, ...text(), sendernameId: rcs } }));
    await expectCall('sendBatch', 202, { body: { phoneNumbers: [phone(), phone()], ...text(), sendernameId: rcs } });
    const batch = await expectCall('sendBatch', 200, { body: { phoneNumbers: [phone()], ...text(), sendernameId: rcs, scheduleAt: '2031-03-01T10:00:00' } });
    await refusal('VALIDATION_ERROR', ['rejected'], expectCall('sendBatch', 400, { body: { phoneNumbers: ['+12', '+13'], ...text(), sendernameId: rcs } }));

    const jobId: string = batch.body.jobId;
    await expectCall('getBatchStatus', 200, { params: { jobId } });
    await expectCall('getBatchStatus', 404, { params: { jobId: UNKNOWN.job } });
    await expectCall('listJobs', 200, { query: { limit: 5 } });
    await expectCall('listJobs', 400, { query: { status: 'nope' } });
    await expectCall('getQueueStatus', 200);
    await expectCall('cancelBatch', 200, { params: { jobId } });
    await expectCall('cancelBatch', 404, { params: { jobId: UNKNOWN.job } });
    await expectCall('getMessageStats', 200, { query: { period: '7d' } });
    await expectCall('getMessageStats', 400, { query: { startDate: '2030-01-02T00:00:00Z', endDate: '2030-01-01T00:00:00Z' } });

    await expectCall('listMessageLog', 200, { query: { limit: 10 } });
    await expectCall('listMessageLog', 400, { query: { cursor: '!!' } });
    const messageId: string = sent.body.messageRecordId;
    await expectCall('getMessageContent', 200, { params: { id: messageId } });
    await expectCall('getMessageContent', 404, { params: { id: UNKNOWN.msg } });
    await expectCall('getMessageContent', 400, { params: { id: 'nope' } });
    await expectCall('cancelScheduledMessage', 200, { params: { id: scheduled.body.messageId } });
    await expectCall('cancelScheduledMessage', 404, { params: { id: messageId } });

    await expectCall('listConversations', 200);
    await expectCall('listConversations', 400, { query: { status: 'OPEN' } });
    await expectCall('getConversationStatus', 200, { params: { phoneNumber: p } });
    await expectCall('getConversationStatus', 400, { params: { phoneNumber: 'abc' } });
    await expectCall('getConversationRateLimit', 200, { params: { phoneNumber: p } });
    await expectCall('getConversationRateLimit', 400, { params: { phoneNumber: 'abc' } });
    await expectCall('previewConversationBilling', 200, { body: { phoneNumbers: [p] } });
    await expectCall('previewConversationBilling', 400, { body: {} });
    await expectCall('listInteractions', 200);
    await expectCall('listInteractions', 400, { query: { type: 'nope' } });
  });

  it('an account without credits refuses with what is required and available', async () => {
    const { ctx } = t;
    const account = await ctx.services.accounts.create({ name: 'Broke Co', timezone: 'Europe/Berlin', credits: 0, companyProfile: { company_name: 'Broke Co' } });
    const sender = await ctx.services.senders.create(account.id, { name: 'BROKE', type: 'SMS', status: 'APPROVED', isDefault: true });
    const key = (await ctx.services.apiKeys.create(account.id, 'broke', ALL_PERMISSIONS)).key;
    await refusal('INSUFFICIENT_CREDITS', ['creditsRequired', 'creditsAvailable'], expectCall('sendSms', 400, { key, body: { phoneNumber: phone(), message: 'Hi', sendernameId: sender.id } }));
  });

  it('budgets refuse with their fields', async () => {
    const { key, info } = await t.ctx.services.apiKeys.create(t.account.accountId, 'budgeted', ALL_PERMISSIONS);
    await t.ctx.services.budgets.setLimits(t.account.accountId, { id: info.id, kind: 'key' }, { maxRecipients: 1, dailyCredits: 0.001 });
    await refusal('BUDGET_EXCEEDED', ['limit', 'maxRecipients', 'recipients', 'credential', 'nextStep'], expectCall('sendBatch', 403, { key, body: { phoneNumbers: [phone(), phone()], ...text(), sendernameId: t.account.senders.rcs } }));
    await refusal('BUDGET_EXCEEDED', ['limit', 'dailyCredits', 'creditsUsedToday', 'creditsLeftToday', 'creditsRequired', 'resetsAt', 'nextStep'], expectCall('sendMessage', 403, { key, body: { phoneNumber: phone(), ...text(), sendernameId: t.account.senders.rcs } }));
  });

  it('previews, approvals and their refusals', async () => {
    const rcs = t.account.senders.rcs;
    const bound = (await t.ctx.services.apiKeys.create(t.account.accountId, 'bound', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
    await refusal('APPROVAL_REQUIRED', ['previewRoutes'], expectCall('sendMessage', 403, { key: bound, body: { phoneNumber: phone(), ...text(), sendernameId: rcs } }));
    const one = await expectCall('createPreviewSend', 201, { body: { phoneNumber: phone(), ...text(), sendernameId: rcs } });
    await expectCall('createPreviewSend', 400, { body: { phoneNumber: phone(), messageType: 'text', content: { text: '' }, sendernameId: rcs } });
    const batch = await expectCall('createPreviewSendBatch', 201, { body: { phoneNumbers: [phone(), phone()], ...text(), sendernameId: rcs } });
    await expectCall('createPreviewSendBatch', 400, { body: { phoneNumbers: [], ...text(), sendernameId: rcs } });
    const sms = await expectCall('createPreviewSendSms', 201, { body: { phoneNumber: phone(), message: 'Hi {{contact_first_name}}', sendernameId: t.account.senders.sms } });
    await expectCall('createPreviewSendSms', 400, { body: { phoneNumber: phone(), message: '', sendernameId: t.account.senders.sms } });
    // A preview merging a contact's name, approved, then the name changes: the send is refused as stale.
    const stalePhone = phone();
    const staleContact = await expectCall('createContact', 201, { body: { phone: stalePhone, firstName: 'Grace' } });
    const stale = await expectCall('createPreviewSendSms', 201, { body: { phoneNumber: stalePhone, message: 'Hi {{contact_first_name}}', sendernameId: t.account.senders.sms } });
    const id: string = one.body.data.preview_id;
    expect(id).toMatch(/^prv_/);
    await expectCall('listPreviews', 200);
    await expectCall('listPreviews', 400, { query: { limit: 0 } });
    await expectCall('getPreview', 200, { params: { id } });
    await expectCall('getPreview', 404, { params: { id: UNKNOWN.prv } });
    await expectCall('getPreview', 400, { params: { id: 'nope' } });
    await expectCall('listPreviewMergeValues', 200, { params: { id } });
    await expectCall('listPreviewMergeValues', 404, { params: { id: UNKNOWN.prv } });
    await expectCall('listPreviewRecipients', 200, { params: { id: batch.body.data.preview_id } });
    await expectCall('listPreviewRecipients', 404, { params: { id: UNKNOWN.prv } });
    await refusal('PREVIEW_NOT_APPROVED', ['share_url', 'nextStep'], expectCall('sendPreview', 400, { params: { id } }));
    await refusal('PREVIEW_MISMATCH', ['nextStep'], expectCall('sendPreview', 400, { params: { id }, body: { phoneNumber: phone(), message: 'x', sendernameId: t.account.senders.sms } }));
    await expectCall('sendPreview', 404, { params: { id: UNKNOWN.prv } });
    const shareOf = (r: { body: any }): string => r.body.data.share_url;
    // One login (a TOTP code is accepted once), then a decision on each share page.
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, '/console');
    for (const [r, decision] of [[one, 'approve'], [batch, 'approve'], [sms, 'reject'], [stale, 'approve']] as const) {
      const page = await web.get(new URL(shareOf(r)).pathname);
      const res = await web.post(`${new URL(shareOf(r)).pathname}/${decision}`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
      expect(res.status).toBe(303);
    }
    await expectCall('sendPreview', 200, { params: { id } });
    const batchId: string = batch.body.data.preview_id;
    await expectCall('sendPreview', 202, { params: { id: batchId } });
    const smsId: string = sms.body.data.preview_id;
    await expectCall('updateContact', 200, { params: { id: staleContact.body.data.id }, body: { firstName: 'Ada' } });
    const staleId: string = stale.body.data.preview_id;
    await refusal('PREVIEW_STALE', ['nextStep', 'staleRecipients', 'previewRecipients', 'changedFields'], expectCall('sendPreview', 409, { params: { id: staleId } }));
    await refusal('PREVIEW_REJECTED', [], expectCall('sendPreview', 400, { params: { id: smsId } }));
    await expectCall('listApprovals', 200);
    await expectCall('listApprovals', 400, { query: { cursor: '!!' } });
    const csv = await expectCall('exportApprovals', 200);
    expect(csv.text.split('\n').length).toBeGreaterThan(2);
  });

  it('webhooks', async () => {
    const created = await expectCall('createWebhook', 201, { body: { url: `${rx.url}/contract`, events: ['delivery_status'] } });
    const id: string = created.body.data.id;
    await refusal('CONFLICT', ['existingWebhookId'], expectCall('createWebhook', 409, { body: { url: `${rx.url}/contract`, events: ['delivery_status'] } }));
    await expectCall('createWebhook', 400, { body: { url: 'ftp://example.com/x', events: ['delivery_status'] } });
    await expectCall('listWebhooks', 200);
    await expectCall('getWebhook', 200, { params: { id } });
    await expectCall('getWebhook', 404, { params: { id: UNKNOWN.whk } });
    await expectCall('updateWebhook', 200, { params: { id }, body: { description: 'CRM' } });
    await expectCall('updateWebhook', 404, { params: { id: UNKNOWN.whk }, body: { description: 'CRM' } });
    await expectCall('getWebhookSecret', 200, { params: { id } });
    await expectCall('getWebhookSecret', 404, { params: { id: UNKNOWN.whk } });
    await expectCall('rotateWebhookSecret', 200, { params: { id }, body: {} });
    await expectCall('rotateWebhookSecret', 404, { params: { id: UNKNOWN.whk }, body: {} });
    const test = await expectCall('testWebhook', 200, { params: { id } });
    await expectCall('testWebhook', 404, { params: { id: UNKNOWN.whk } });
    await expectCall('listWebhookDeliveries', 200, { params: { id } });
    await expectCall('listWebhookDeliveries', 404, { params: { id: UNKNOWN.whk } });
    await expectCall('redeliverWebhookDelivery', 200, { params: { id, deliveryId: test.body.data.deliveryId } });
    await expectCall('redeliverWebhookDelivery', 404, { params: { id, deliveryId: UNKNOWN.dlv } });
    await expectCall('deleteWebhook', 200, { params: { id } });
    await expectCall('deleteWebhook', 404, { params: { id: UNKNOWN.whk } });
  });

  it('forms', async () => {
    const f = await expectCall('createForm', 201, { body: { name: 'Contract form', confirmation: { sendernameId: t.account.senders.sms } } });
    const id: string = f.body.data.id;
    await expectCall('createForm', 400, { body: { name: 'Bad' } });
    await expectCall('createForm', 404, { body: { name: 'Bad', doubleOptIn: false, groups: [UNKNOWN.grp] } });
    await expectCall('createForm', 409, { body: { name: 'Again', slug: f.body.data.slug, doubleOptIn: false } });
    await expectCall('listForms', 200);
    await expectCall('getForm', 200, { params: { id } });
    await expectCall('getForm', 404, { params: { id: UNKNOWN.frm } });
    await expectCall('updateForm', 200, { params: { id }, body: { description: 'News' } });
    await expectCall('updateForm', 404, { params: { id: UNKNOWN.frm }, body: { description: 'News' } });
    await expectCall('listFormSubmissions', 200, { params: { id } });
    await expectCall('listFormSubmissions', 404, { params: { id: UNKNOWN.frm } });
    await expectCall('deleteForm', 200, { params: { id } });
    await expectCall('deleteForm', 404, { params: { id: UNKNOWN.frm } });
  });

  it('refuses every secured operation without credentials (401), and with a key lacking its permission (403)', async () => {
    // A key needs one permission: each operation is refused to a key holding only another one.
    const only = { contacts: await t.createKey(t.account.accountId, ['contacts:read']), groups: await t.createKey(t.account.accountId, ['groups:read']) };
    for (const [operationId, { op }] of ops) {
      if (op.security.length === 0) continue;
      await expectCall(operationId, 401, { key: null });
      await expectCall(operationId, 401, { key: 'rk_live_not_a_key' });
      const needed = op['x-required-permission'];
      if (needed) await refusal('FORBIDDEN', ['requiredPermission'], expectCall(operationId, 403, { key: needed === 'contacts:read' ? only.groups : only.contacts }));
    }
  });

  it('answers a broken, wrongly typed, oversized or non-UTF-8 body of every operation that takes one with a documented 400, 413 or 415', async () => {
    for (const [operationId, { op }] of ops) {
      if (!op.requestBody) continue;
      const key = op.security.length === 0 ? null : t.account.apiKey;
      await expectCall(operationId, 400, { key, rawBody: '{"unclosed": ' });
      await expectCall(operationId, 400, { key, rawBody: '42' });
      await refusal('PAYLOAD_TOO_LARGE', [], expectCall(operationId, 413, { key, rawBody: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }) }));
      await refusal('UNSUPPORTED_MEDIA_TYPE', [], expectCall(operationId, 415, { key, rawBody: '{}', headers: { 'Content-Type': 'application/json; charset=latin1' } }));
    }
  });

  it('the sandbox rate limit (SANDBOX_RATE_LIMITED with limit, window, retryAfterSeconds)', async () => {
    let last = await call('listSandboxSamples', { key: null });
    for (let i = 0; i < 30 && last.status === 200; i++) last = await call('listSandboxSamples', { key: null });
    expect(last.status).toBe(429);
    await refusal('SANDBOX_RATE_LIMITED', ['limit', 'window', 'retryAfterSeconds'], Promise.resolve(last));
  });

  it('drove every operation of the document to a success and to a refusal', () => {
    // Operations whose only documented refusals cannot be caused from outside without breaking the server
    // (a database that is down, a full sandbox rate limit) are driven to success only.
    const successOnly = new Set(['getHealth']);
    const missing: string[] = [];
    for (const [operationId] of ops) {
      const statuses = [...seen].filter((s) => s.startsWith(`${operationId} `)).map((s) => Number(s.split(' ')[1]));
      if (!statuses.some((s) => s < 300)) missing.push(`${operationId}: no success`);
      if (!successOnly.has(operationId) && !statuses.some((s) => s >= 400)) missing.push(`${operationId}: no refusal`);
    }
    expect(missing).toEqual([]);
  });
});
