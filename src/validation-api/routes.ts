import { ButtonGuidelinesSchema } from '../content/limits-schemas.js';
import type { ValidationService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { documentedOnly, parseSandboxInput } from '../sandbox/schemas.js';
import {
  TimezonesResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
  ValidateScheduleTimeRequestSchema,
  ValidateScheduleTimeResponseSchema,
} from './schemas.js';

const TAGS = ['Validation'];

/**
 * POST /validate, POST /validate-schedule-time, GET /timezones and GET /button-guidelines of
 * {base_url} (§4.1). Any valid key may call them; they read only the account's zone and its
 * custom-field tags (known merge placeholders).
 */
export function validationRoutes({ validation }: { validation: ValidationService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/validate',
      operationId: 'validateMessage',
      summary: 'Validate message content (and its SMS fallback) without sending',
      description:
        '200 with {valid, errors, warnings, sms?} for every body with messageType and content; 400 only when those are missing, messageType is unknown, content is not an object, or an unknown top-level field is present.',
      tags: TAGS,
      auth: 'authenticated',
      body: documentedOnly(ValidateRequestSchema),
      responses: { 200: { description: 'Validation result', schema: ValidateResponseSchema }, 400: { description: 'Malformed envelope' } },
      handler: async ({ req, principal }) => {
        const input = parseSandboxInput(req.body, { maxContentBytes: null });
        return validation.validate(principal.accountId, input.messageType, input.content, input.smsFallback);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/validate-schedule-time',
      operationId: 'validateScheduleTime',
      summary: 'Resolve scheduleAt + timeZone to an instant, as /send would',
      description:
        'A well-formed request always gets 200: valid:true with the UTC instant, local time and zone, or valid:false with errors (invalid_datetime, in_past, dst_gap with the nearest valid times, invalid_timezone). 400 only when scheduleAt is missing or not a string.',
      tags: TAGS,
      auth: 'authenticated',
      body: ValidateScheduleTimeRequestSchema,
      responses: { 200: { description: 'Resolution', schema: ValidateScheduleTimeResponseSchema }, 400: { description: 'Malformed body' } },
      handler: ({ body, principal }) => validation.scheduleTime(principal.accountId, body.scheduleAt, body.timeZone),
    }),
    defineRoute({
      method: 'get',
      path: '/timezones',
      operationId: 'listTimezones',
      summary: "IANA time zones with their current offset and local time, plus the account's zone",
      tags: TAGS,
      auth: 'authenticated',
      responses: { 200: { description: 'Zones', schema: TimezonesResponseSchema } },
      handler: ({ principal }) => validation.timezones(principal.accountId),
    }),
    defineRoute({
      method: 'get',
      path: '/button-guidelines',
      operationId: 'getButtonGuidelines',
      summary: 'Limits and placement rules for card buttons and chips (from the validator’s constants)',
      tags: TAGS,
      auth: 'authenticated',
      responses: { 200: { description: 'Guidelines', schema: ButtonGuidelinesSchema } },
      handler: () => validation.buttonGuidelines(),
    }),
  ];
}
