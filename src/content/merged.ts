/**
 * Merged values are validated per recipient (DESIGN §6): the literal field's schema, applied
 * again to one recipient's merged string. Called only for strings whose literal held a
 * placeholder, so a 10,000-recipient batch costs one length comparison per such string in the
 * common case.
 */
import type { ContentErrorCode, Issue } from './issues.js';
import { CAPTION_MAX_LENGTH, DESCRIPTION_MAX_LENGTH, SMS_MAX_LENGTH, TEXT_BASIC_MAX_LENGTH, TEXT_MAX_LENGTH, TITLE_MAX_LENGTH } from './limits.js';
import { MergedButtonUrlSchema, MergedTextSchemas } from './schemas.js';
import { contentIssues } from './zod-issues.js';

/** What a merged string is: the field it fills decides the rules. */
export type MergedSlot = keyof typeof MergedTextSchemas | 'buttonUrl';

const NO_ISSUES: readonly Issue<ContentErrorCode>[] = Object.freeze([]);

const MAX: Readonly<Record<keyof typeof MergedTextSchemas, number>> = {
  text: TEXT_MAX_LENGTH,
  textBasic: TEXT_BASIC_MAX_LENGTH,
  title: TITLE_MAX_LENGTH,
  description: DESCRIPTION_MAX_LENGTH,
  caption: CAPTION_MAX_LENGTH,
  sms: SMS_MAX_LENGTH,
};

/**
 * The rules of the literal field applied to a merged value. `required`: the field must not end
 * up blank (a text message's text, an SMS).
 */
export function checkMergedValue(slot: MergedSlot, value: string, path: string, required = false): readonly Issue<ContentErrorCode>[] {
  if (slot === 'buttonUrl') {
    const r = MergedButtonUrlSchema.safeParse(value, { reportInput: true });
    return r.success ? NO_ISSUES : contentIssues(r.error.issues, undefined, path);
  }
  const schema = MergedTextSchemas[slot];
  const blank = required && value.trim() === '';
  if (value.length <= MAX[slot] && !blank) return NO_ISSUES;
  const issues: Issue<ContentErrorCode>[] = blank ? [{ path, code: 'empty', message: `${path.replace(/^.*\./, '')} must not be empty` }] : [];
  const r = schema.safeParse(value, { reportInput: true });
  if (!r.success) issues.push(...contentIssues(r.error.issues, undefined, path));
  const last = issues[issues.length - 1];
  if (last) last.message = `${last.message.replace(/\.$/, '')} after merge fields are filled in.`;
  return issues;
}
