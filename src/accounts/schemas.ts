import { z } from 'zod';
import { COMPANY_MERGE_FIELDS } from '../merge/fields.js';
import { windowFromSpec, type WindowSpec } from '../schedule/quiet-hours.js';
import { isValidIanaZone } from './timezone.js';
import { REPLY_DEFAULTS, REPLY_KINDS, REPLY_LANGUAGES, REPLY_TEXT_MAX, type ConsentReplyTexts, type ReplyKind, type ReplyLanguage } from './reply-texts.js';

/** The company merge fields of spec §2.13, kept per account (the list lives with the merge engine). */
export const COMPANY_FIELDS = COMPANY_MERGE_FIELDS;
export type CompanyField = (typeof COMPANY_FIELDS)[number];

export const CompanyProfileSchema = z
  .object(Object.fromEntries(COMPANY_FIELDS.map((f) => [f, z.string().max(500).optional()])) as Record<CompanyField, z.ZodOptional<z.ZodString>>)
  .strict();
export type CompanyProfile = z.infer<typeof CompanyProfileSchema>;

export const TimeZoneSchema = z.string().refine(isValidIanaZone, { message: 'must be an IANA time zone such as Europe/Berlin' });

/**
 * Caps on opt-in forms' confirmation SMS (docs/decisions.md "Forms: caps on confirmation SMS"): nobody approves
 * these sends, so an account limits them per form and per account, per hour and per day (rolling windows). 0 stops
 * every confirmation SMS.
 */
export const FORM_CONFIRMATION_LIMIT_DEFAULTS = { perFormPerHour: 30, perFormPerDay: 200, perAccountPerHour: 100, perAccountPerDay: 1000 } as const;
export const FORM_CONFIRMATION_LIMIT_MAX = { hour: 10_000, day: 100_000 } as const;
const limit = (max: number) => z.number().int().min(0).max(max);
export const FormConfirmationLimitsSchema = z.strictObject({
  perFormPerHour: limit(FORM_CONFIRMATION_LIMIT_MAX.hour).optional().describe('Confirmation SMS per form in any 60 minutes (default 30).'),
  perFormPerDay: limit(FORM_CONFIRMATION_LIMIT_MAX.day).optional().describe('Confirmation SMS per form in any 24 hours (default 200).'),
  perAccountPerHour: limit(FORM_CONFIRMATION_LIMIT_MAX.hour).optional().describe('Confirmation SMS of all the account’s forms in any 60 minutes (default 100).'),
  perAccountPerDay: limit(FORM_CONFIRMATION_LIMIT_MAX.day).optional().describe('Confirmation SMS of all the account’s forms in any 24 hours (default 1000).'),
});
export type FormConfirmationLimitName = keyof typeof FORM_CONFIRMATION_LIMIT_DEFAULTS;
export type FormConfirmationLimits = Record<FormConfirmationLimitName, number>;

/** The confirmation of an opt-out by keyword or chip (issue #28), when the account has not written its own. */
export const OPT_OUT_CONFIRMATION_DEFAULT = REPLY_DEFAULTS.en.confirmation;
export const OPT_OUT_CONFIRMATION_MAX = REPLY_TEXT_MAX;

const LANGUAGE_LIST = REPLY_LANGUAGES.join(', ');

/** One kind of reply's texts by language code (src/accounts/reply-texts.ts): a text sets it, null or blank: the default. */
const ReplyTextsByLanguageSchema = z.strictObject(
  Object.fromEntries(REPLY_LANGUAGES.map((l) => [l, z.string().trim().max(REPLY_TEXT_MAX).nullable().optional()])) as Record<ReplyLanguage, z.ZodOptional<z.ZodNullable<z.ZodString>>>,
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown language ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}: use one of ${LANGUAGE_LIST}` : undefined) },
);

/**
 * The account's own confirmation and HELP texts per language (issue #42). A partial change keeps the languages it does
 * not name. confirmation.en is the same setting as optOutConfirmationText.
 */
export const ConsentReplyTextsSchema = z.strictObject(
  Object.fromEntries(REPLY_KINDS.map((k) => [k, ReplyTextsByLanguageSchema.optional()])) as Record<ReplyKind, z.ZodOptional<typeof ReplyTextsByLanguageSchema>>,
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown reply ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}: use confirmation or help` : undefined) },
);
export type ConsentReplyTextsInput = z.infer<typeof ConsentReplyTextsSchema>;

export const ReplyLanguageSchema = z.enum(REPLY_LANGUAGES, { error: `must be one of ${LANGUAGE_LIST}` });

/** Countries an account may override a quiet-hours window for, at most. */
export const QUIET_HOURS_OVERRIDES_MAX = 60;

/** One country's quiet-hours window, local time (src/schedule/quiet-hours.ts): messages go out from start until end. */
export const QuietHoursWindowSchema = z
  .strictObject({
    start: z.string().max(5).describe('HH:MM, local time from which messages go out.'),
    end: z.string().max(5).describe('HH:MM (24:00 allowed), local time from which they wait.'),
    days: z.array(z.number().int()).max(7).optional().describe('ISO weekdays allowed, 1 Monday … 7 Sunday; default all.'),
  })
  .superRefine((w, ctx) => {
    const r = windowFromSpec(w);
    if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
  });

/** Per-country overrides of the quiet-hours windows, by ISO 3166-1 alpha-2 code. */
export const QuietHoursWindowsSchema = z
  .record(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as DE'), QuietHoursWindowSchema)
  .refine((r) => Object.keys(r).length <= QUIET_HOURS_OVERRIDES_MAX, { message: `at most ${QUIET_HOURS_OVERRIDES_MAX} countries` });

export const AccountSettingsSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    timezone: TimeZoneSchema.optional(),
    approvalRequired: z.boolean().optional(),
    unsubscribeUrl: z.url({ protocol: /^https?$/ }).max(2000).nullable().optional(),
    companyProfile: CompanyProfileSchema.optional(),
    /** A partial change keeps the limits it does not name. */
    formConfirmationLimits: FormConfirmationLimitsSchema.optional(),
    /** Confirm an opt-out by keyword or chip with one message (default on). */
    optOutConfirmation: z.boolean().optional(),
    /** The confirmation's text ({{company_name}} is replaced); null or blank: the default text. */
    optOutConfirmationText: z.string().trim().max(OPT_OUT_CONFIRMATION_MAX).nullable().optional(),
    /** The language of replies to English words and to the sender's own words (default en); null: en. */
    consentReplyLanguage: ReplyLanguageSchema.nullable().optional(),
    /** The account's own confirmation and HELP texts per language; see ConsentReplyTextsSchema. */
    consentReplyTexts: ConsentReplyTextsSchema.optional(),
    /** Quiet hours (default off): marketing messages wait for the recipient's local sending window. */
    quietHours: z.boolean().optional(),
    /** Per-country window overrides; replaces the whole set; null or {}: the defaults. */
    quietHoursWindows: QuietHoursWindowsSchema.nullable().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    // One setting under two names: both given must agree.
    const en = s.consentReplyTexts?.confirmation?.en;
    const blank = (v: string | null | undefined) => (v === '' ? null : v);
    if (en !== undefined && s.optOutConfirmationText !== undefined && blank(en) !== blank(s.optOutConfirmationText)) {
      ctx.addIssue({ code: 'custom', path: ['consentReplyTexts', 'confirmation', 'en'], message: 'is optOutConfirmationText under another name; give one of them, or both the same' });
    }
  });
export type AccountSettingsInput = z.infer<typeof AccountSettingsSchema>;

export interface Account {
  id: string;
  name: string;
  timezone: string;
  approvalRequired: boolean;
  credits: number;
  unsubscribeUrl: string | null;
  companyProfile: CompanyProfile;
  formConfirmationLimits: FormConfirmationLimits;
  /** Opt-outs by keyword or chip are confirmed with one message. */
  optOutConfirmation: boolean;
  /** The account's own confirmation text; null: OPT_OUT_CONFIRMATION_DEFAULT. */
  optOutConfirmationText: string | null;
  /** The language of replies to English words and the sender's own words (default en). */
  consentReplyLanguage: ReplyLanguage;
  /** The account's own reply texts per language (confirmation.en is optOutConfirmationText); a language missing: its default. */
  consentReplyTexts: ConsentReplyTexts;
  /** Quiet hours on: marketing messages outside the recipient's local window are deferred to its opening. */
  quietHours: boolean;
  /** The account's per-country window overrides (empty: the defaults of src/schedule/quiet-hours.ts). */
  quietHoursWindows: Record<string, WindowSpec>;
  active: boolean;
  createdAt: string;
}
