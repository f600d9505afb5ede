/**
 * The validation result `{valid, errors, warnings, sms?}` of /validate, the sandbox, templates
 * and rcs_validate: RcsMessageSchema decides the errors, ./warnings.ts adds the warnings. Takes
 * anything (JSON from any door) and never throws.
 */
import { z } from 'zod';
import { isRecord } from '../platform/guards.js';
import type { ContentErrorCode, Issue, SmsFacts, ValidationResult } from './issues.js';
import { RcsMessageSchema } from './schemas.js';
import { isMessageType } from './vocabulary.js';
import { contentWarnings, smsFactsOf } from './warnings.js';
import { contentIssues } from './zod-issues.js';

/** Compiled once: about three times the runtime parser's speed, the same issues (a failed parse reruns on the runtime parser). */
const compiledMessage = z.compile(RcsMessageSchema);

export interface ValidateContentOptions {
  /** The request's smsFallback, checked at path `smsFallback`. */
  smsFallback?: unknown;
  /** The account's custom-field tags; placeholders outside these and the built-ins are warned about. */
  knownMergeFields?: ReadonlySet<string>;
}

export function validateContent(messageType: unknown, content: unknown, opts?: ValidateContentOptions): ValidationResult {
  const options: ValidateContentOptions = isRecord(opts) ? opts : {};
  const known = options.knownMergeFields instanceof Set ? options.knownMergeFields : null;
  // A null fallback is no fallback (JSON clients write null for "none").
  const fallback = options.smsFallback === null ? undefined : options.smsFallback;
  let errors: Issue<ContentErrorCode>[];
  let result: ValidationResult;
  try {
    const parsed = compiledMessage.safeParse({ messageType, content, smsFallback: fallback }, { reportInput: true });
    errors = parsed.success ? [] : contentIssues(parsed.error.issues, RcsMessageSchema);
    const sms: SmsFacts | undefined = smsFactsOf(fallback);
    const warnings = contentWarnings({ messageType: isMessageType(messageType) ? messageType : null, content, smsFallback: fallback, knownMergeFields: known, ...(sms ? { sms } : {}) });
    result = { valid: errors.length === 0, errors, warnings };
    if (sms) result.sms = sms;
  } catch {
    // Defence in depth for inputs no JSON parser produces (throwing getters, proxies).
    result = { valid: false, errors: [{ path: 'content', code: 'unprocessable', message: 'content could not be inspected; send plain JSON.' }], warnings: [] };
  }
  return result;
}
