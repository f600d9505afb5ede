import { z } from 'zod';
import * as L from '../src/content/limits.js';
import * as SL from '../src/messaging/limits.js';
import * as ContactLimits from '../src/contacts/limits.js';
import * as GroupLimits from '../src/groups/limits.js';
import { BalanceSchema, LedgerPageSchema, LedgerQuerySchema } from '../src/billing/schemas.js';
import { AppError } from '../src/platform/errors.js';
import { SMS_MAX_LENGTH } from '../src/sms/index.js';
import { TimezonesResponseSchema } from '../src/validation-api/schemas.js';
import type { BillingService } from '../src/billing/service.js';
import type { Principal } from '../src/platform/permissions.js';
import { READ, defineTool } from './types.js';


export const rcsHealth = defineTool({
  name: 'rcs_health',
  title: 'Service health',
  description: 'Whether the service and its database are up, which carriers are configured, and the server time. Use when sends fail unexpectedly.',
  toolset: 'status',
  permissions: [],
  input: z.strictObject({}),
  output: z.object({ status: z.enum(['healthy', 'down']), database: z.enum(['up', 'down']), carriers: z.object({ rcs: z.string(), sms: z.string() }), timestamp: z.string() }),
  annotations: READ,
  uses: ['health'],
  run: async ({ health }) => {
    const up = await health.databaseUp();
    return { status: up ? ('healthy' as const) : ('down' as const), database: up ? ('up' as const) : ('down' as const), carriers: health.carrierNames(), timestamp: new Date(health.now()).toISOString() };
  },
});

export const rcsLimits = defineTool({
  name: 'rcs_limits',
  title: 'Limits',
  description: 'Every limit the server enforces (content, media, SMS, batch, pages), as the validator uses them; with messages:read also the credit balance and history (`ledger` pages and filters it).',
  toolset: 'status',
  permissions: [],
  input: z.strictObject({ ledger: LedgerQuerySchema.optional().describe('Credit history query (needs messages:read); default the 10 newest entries.') }),
  output: z.object({
    validationLimits: z.record(z.string(), z.unknown()),
    textBasicMaxLength: z.number(),
    captionMaxLength: z.number(),
    urlMaxLength: z.number(),
    sms: z.object({ maxLength: z.number(), singleGsm7: z.number(), singleUnicode: z.number(), multipartGsm7: z.number(), multipartUnicode: z.number() }),
    batch: z.object({ maxRecipients: z.number(), batchSize: z.object({ min: z.number(), max: z.number(), default: z.number() }), delayMs: z.object({ min: z.number(), max: z.number(), default: z.number() }) }),
    campaignNameMaxLength: z.number(),
    messageLog: z.object({ maxRangeDays: z.number(), maxPageSize: z.number() }),
    contacts: z.object({ pageMax: z.number(), bulkMax: z.number(), groupMembershipMaxIds: z.number(), nameMaxLength: z.number() }),
    credits: z
      .object({ balance: BalanceSchema.shape.credits, asOf: z.string(), ledger: LedgerPageSchema.omit({ success: true }) })
      .optional()
      .describe('Balance and credit history; present when the credential has messages:read.'),
  }),
  annotations: READ,
  uses: ['validation', 'billing'],
  run: async ({ validation, billing, principal }, input) => ({
    ...(await creditsOf(billing, principal, input.ledger)),
    validationLimits: validation.limits() as unknown as Record<string, unknown>,
    textBasicMaxLength: L.TEXT_BASIC_MAX_LENGTH,
    captionMaxLength: L.CAPTION_MAX_LENGTH,
    urlMaxLength: L.URL_MAX_LENGTH,
    sms: { maxLength: SMS_MAX_LENGTH, singleGsm7: 160, singleUnicode: 70, multipartGsm7: 153, multipartUnicode: 67 },
    batch: {
      maxRecipients: SL.BATCH_MAX_RECIPIENTS,
      batchSize: { min: SL.BATCH_SIZE_MIN, max: SL.BATCH_SIZE_MAX, default: SL.BATCH_SIZE_DEFAULT },
      delayMs: { min: SL.BATCH_DELAY_MS_MIN, max: SL.BATCH_DELAY_MS_MAX, default: SL.BATCH_DELAY_MS_DEFAULT },
    },
    campaignNameMaxLength: SL.CAMPAIGN_NAME_MAX_LENGTH,
    messageLog: { maxRangeDays: SL.MESSAGE_LOG_MAX_RANGE_DAYS, maxPageSize: 200 },
    contacts: { pageMax: ContactLimits.CONTACT_LIST_LIMIT_MAX, bulkMax: ContactLimits.BULK_CONTACTS_MAX, groupMembershipMaxIds: GroupLimits.GROUP_MEMBERSHIP_MAX_IDS, nameMaxLength: ContactLimits.CONTACT_NAME_MAX_LENGTH },
  }),
});

/** The balance and a page of the ledger, for a credential that may read them; asking for the ledger without messages:read is refused. */
async function creditsOf(billing: BillingService, principal: Principal, ledger: z.output<typeof LedgerQuerySchema> | undefined) {
  if (!principal.permissions.has('messages:read')) {
    if (ledger !== undefined) throw new AppError('FORBIDDEN', 'Reading the credit history needs the messages:read permission');
    return {};
  }
  const balance = await billing.balance(principal.accountId);
  const { data, pagination } = await billing.ledger(principal.accountId, ledger ?? LedgerQuerySchema.parse({ limit: 10 }));
  return { credits: { balance: balance.credits, asOf: balance.asOf, ledger: { data, pagination } } };
}

export const rcsButtonGuidelines = defineTool({
  name: 'rcs_button_guidelines',
  title: 'Button and chip rules',
  description: 'Which action types may be card buttons, chips or both, the payload each needs, and their limits. Read before building interactive content.',
  toolset: 'status',
  permissions: [],
  input: z.strictObject({}),
  output: z.object({ limits: z.record(z.string(), z.number()), placement: z.record(z.string(), z.array(z.string())), actionTypes: z.array(z.record(z.string(), z.unknown())), rules: z.array(z.string()) }),
  annotations: READ,
  uses: ['validation'],
  run: async ({ validation }) => validation.buttonGuidelines() as unknown as { limits: Record<string, number>; placement: Record<string, string[]>; actionTypes: Record<string, unknown>[]; rules: string[] },
});

/** Zones per page of rcs_timezones: a page stays far below 16 KB of result (all ~420 zones are 85 KB). */
export const TIMEZONE_PAGE = 60;

export const rcsTimezones = defineTool({
  name: 'rcs_timezones',
  title: 'Time zones',
  description: `The account's time zone (the default for sends) and IANA zones with their current offset, ${TIMEZONE_PAGE} a page: search narrows them, offset pages on.`,
  toolset: 'status',
  permissions: [],
  input: z.strictObject({
    search: z.string().max(64).optional().describe('Case-insensitive part of a zone name, e.g. "berlin" or "america/".'),
    offset: z.number().int().min(0).max(10_000).optional().describe('Zones to skip: nextOffset of the previous page.'),
  }),
  output: TimezonesResponseSchema.extend({ nextOffset: z.number().int().nullable().describe('offset of the next page; null on the last one.') }),
  annotations: READ,
  uses: ['validation'],
  run: async ({ validation, principal }, input) => {
    const all = await validation.timezones(principal.accountId);
    const needle = input.search?.toLowerCase();
    const matching = needle ? all.timezones.filter((z) => z.timeZone.toLowerCase().includes(needle)) : all.timezones;
    const offset = input.offset ?? 0;
    const timezones = matching.slice(offset, offset + TIMEZONE_PAGE);
    const next = offset + TIMEZONE_PAGE;
    return { ...all, timezones, count: matching.length, nextOffset: next < matching.length ? next : null };
  },
});

export const statusTools = [rcsHealth, rcsLimits, rcsButtonGuidelines, rcsTimezones];
