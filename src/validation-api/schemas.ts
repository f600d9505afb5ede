import { z } from 'zod';
import { rcsMessageShape } from '../content/index.js';

const Issue = z.object({ path: z.string(), code: z.string(), message: z.string() });

export const ValidateRequestSchema = z
  .object(rcsMessageShape)
  .describe('messageType and content as for /send, optionally with its smsFallback. Send-only fields (phoneNumber, sendernameId, …) are accepted and ignored.');

export const ValidateResponseSchema = z.object({
  valid: z.boolean(),
  errors: z.array(Issue),
  warnings: z.array(Issue),
  sms: z
    .object({
      encoding: z.enum(['GSM-7', 'Unicode']),
      segments: z.number().int(),
      units: z.number().int(),
      unicodeCharacters: z.array(z.string()),
      perSegment: z.number().int().describe('Characters one segment holds at this length: 160 (GSM-7) or 70 (Unicode) while it fits one part, 153 or 67 once split.'),
      length: z.number().int().describe('Length in UTF-16 units, the measure the 1530-character limit applies to.'),
    })
    .optional()
    .describe('Present with an smsFallback: its cost as written (placeholders unresolved).'),
});

export const ValidateScheduleTimeRequestSchema = z.object({
  scheduleAt: z.string().describe('ISO 8601 date-time, with or without Z/offset; without one it is wall time in timeZone.'),
  timeZone: z.string().nullish().describe("IANA zone (e.g. Europe/Berlin); absent: the account's zone."),
});

const Instant = z.object({ utc: z.string(), localTime: z.string() });

export const ValidateScheduleTimeResponseSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(Issue).describe('scheduleAt: invalid_datetime, in_past, dst_gap; timeZone: invalid_timezone.'),
    warnings: z.array(Issue).describe('dst_ambiguous when the wall time occurs twice (the earlier instant is used).'),
    scheduleTime: z.string().optional().describe('The instant in UTC (ISO 8601, Z).'),
    localScheduleTime: z.string().optional().describe('The instant in the effective zone, with offset.'),
    utcOffset: z.string().optional().describe('Offset of the effective zone at that instant, +02:00.'),
    effectiveTimezone: z.string().optional(),
    timezoneSource: z.enum(['request', 'account']).optional(),
    offsetInInput: z.boolean().optional().describe('True when scheduleAt carried Z or an offset, which then fixed the instant.'),
    dst: z.object({ ambiguous: z.literal(true), chosen: z.literal('earlier'), alternatives: z.array(Instant) }).optional(),
    gap: z.object({ before: Instant, after: Instant }).optional().describe('For dst_gap: the last valid time before and the first after the gap.'),
    accountTimezone: z.string(),
  })
  .describe('200 for every well-formed request; valid:false with errors when the time cannot be used.');

const ZoneInfo = z.object({ timeZone: z.string(), offset: z.string(), currentTime: z.string() });

export const TimezonesResponseSchema = z.object({
  accountTimezone: ZoneInfo.describe("The account's configured zone, used when a request has no timeZone."),
  timezones: z.array(ZoneInfo),
  count: z.number().int(),
  timestamp: z.string(),
});
