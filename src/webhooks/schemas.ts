import { z } from 'zod';
import { cursorQueryFields } from '../platform/pagination.js';
import { OUTBOUND_URL_MAX_LENGTH } from '../platform/net/outbound.js';
import { WEBHOOK_EVENTS } from './events.js';

export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
/** Endpoints a person may configure per account (button and form URLs come on top, up to MAX_ENDPOINTS_TOTAL). */
export const MAX_USER_ENDPOINTS = 20;
export const MAX_ENDPOINTS_TOTAL = 200;
/** Default and longest overlap of a secret rotation, hours. */
export const ROTATION_OVERLAP_DEFAULT_HOURS = 24;
export const ROTATION_OVERLAP_MAX_HOURS = 7 * 24;

export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS);

const Url = z.string().trim().min(1).max(OUTBOUND_URL_MAX_LENGTH).describe('HTTPS URL that receives the events (plain http and private addresses only with DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS=true).');
const EventList = z
  .array(WebhookEventSchema)
  .max(WEBHOOK_EVENTS.length)
  .transform((list) => [...new Set(list)]);
const Events = EventList.refine((l) => l.length > 0, { message: 'Choose at least one event kind' }).describe(`Event kinds to receive: ${WEBHOOK_EVENTS.join(', ')}.`);
const Description = z.string().trim().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable().describe(`At most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters; null or empty clears it.`);

export const CreateWebhookSchema = z.strictObject({
  url: Url,
  events: Events,
  description: Description.optional(),
  enabled: z.boolean().default(true).describe('false: no events are queued for it until enabled again.'),
});
export type CreateWebhookInput = z.input<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = z
  .strictObject({
    url: Url.optional(),
    events: EventList.optional().describe(`Event kinds to receive: ${WEBHOOK_EVENTS.join(', ')}. At least one, except for the endpoint of a button's or form's own URL.`),
    description: Description.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give at least one of url, events, description, enabled' });
export type UpdateWebhookInput = z.input<typeof UpdateWebhookSchema>;

export const RotateSecretSchema = z.strictObject({
  overlapHours: z
    .number()
    .min(0)
    .max(ROTATION_OVERLAP_MAX_HOURS)
    .default(ROTATION_OVERLAP_DEFAULT_HOURS)
    .describe(`How long the old secret keeps signing beside the new one (two v1 values), 0 to ${ROTATION_OVERLAP_MAX_HOURS} hours; default ${ROTATION_OVERLAP_DEFAULT_HOURS}.`),
});

export const WebhookHealthSchema = z.object({
  status: z.enum(['healthy', 'failing']).describe('failing: 5 or more attempts in a row failed (the circuit is open), or a delivery gave up since the last success. Events keep being queued; they wait while the circuit is open.'),
  consecutiveFailures: z.number().int(),
  failingSince: z.string().nullable(),
  lastSuccessAt: z.string().nullable(),
  lastFailureAt: z.string().nullable(),
  lastError: z.string().nullable(),
  pendingDeliveries: z.number().int(),
  failedDeliveries: z.number().int().describe('Deliveries that gave up (kept in the log; redeliver them by hand).'),
  circuit: z
    .enum(['closed', 'open', 'half_open'])
    .describe('closed: deliveries flow. open: 5 attempts in a row failed; deliveries wait without attempts until nextProbeAt. half_open: one probe delivery is being tried; its success closes the circuit.'),
  nextProbeAt: z.string().nullable().describe('While the circuit is open: when the next probe goes out.'),
});

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()).describe('Event kinds it receives from the whole account; [] for a button\'s or form\'s own URL, which gets only that button\'s or form\'s events.'),
  enabled: z.boolean(),
  source: z.enum(['user', 'button', 'form']).describe('user: configured by REST or console; button/form: created for a button\'s or a form\'s webhookUrl.'),
  secretHint: z.string().describe('The last characters of the signing secret, to tell secrets apart.'),
  previousSecretExpiresAt: z.string().nullable().describe('During a rotation: until when the old secret still signs.'),
  health: WebhookHealthSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhookWithSecretSchema = WebhookSchema.extend({ secret: z.string().describe('The signing secret. Reveal it again with GET /webhooks/{id}/secret.') });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

export const WebhookSecretSchema = z.object({
  id: z.string(),
  secret: z.string(),
  previousSecret: z.string().nullable().describe('The secret before the last rotation while it still signs.'),
  previousSecretExpiresAt: z.string().nullable(),
});
export type WebhookSecret = z.infer<typeof WebhookSecretSchema>;

export const AttemptSchema = z.object({
  attempt: z.number().int(),
  at: z.string(),
  outcome: z.enum(['success', 'retry', 'failed', 'unknown']).describe('unknown: the attempt started and no outcome was recorded — in progress now, or the server stopped during the post (the event may have arrived; the next attempt has the next number).'),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  responseSnippet: z.string().nullable(),
  manual: z.boolean(),
});

export const DeliverySchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  giveUpAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastLatencyMs: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  log: z.array(AttemptSchema).describe('Every attempt, oldest first.'),
});
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveriesQuerySchema = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  event: z.string().max(64).optional(),
  ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }),
});
export type DeliveriesQuery = z.input<typeof DeliveriesQuerySchema>;

export const TestResultSchema = z.object({
  eventId: z.string(),
  deliveryId: z.string(),
  delivered: z.boolean(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type AttemptReport = z.infer<typeof TestResultSchema>;
