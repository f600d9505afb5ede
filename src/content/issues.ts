import type { SmsAnalysis } from '../sms/analyze.js';

/** Codes that make content invalid. Stable: clients switch on them. */
export const CONTENT_ERROR_CODES = [
  'required',
  'empty',
  'invalid_type',
  'invalid_enum',
  'too_long',
  'too_many',
  'too_few',
  'out_of_range',
  'unknown_field',
  'not_allowed',
  'invalid_url',
  'https_required',
  'placeholder_not_allowed',
  'invalid_datetime',
  'end_before_start',
  'invalid_phone',
  'not_allowed_on_chip',
  'not_allowed_on_card_button',
  'unsubscribe_link_placeholder',
  'exactly_one_of',
  'title_or_description_required',
  'url_or_media_required',
  'unprocessable',
  'invalid_character',
] as const;

/** Codes for content that is legal but probably not what the sender meant. */
export const CONTENT_WARNING_CODES = [
  'field_ignored',
  'media_dropped',
  'media_height_missing',
  'mixed_media_heights',
  'content_type_mismatch',
  'empty_suggestions',
  'insecure_url',
  'not_e164',
  'unknown_merge_field',
  'malformed_placeholder',
  'placeholder_not_merged',
  'sms_unicode',
  'sms_many_segments',
  'empty_merge_value',
  'bidi_control',
  'invisible_character',
  'mixed_scripts',
  'idn_host',
  'mixed_script_host',
  'stop_keyword_corrected',
] as const;

export type ContentErrorCode = (typeof CONTENT_ERROR_CODES)[number];
export type ContentWarningCode = (typeof CONTENT_WARNING_CODES)[number];
export type IssueCode = ContentErrorCode | ContentWarningCode;

/** Same shape as platform ErrorDetail, so errors can go straight into a VALIDATION_ERROR body. */
export interface Issue<C extends IssueCode = IssueCode> {
  /** JSON path relative to the request body: `content.suggestions[3].reply.text`, `smsFallback.message`. */
  path: string;
  code: C;
  message: string;
}

/** What the SMS fallback would cost, measured on the unmerged text. */
export type SmsFacts = Omit<SmsAnalysis, 'parts'>;

export interface ValidationResult {
  valid: boolean;
  errors: Issue<ContentErrorCode>[];
  warnings: Issue<ContentWarningCode>[];
  /** Present when an smsFallback with a string message was given. */
  sms?: SmsFacts;
}
