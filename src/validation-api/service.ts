import { DateTime } from 'luxon';
import type { z } from 'zod';
import type { AccountsService } from '../accounts/service.js';
import { buttonGuidelines, contentWarnings, isMessageType, smsTextWarnings, validateContent, validationLimits, type ValidationResult } from '../content/index.js';
import type { FieldsService } from '../fields/service.js';
import type { Clock } from '../platform/clock.js';
import { listTimezones, resolveScheduleTime } from '../schedule/index.js';
import type { TimezonesResponseSchema, ValidateScheduleTimeResponseSchema } from './schemas.js';

const NO_TAGS: ReadonlySet<string> = new Set();

interface Issue {
  path: string;
  code: string;
  message: string;
}

export function zoneInfo(timeZone: string, now: number): { timeZone: string; offset: string; currentTime: string } {
  const local = DateTime.fromMillis(now, { zone: timeZone });
  return { timeZone, offset: local.toFormat('ZZ'), currentTime: local.toISO() ?? new Date(now).toISOString() };
}

export interface ValidationDeps {
  /** The account, for its time zone (schedule checks, /timezones). */
  accounts: Pick<AccountsService, 'get'>;
  /** The account's custom field tags, known placeholders in content checks. */
  fields: Pick<FieldsService, 'tags'>;
  clock: Clock;
}

/**
 * The validation use-cases shared by REST (/validate, /validate-schedule-time, /timezones,
 * /button-guidelines) and the MCP tools (rcs_validate, rcs_validate_schedule_time, rcs_timezones,
 * rcs_button_guidelines, rcs_limits).
 */
export class ValidationService {
  constructor(private readonly d: ValidationDeps) {}

  /** Content (and fallback) against every rule; the account's custom-field tags are known placeholders. */
  async validate(accountId: string, messageType: unknown, content: unknown, smsFallback?: unknown): Promise<ValidationResult> {
    const fallback = smsFallback !== undefined ? { smsFallback } : {};
    // The tags only ever silence unknown_merge_field warnings, so they are read only when a
    // placeholder is not a built-in: most content (and the assistant's repeated rcs_validate
    // calls) then needs no database read at all, and the result is the same either way.
    // Only the warnings depend on the tags: the content is checked once either way.
    const first = validateContent(messageType, content, { knownMergeFields: NO_TAGS, ...fallback });
    if (!first.warnings.some((w) => w.code === 'unknown_merge_field')) return first;
    const knownMergeFields = await this.d.fields.tags(accountId);
    const warnings = contentWarnings({ messageType: isMessageType(messageType) ? messageType : null, content, smsFallback, knownMergeFields, ...(first.sms ? { sms: first.sms } : {}) });
    return { ...first, warnings };
  }

  /**
   * The warnings of content the door already validated, for the account (its custom-field tags are
   * known placeholders): the one source of content warnings for /validate, previews (REST, MCP) and
   * so the share page, which shows what the preview stored.
   */
  async warnings(accountId: string, messageType: unknown, content: unknown, smsFallback?: unknown): Promise<Issue[]> {
    const input = { messageType: isMessageType(messageType) ? messageType : null, content, smsFallback };
    const first = contentWarnings({ ...input, knownMergeFields: NO_TAGS });
    if (!first.some((w) => w.code === 'unknown_merge_field')) return first;
    return contentWarnings({ ...input, knownMergeFields: await this.d.fields.tags(accountId) });
  }

  /**
   * The warnings of a standalone SMS text for the account (unknown placeholders become empty when sent, §2.13
   * rule 2): the same placeholder rule as RCS content, for sms_preview and POST /previews/send-sms.
   */
  async smsWarnings(accountId: string, message: unknown): Promise<Issue[]> {
    const first = smsTextWarnings(message, NO_TAGS);
    if (!first.some((w) => w.code === 'unknown_merge_field')) return first;
    return smsTextWarnings(message, await this.d.fields.tags(accountId));
  }

  async scheduleTime(accountId: string, scheduleAt: string, timeZone: string | null | undefined): Promise<z.infer<typeof ValidateScheduleTimeResponseSchema>> {
    const account = await this.d.accounts.get(accountId);
    const now = this.d.clock.now();
    const r = resolveScheduleTime({ scheduleAt, timeZone, accountTimeZone: account.timezone, now });
    if (!r.ok) {
      const errors: Issue[] = [{ path: r.code === 'invalid_timezone' ? 'timeZone' : 'scheduleAt', code: r.code, message: r.message }];
      return { valid: false, errors, warnings: [], ...(r.gap ? { gap: r.gap } : {}), accountTimezone: account.timezone };
    }
    const warnings: Issue[] = r.dst
      ? [
          {
            path: 'scheduleAt',
            code: 'dst_ambiguous',
            message: `${scheduleAt} occurs twice in ${r.effectiveTimezone} (clocks go back); the earlier instant ${r.utc} is used. Add an offset to choose the later one (${r.dst.alternatives[1]?.localTime ?? ''}).`,
          },
        ]
      : [];
    return {
      valid: true,
      errors: [],
      warnings,
      scheduleTime: r.utc,
      localScheduleTime: r.localTime,
      utcOffset: DateTime.fromMillis(r.epochMs, { zone: r.effectiveTimezone }).toFormat('ZZ'),
      effectiveTimezone: r.effectiveTimezone,
      timezoneSource: r.timezoneSource,
      offsetInInput: r.offsetInInput,
      ...(r.dst ? { dst: r.dst } : {}),
      accountTimezone: account.timezone,
    };
  }

  async timezones(accountId: string): Promise<z.infer<typeof TimezonesResponseSchema>> {
    const account = await this.d.accounts.get(accountId);
    const now = this.d.clock.now();
    const timezones = listTimezones(now);
    return { accountTimezone: zoneInfo(account.timezone, now), timezones, count: timezones.length, timestamp: new Date(now).toISOString() };
  }

  buttonGuidelines() {
    return buttonGuidelines();
  }

  limits() {
    return validationLimits();
  }
}
